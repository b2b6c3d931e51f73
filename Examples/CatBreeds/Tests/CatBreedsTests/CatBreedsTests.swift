import CatBreeds
import Foundation
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class CatBreedsTests: MockNetworkTestCase {
    // MARK: Helpers

    /// The contents of `Fixtures/<name>.json`, bundled with this test target.
    private func fixture(_ name: String) throws -> Data {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
            "Fixtures/\(name).json is not in the test bundle")
        return try Data(contentsOf: url)
    }

    /// Serves `Fixtures/<variant>.json` at `https://cats.example.com/<variant>/breeds.json`,
    /// and returns a client that loads it.
    private func client(serving variant: String) throws -> CatBreedsClient {
        let body = try fixture(variant)
        register("https://cats.example.com/\(variant)/breeds.json") { request in
            XCTAssertEqual(request.httpMethod, "GET")
            return .data(body, headers: ["Content-Type": "application/json"])
        }
        return try client(for: variant)
    }

    private func client(for variant: String) throws -> CatBreedsClient {
        let base = try XCTUnwrap(URL(string: "https://cats.example.com/\(variant)"))
        return CatBreedsClient(baseURL: base, session: session)
    }

    /// What the breeds screen shows after loading with `client`.
    private func screen(_ client: CatBreedsClient) async -> String {
        do {
            return describe(.success(try await client.breeds()))
        } catch {
            return describe(.failure(error))
        }
    }

    // MARK: standard

    func testStandardDecodesEveryField() async throws {
        let breeds = try await client(serving: "standard").breeds()

        XCTAssertEqual(breeds.map(\.name), ["Maine Coon", "Siamese", "Persian", "Abyssinian"])
        XCTAssertEqual(breeds.map(\.popularity), [3, 11, 5, 7])
        let maineCoon = try XCTUnwrap(breeds.first)
        XCTAssertEqual(maineCoon.knownFor, "a gentle-giant temperament and a shaggy, water-resistant coat")
        XCTAssertEqual(maineCoon.photoURL.absoluteString, "https://cats.example.com/photos/maine-coon.jpg")
        XCTAssertEqual(maineCoon.infoURL.absoluteString, "https://en.wikipedia.org/wiki/Maine_Coon")
        XCTAssertEqual(maineCoon.credit, "Photo by Anna Lindqvist")
        XCTAssertEqual(maineCoon.license, "CC BY-SA 4.0")
        XCTAssertTrue(maineCoon.description.hasPrefix("One of the largest domesticated breeds"))
        XCTAssertEqual(mocks.callCount(for: "https://cats.example.com/standard/breeds.json"), 1)
    }

    func testStandardScreenListsBreeds() async throws {
        let text = await screen(try client(serving: "standard"))

        XCTAssertEqual(
            text,
            """
            1. Maine Coon — popularity 3 — known for a gentle-giant temperament and a shaggy, water-resistant coat
            2. Siamese — popularity 11 — known for a pointed coat, blue almond-shaped eyes and a loud, chatty voice
            3. Persian — popularity 5 — known for a long, silky coat and a calm, sweet nature
            4. Abyssinian — popularity 7 — known for a ticked, warm-toned coat and endless curiosity
            """)
    }

    // MARK: empty

    func testEmptyDecodesNoBreeds() async throws {
        let breeds = try await client(serving: "empty").breeds()

        XCTAssertEqual(breeds, [])
    }

    func testEmptyScreenSaysNoBreeds() async throws {
        let text = await screen(try client(serving: "empty"))

        XCTAssertEqual(text, "no breeds")
    }

    // MARK: malformed

    func testMalformedThrowsMalformedResponse() async throws {
        let client = try client(serving: "malformed")

        do {
            let breeds = try await client.breeds()
            XCTFail("expected CatBreedsError.malformedResponse, got \(breeds)")
        } catch let error as CatBreedsError {
            XCTAssertEqual(error, .malformedResponse)
        }
    }

    func testMalformedScreenSaysBadResponse() async throws {
        let text = await screen(try client(serving: "malformed"))

        XCTAssertEqual(text, "bad response")
    }

    // MARK: with-more

    func testWithMoreDecodesEightBreeds() async throws {
        let breeds = try await client(serving: "with-more").breeds()

        XCTAssertEqual(breeds.count, 8)
        XCTAssertEqual(
            breeds.map(\.name),
            ["Ragdoll", "Maine Coon", "Persian", "British Shorthair", "Abyssinian", "Bengal", "Sphynx", "Siamese"])
        let sphynx = try XCTUnwrap(breeds.first { $0.name == "Sphynx" })
        XCTAssertEqual(sphynx.popularity, 10)
        XCTAssertEqual(sphynx.knownFor, "having almost no hair and seeking out warm laps")
        XCTAssertEqual(sphynx.infoURL.absoluteString, "https://en.wikipedia.org/wiki/Sphynx_cat")
        XCTAssertEqual(sphynx.credit, "Photo by Chloé Marchand")
    }

    func testWithMoreScreenHasOneLinePerBreed() async throws {
        let lines = await screen(try client(serving: "with-more")).split(separator: "\n")

        XCTAssertEqual(lines.count, 8)
        XCTAssertEqual(
            lines.first, "1. Ragdoll — popularity 1 — known for going limp in your arms and a placid, dog-like devotion"
        )
        XCTAssertEqual(
            lines.last,
            "8. Siamese — popularity 11 — known for a pointed coat, blue almond-shaped eyes and a loud, chatty voice")
    }

    // MARK: offline and server errors

    func testOfflinePropagatesURLError() async throws {
        register("https://cats.example.com/offline/breeds.json") { _ in .failure(.notConnectedToInternet) }
        let client = try client(for: "offline")

        do {
            let breeds = try await client.breeds()
            XCTFail("expected URLError, got \(breeds)")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .notConnectedToInternet)
        }
    }

    func testOfflineScreenSaysOffline() async throws {
        register("https://cats.example.com/offline/breeds.json") { _ in .failure(.notConnectedToInternet) }

        let text = await screen(try client(for: "offline"))

        XCTAssertEqual(text, "offline")
    }

    func testServerErrorThrowsHTTPStatus() async throws {
        register("https://cats.example.com/broken/breeds.json") { _ in .status(500) }
        let client = try client(for: "broken")

        do {
            let breeds = try await client.breeds()
            XCTFail("expected CatBreedsError.http, got \(breeds)")
        } catch let error as CatBreedsError {
            XCTAssertEqual(error, .http(status: 500))
        }
    }

    func testTimeoutScreenSaysCouldNotLoad() async throws {
        register("https://cats.example.com/slow/breeds.json") { _ in .failure(.timedOut) }

        let text = await screen(try client(for: "slow"))

        XCTAssertEqual(text, "could not load breeds")
    }
}
