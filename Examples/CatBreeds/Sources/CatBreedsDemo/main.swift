// Shows what the cat breeds screen displays for each kind of server answer, without touching the
// network: app stubs serve the bundled files of each variant, and one registry answers as if offline.
//
//     swift run CatBreedsDemo
//
// Launched as a UI test launches an app, it shows the one screen the environment asks for, through
// `MockRegistry.launched`, and writes what its mocks saw to the report file named there:
//
//     MOCKNETWORK_SCENARIO=empty swift run CatBreedsDemo       # Fixtures/empty/breeds.json
//     MOCKNETWORK_ARCHIVE=two-breeds swift run CatBreedsDemo   # Fixtures/Archives/two-breeds.har
//
// With a UI test's `MockServer` in its environment (`mockNetwork(server:)`), the test's handlers
// answer it live: `CatBreedsDemoLiveTests` launches it so.

import CatBreeds
import Foundation
import MockNetwork
import MockNetworkApp

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints `message` to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("CatBreedsDemo: \(message)\n".utf8))
    exit(1)
}

/// What the breeds screen shows when its client loads through `session`.
func screen(_ breedsURL: URL, _ session: URLSession) async -> String {
    let client = CatBreedsClient(breedsURL: breedsURL, session: session)
    do {
        return describe(.success(try await client.breeds()))
    } catch {
        return describe(.failure(error))
    }
}

guard let breedsURL = URL(string: "https://cats.example.com/breeds.json") else {
    fail("the breeds URL is not a valid URL.")
}
let stubs = [breedsURL.absoluteString: "breeds"]

// What the app does at launch: the mocks a UI test asked for, or none.
let launched: MockRegistry?
do {
    launched = try MockRegistry.launched(stubs: stubs, in: .module)
} catch {
    fail("\(error)")
}

if let launched {
    let environment = ProcessInfo.processInfo.environment
    // A UI test's live server answers what the scenario and the archive leave.
    let live = environment["MOCKNETWORK_SERVER"].map { _ in "live" }
    let name = [environment["MOCKNETWORK_SCENARIO"], environment["MOCKNETWORK_ARCHIVE"], live].compactMap { $0 }
    print("== \(name.joined(separator: " + ")) ==")
    print(await screen(breedsURL, launched.session))
    // The report holds the failures for the test; a person running the demo sees them here.
    for failure in launched.failures {
        FileHandle.standardError.write(Data("\(failure.message)\n".utf8))
    }
    exit(0)
}

// What an app's development build does: one stub registry per variant, each serving
// Fixtures/<variant>/breeds.json from the app's own bundle.
var screens: [(name: String, registry: MockRegistry)] = ["standard", "empty", "malformed", "with-more"].map {
    ($0, MockRegistry.stubs(stubs, variant: $0, in: .module))
}
let offline = MockRegistry()
offline.register(.url(breedsURL)) { _ in .failure(.notConnectedToInternet) }
screens.append(("offline", offline))

for (name, registry) in screens {
    let shown = await screen(breedsURL, registry.session)
    print("== \(name) ==")
    print(shown)
    print()
    // A missing fixture or an unregistered URL is a broken demo, not a screen to show.
    if let failure = registry.failures.first { fail(failure.message) }
}
