// Shows what the cat breeds screen displays for each kind of server answer, without touching the
// network: a MockRegistry serves the bundled fixture files, and one URL answers as if offline.
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

let variants = ["standard", "empty", "malformed", "with-more"]
let registry = MockRegistry()

for variant in variants {
    guard let file = Bundle.module.url(forResource: variant, withExtension: "json", subdirectory: "Fixtures") else {
        fail("the fixture Fixtures/\(variant).json is missing from the demo's resources.")
    }
    let body: Data
    do {
        body = try Data(contentsOf: file)
    } catch {
        fail("could not read \(file.path): \(error.localizedDescription)")
    }
    registry.register("https://cats.example.com/\(variant)/breeds.json") { _ in
        try .data(body, headers: ["Content-Type": "application/json"])
    }
}
registry.register("https://cats.example.com/offline/breeds.json") { _ in .failure(.notConnectedToInternet) }

for variant in variants + ["offline"] {
    guard let base = URL(string: "https://cats.example.com/\(variant)") else {
        fail("https://cats.example.com/\(variant) is not a valid URL.")
    }
    let client = CatBreedsClient(baseURL: base, session: registry.session)
    let screen: String
    do {
        screen = describe(.success(try await client.breeds()))
    } catch {
        screen = describe(.failure(error))
    }
    print("== \(variant) ==")
    print(screen)
    print()
}

// A request no handler matched means the demo asked for a URL it never registered.
let failures = registry.failures
if !failures.isEmpty {
    fail(failures.map(\.message).joined(separator: "\n"))
}
