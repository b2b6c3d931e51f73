import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small client for the Dog CEO API (https://dog.ceo/dog-api/).
///
/// It takes the `URLSession` to use, so tests can hand it a MockNetwork session:
/// ```swift
/// let api = DogAPI(session: .shared)
/// let images = try await api.houndImages()
/// ```
public struct DogAPI: Sendable {
    /// The endpoint that lists every hound image.
    public static let houndImagesAddress = "https://dog.ceo/api/breed/hound/images"

    /// The session requests are sent on.
    public let session: URLSession

    /// A client that sends its requests on `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// The URLs of every hound image, in the order the API lists them.
    ///
    /// - Throws: ``DogAPIError/http(status:message:)`` for a status outside `200..<300`,
    ///   ``DogAPIError/malformedResponse`` for a body that is not the expected JSON,
    ///   and the session's `URLError` when the request fails (offline, timed out, …).
    public func houndImages() async throws -> [URL] {
        guard let url = URL(string: Self.houndImagesAddress) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")

        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw DogAPIError.malformedResponse }
        guard (200..<300).contains(http.statusCode) else {
            let body = try? JSONDecoder().decode(ErrorBody.self, from: data)
            throw DogAPIError.http(status: http.statusCode, message: body?.message)
        }
        do {
            let body = try JSONDecoder().decode(ImagesBody.self, from: data)
            guard body.status == "success" else { throw DogAPIError.malformedResponse }
            return body.message
        } catch is DecodingError {
            throw DogAPIError.malformedResponse
        }
    }

    /// `{"message": ["https://…jpg", …], "status": "success"}`
    private struct ImagesBody: Decodable {
        let message: [URL]
        let status: String
    }

    /// `{"status": "error", "message": "…", "code": 404}`
    private struct ErrorBody: Decodable {
        let message: String?
    }
}

/// The ways ``DogAPI`` fails, besides the session's own `URLError`s.
public enum DogAPIError: Error, Equatable, Sendable {
    /// The server answered with a status outside `200..<300`; `message` is the error body's
    /// `message`, when the body has one.
    case http(status: Int, message: String?)
    /// The server answered 2xx, but the body is not the JSON the API documents.
    case malformedResponse
}
