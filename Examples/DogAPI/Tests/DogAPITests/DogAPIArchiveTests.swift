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
