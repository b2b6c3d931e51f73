import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loads the list of cat breeds from a `breeds.json` file on a server.
///
/// ```swift
/// let client = CatBreedsClient(baseURL: catsServer, session: .shared)
/// let breeds = try await client.breeds()
/// ```
public struct CatBreedsClient: Sendable {
    /// The address of the `breeds.json` this client loads.
    public let breedsURL: URL
    /// The session requests are sent on.
    public let session: URLSession

    /// A client for the `breeds.json` at `breedsURL`.
    public init(breedsURL: URL, session: URLSession) {
        self.breedsURL = breedsURL
        self.session = session
    }

    /// A client for the `breeds.json` in the folder at `baseURL`, e.g.
    /// `https://cats.example.com/standard` loads `https://cats.example.com/standard/breeds.json`.
    public init(baseURL: URL, session: URLSession) {
        self.init(breedsURL: baseURL.appending(path: "breeds.json"), session: session)
    }

    /// The breeds, in the order the file lists them.
    ///
    /// - Throws: ``CatBreedsError/http(status:)`` for a status outside `200..<300`,
    ///   ``CatBreedsError/malformedResponse`` for a body that is not the expected JSON,
    ///   and the session's `URLError` when the request fails (offline, timed out, …).
    public func breeds() async throws -> [Breed] {
        let (data, response) = try await session.data(from: breedsURL)
        guard let http = response as? HTTPURLResponse else { throw CatBreedsError.malformedResponse }
        guard (200..<300).contains(http.statusCode) else { throw CatBreedsError.http(status: http.statusCode) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(BreedList.self, from: data).breeds
        } catch {
            throw CatBreedsError.malformedResponse
        }
    }

    /// `{"breeds": [ … ]}`
    private struct BreedList: Decodable {
        let breeds: [Breed]
    }
}

/// The ways ``CatBreedsClient`` fails, besides the session's own `URLError`s.
public enum CatBreedsError: Error, Equatable, Sendable {
    /// The server answered with a status outside `200..<300`.
    case http(status: Int)
    /// The server answered 2xx, but the body is not a breeds list.
    case malformedResponse
}
