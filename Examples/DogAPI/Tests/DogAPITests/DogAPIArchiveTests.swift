import DogAPI
import Foundation
import MockNetworkTesting
import Testing

/// Replays `Archives/houndImagesFromTheRecording.har`, next to this file. Record it afresh from
/// the real API with `MOCKNETWORK_RECORD=rewrite swift test --filter houndImagesFromTheRecording`.
@Test(.mockNetwork(archive: "houndImagesFromTheRecording"))
func houndImagesFromTheRecording() async throws {
    let images = try await DogAPI(session: MockRegistry.current.session).houndImages()
    #expect(images.map(\.lastPathComponent) == ["n02088094_1003.jpg", "n02088238_10005.jpg"])
}

/// The README's latency example: the recorded 120 ms, scaled to a tenth, so a loading state shows.
@Test(.mockNetwork(archive: "houndImagesFromTheRecording", latency: .recorded(scale: 0.1)))
func houndImagesAfterTheRecordedWait() async throws {
    let start = Date()
    let images = try await DogAPI(session: MockRegistry.current.session).houndImages()
    #expect(images.count == 2)
    #expect(Date().timeIntervalSince(start) >= 0.011, "answered after a tenth of the recorded 120 ms")
}

/// The README's redaction, as it is there, applied to a login exchange.
@Test func redactionFromTheREADME() throws {
    let redaction = HTTPArchive.Redaction(queryParameters: ["api_key"], jsonKeys: ["password", "access_token"])
    let login = HTTPArchive.Entry(
        request: HTTPArchive.Request(
            method: "POST", url: "https://api.example.com/login?api_key=k-1234&lang=en",
            body: HTTPArchive.Body(Data(#"{"user":"ada","password":"hunter22"}"#.utf8), mimeType: "application/json")),
        response: HTTPArchive.Response(
            status: 200,
            body: HTTPArchive.Body(
                Data(#"{"access_token":"tok-5678","user":{"id":1}}"#.utf8), mimeType: "application/json")))
    let entry = try #require(HTTPArchive(entries: [login]).redacted(redaction).entries.first)
    #expect(entry.request.url == "https://api.example.com/login?lang=en")
    #expect(entry.request.body?.text == #"{"user":"ada","password":"REDACTED"}"#)
    #expect(entry.response.body.text == #"{"access_token":"REDACTED","user":{"id":1}}"#)
}
