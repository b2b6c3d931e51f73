import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The "after" code of "Migrating from OHHTTPStubs", as the guide shows it.

// Guide: after
final class WeatherClientTests: MockNetworkTestCase {
    func testShowsForecast() async throws {
        register(
            .host("weather.example.com", path: "/v1/forecast")
                .query(["city": "Paris"])
        ) { _ in
            MockResponse.json(#"{"city": "Paris", "celsius": 21}"#)
                .delayed(by: 0.2)
        }
        let client = WeatherClient(session: session)
        let forecast = try await client.forecast(for: "Paris")
        XCTAssertEqual(forecast.celsius, 21)
    }

    func testReportsOffline() async throws {
        register(.host("weather.example.com")) { _ in
            .failure(.notConnectedToInternet)
        }
        let client = WeatherClient(session: session)
        do {
            _ = try await client.forecast(for: "Paris")
            XCTFail("expected the client to throw")
        } catch {
            let code = (error as? URLError)?.code
            XCTAssertEqual(code, .notConnectedToInternet)
        }
    }
}
// (end of snippet)

extension WeatherClientTests {
    // Guide: a retry, a slow network, after
    func testRetriesOnceAfterA503() async throws {
        let forecast = RequestMatch.host(
            "weather.example.com", path: "/v1/forecast")
        let route = mocks.register(
            forecast,
            sequence: [
                .status(503),
                .json(#"{"city": "Paris", "celsius": 21}"#)
                    .throttled(bytesPerSecond: 4_000),
            ])
        let client = WeatherClient(session: session)
        _ = try await client.forecast(for: "Paris")
        XCTAssertEqual(route.callCount, 2)
    }
    // (end of snippet)
}
