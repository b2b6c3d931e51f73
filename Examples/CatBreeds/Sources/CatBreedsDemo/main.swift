// Shows what the cat breeds screen displays for each kind of server answer, without touching the
// network: app stubs serve the bundled files of each variant, and one registry answers as if offline.
//
//     swift run CatBreedsDemo

import CatBreeds
import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints `message` to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("CatBreedsDemo: \(message)\n".utf8))
    exit(1)
}

guard let breedsURL = URL(string: "https://cats.example.com/breeds.json") else {
    fail("the breeds URL is not a valid URL.")
}

// What an app's development build does: one stub registry per variant, each serving
// Fixtures/<variant>/breeds.json from the app's own bundle.
var screens: [(name: String, registry: MockRegistry)] = ["standard", "empty", "malformed", "with-more"].map {
    ($0, MockRegistry.stubs([breedsURL.absoluteString: "breeds"], variant: $0, in: .module))
}
let offline = MockRegistry()
offline.register(breedsURL.absoluteString) { _ in .failure(.notConnectedToInternet) }
screens.append(("offline", offline))

for (name, registry) in screens {
    let client = CatBreedsClient(breedsURL: breedsURL, session: registry.session)
    let screen: String
    do {
        screen = describe(.success(try await client.breeds()))
    } catch {
        screen = describe(.failure(error))
    }
    print("== \(name) ==")
    print(screen)
    print()
    // A missing fixture or an unregistered URL is a broken demo, not a screen to show.
    if let failure = registry.failures.first { fail(failure.message) }
}
