import Foundation
import MockNetworkServer
import MockNetworkTesting
import Testing

/// The "WebSockets" article's recipe for a feed client, each step's code as the article shows it:
/// subscribe, the app's ping and pong, a reconnect after a drop, and a message the client cannot read.
/// `PriceFeed` (PriceFeed.swift) stands for the app's client.
@Suite(.mockNetwork, .timeLimit(.minutes(1)))
struct PriceFeedRecipeTests {
    let mocks = MockRegistry.current
    let origin = "https://feed.example.com"

    @Test func subscribe() async throws {
        // Article: Subscribe
        let subscribe = #"{"type":"subscribe","symbol":"AAPL"}"#
        let price = #"{"type":"price","symbol":"AAPL","price":189.5}"#
        mocks.webSocket(
            "wss://feed.example.com/prices",
            replies: [.text(subscribe): [.text(price)]])
        let server = try MockServer(serving: mocks, as: [origin])
        let feed = PriceFeed(server, path: "/prices")
        try await feed.subscribe("AAPL")
        #expect(await feed.events(2) == [.connected(1), .price("AAPL", 189.5)])
        try await feed.stop()
        // (end of snippet)
        #expect(mocks.webSockets.first?.received == [.text(subscribe)])
    }

    @Test func pingAndPong() async throws {
        // Article: Ping and pong
        mocks.webSocket("wss://feed.example.com/prices") { socket in
            _ = try await socket.receive(timeout: 5)  // the subscription
            await socket.send(#"{"type":"ping"}"#)  // the app's own ping
            #expect(try await socket.receive(timeout: 5) == #"{"type":"pong"}"#)
            try await socket.ping(timeout: 5)  // the protocol's ping
            await socket.send(#"{"type":"price","symbol":"AAPL","price":190.0}"#)
            try await socket.awaitClosed(timeout: 5)
        }
        let server = try MockServer(serving: mocks, as: [origin])
        let feed = PriceFeed(server, path: "/prices")
        try await feed.subscribe("AAPL")
        #expect(await feed.events(2) == [.connected(1), .price("AAPL", 190.0)])
        try await feed.stop()
        // (end of snippet)
    }

    @Test func reconnectAfterADrop() async throws {
        // Article: Reconnect after a drop
        mocks.webSocket("wss://feed.example.com/prices") { [mocks] socket in
            _ = try await socket.receive(timeout: 5)  // each one subscribes
            await socket.send(#"{"type":"price","symbol":"AAPL","price":189.5}"#)
            if mocks.webSockets.count == 1 {
                socket.drop()  // the first connection fails, with no close frame
            } else {
                try await socket.awaitClosed(timeout: 5)
            }
        }
        let server = try MockServer(serving: mocks, as: [origin])
        let feed = PriceFeed(server, path: "/prices", reconnects: 1)
        try await feed.subscribe("AAPL")
        #expect(
            await feed.events(5) == [
                .connected(1), .price("AAPL", 189.5), .closed(normally: false),
                .connected(2), .price("AAPL", 189.5),
            ])
        try await feed.stop()
        try await mocks.webSockets.last?.awaitClosed(timeout: 5)
        #expect(mocks.webSockets.map(\.closeCode) == [nil, .normal])
        // (end of snippet)
    }

    @Test func aMalformedMessage() async throws {
        // Article: A malformed message
        let subscribe = #"{"type":"subscribe","symbol":"AAPL"}"#
        let noPrice = #"{"type":"price","symbol":"AAPL"}"#
        mocks.webSocket(
            "wss://feed.example.com/prices",
            replies: [.text(subscribe): ["{not json", .text(noPrice)]])
        let server = try MockServer(serving: mocks, as: [origin])
        let feed = PriceFeed(server, path: "/prices")
        try await feed.subscribe("AAPL")
        #expect(
            await feed.events(3) == [
                .connected(1), .malformed("{not json"), .malformed(noPrice),
            ])
        try await feed.stop()
        // (end of snippet)
    }
}
