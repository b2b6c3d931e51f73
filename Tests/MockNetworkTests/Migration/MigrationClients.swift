import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The clients the migration guides' tests drive (`MigratingFromAHandWrittenProtocol.md`,
// `MigratingFromMocker.md` and `MigratingFromOHHTTPStubs.md` in the core's catalog), small as an
// app's would be. The tests are top-level classes, as XCTest finds them on Linux, named as the
// guides show them: `swift test --filter 'Migration|ProfileClient|TransferClient|WeatherClient'`.

/// What the guides' clients throw for a status outside `200..<300`.
enum ClientError: Error, Equatable {
    case status(Int)

    static func check(_ response: URLResponse) throws {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw ClientError.status(status) }
    }
}

/// The signed-in user, as the hand-written protocol guide's client reads it.
struct Profile: Decodable, Equatable {
    let name: String
}

/// Reads the signed-in user's profile: `GET /v1/me` with a bearer token.
struct ProfileClient {
    let session: URLSession
    var token = "t"

    func profile() async throws -> Profile {
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/me")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await session.data(for: request)
        try ClientError.check(response)
        return try JSONDecoder().decode(Profile.self, from: data)
    }
}

/// A transfer, as the Mocker guide's client creates and reads it.
struct Transfer: Codable, Equatable {
    let id: String
    let name: String
}

/// What the client sends to create a transfer.
struct NewTransfer: Codable, Equatable {
    let name: String
}

/// Creates transfers (`POST /v2/transfers` with a JSON body) and reads them back.
struct TransferClient {
    let session: URLSession

    func create(name: String) async throws -> Transfer {
        var request = URLRequest(url: URL(string: "https://api.example.com/v2/transfers")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(NewTransfer(name: name))
        let (data, response) = try await session.data(for: request)
        try ClientError.check(response)
        return try JSONDecoder().decode(Transfer.self, from: data)
    }

    func transfer(id: String) async throws -> Transfer {
        let url = URL(string: "https://api.example.com/v2/transfers/\(id)")!
        let (data, response) = try await session.data(from: url)
        try ClientError.check(response)
        return try JSONDecoder().decode(Transfer.self, from: data)
    }
}

/// A forecast, as the OHHTTPStubs guide's client reads it.
struct Forecast: Decodable, Equatable {
    let city: String
    let celsius: Int
}

/// Reads forecasts: `GET /v1/forecast?city=…&units=metric`, retrying once after a 503.
struct WeatherClient {
    let session: URLSession

    func forecast(for city: String) async throws -> Forecast {
        var components = URLComponents(string: "https://weather.example.com/v1/forecast")!
        components.queryItems = [URLQueryItem(name: "city", value: city), URLQueryItem(name: "units", value: "metric")]
        var (data, response) = try await session.data(from: components.url!)
        if (response as? HTTPURLResponse)?.statusCode == 503 {
            (data, response) = try await session.data(from: components.url!)
        }
        try ClientError.check(response)
        return try JSONDecoder().decode(Forecast.self, from: data)
    }
}
