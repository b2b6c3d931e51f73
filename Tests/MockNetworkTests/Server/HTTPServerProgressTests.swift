import Foundation
import MockNetworkServer
import XCTest

/// Where an answer stands for its client (`HTTPResponseWriter.progress`), and a stop that gives an
/// unfinished answer's client a moment to hang up first.
final class HTTPServerProgressTests: XCTestCase {
    /// A server whose every answer is begun with `length` and handed to the test, with what each
    /// writer's `progress` said when its connection closed.
    private func keepingServer(
        length: Int? = nil
    ) throws -> (HTTPServer, Shared<[HTTPResponseWriter]>, Shared<[HTTPResponseWriter.Progress]>) {
        let writers = Shared<[HTTPResponseWriter]>([])
        let closed = Shared<[HTTPResponseWriter.Progress]>([])
        let server = try HTTPServer { _, writer in
            writer.begin(status: 200, length: length)
            writer.onClose { closed.update { $0.append(writer.progress) } }
            writers.update { $0.append(writer) }
        }
        return (server, writers, closed)
    }

    func testAnAnswerIsSentOnceItsLastAnnouncedByteIs() async throws {
        let (server, writers, _) = try keepingServer(length: 3)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try client.readHead().status, 200)
                let writer = try XCTUnwrap(writers.current.first)
                XCTAssertEqual(writer.progress, .writing)
                writer.write(Data("ab".utf8))
                XCTAssertEqual(try client.readExactly(2), Array("ab".utf8))
                XCTAssertEqual(writer.progress, .writing, "a byte is still to come")
                writer.write(Data("c".utf8))
                XCTAssertEqual(try client.readExactly(1), Array("c".utf8))
                XCTAssertEqual(writer.progress, .sent, "the client has every byte, before the answer's end")
                writer.end()
                XCTAssertEqual(writer.progress, .sent)
            }
        }
    }

    func testAClientThatClosedIsSeenAtOnce() async throws {
        let (server, writers, _) = try keepingServer()
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try client.readHead().status, 200)
                let writer = try XCTUnwrap(writers.current.first)
                XCTAssertEqual(writer.progress, .writing)
                client.close()
                // Seen on the socket, or read by the server already: either way the client left.
                XCTAssertEqual(writer.progress, .clientLeft)
            }
        }
    }

    func testAStopWithGraceTellsAClientThatHangsUpFromOneThatStays() async throws {
        let (server, writers, closed) = try keepingServer()
        let stays = try RawHTTPClient(port: server.port)
        let leaves = try RawHTTPClient(port: server.port)
        try await withWatchdog(20) {
            try await offThread {
                for client in [stays, leaves] {
                    client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                    XCTAssertEqual(try client.readHead().status, 200)
                }
                XCTAssertEqual(writers.current.count, 2)
                server.stop(grace: 0.2)
                XCTAssertThrowsError(try RawHTTPClient(port: server.port), "the port is closed at once")
                leaves.close()
                XCTAssertTrue(stays.waitForClose(), "closed when the grace ran out")
            }
            await server.waitUntilNoConnections()
        }
        stays.close()
        XCTAssertEqual(closed.current.sorted { "\($0)" < "\($1)" }, [.clientLeft, .cutShort])
    }
}
