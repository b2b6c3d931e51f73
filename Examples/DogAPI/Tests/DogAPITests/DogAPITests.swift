import DogAPI
import Foundation
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class DogAPITests: MockNetworkTestCase {
    func testFetchesHoundImages() async throws {
        let api = DogAPI(session: session)
        register("https://dog.ceo/api/breed/hound/images") { request in
            XCTAssertEqual(request.httpMethod, "GET")
            XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "application/json")
            return .json(
                #"""
                {
                    "message": [
                        "https://images.dog.ceo/breeds/hound-afghan/n02088094_1003.jpg",
                        "https://images.dog.ceo/breeds/hound-basset/n02088238_10005.jpg",
                        "https://images.dog.ceo/breeds/hound-blood/n02088466_10083.jpg"
                    ],
                    "status": "success"
                }
                """#)
        }

        let images = try await api.houndImages()

        XCTAssertEqual(
            images.map(\.absoluteString),
            [
                "https://images.dog.ceo/breeds/hound-afghan/n02088094_1003.jpg",
                "https://images.dog.ceo/breeds/hound-basset/n02088238_10005.jpg",
                "https://images.dog.ceo/breeds/hound-blood/n02088466_10083.jpg",
            ])
        XCTAssertEqual(mocks.callCount(for: "https://dog.ceo/api/breed/hound/images"), 1)
    }

    func testHTTPErrorCarriesStatusAndMessage() async throws {
        let api = DogAPI(session: session)
        register("https://dog.ceo/api/breed/hound/images") { _ in
            .json(#"{"status":"error","message":"API key missing or invalid.","code":401}"#, status: 401)
        }

        do {
            let images = try await api.houndImages()
            XCTFail("expected DogAPIError.http, got \(images)")
        } catch let error as DogAPIError {
            XCTAssertEqual(error, .http(status: 401, message: "API key missing or invalid."))
        }
    }

    func testHTTPErrorWithoutBodyHasNoMessage() async throws {
        let api = DogAPI(session: session)
        register("https://dog.ceo/api/breed/hound/images") { _ in .status(503) }

        do {
            let images = try await api.houndImages()
            XCTFail("expected DogAPIError.http, got \(images)")
        } catch let error as DogAPIError {
            XCTAssertEqual(error, .http(status: 503, message: nil))
        }
    }

    func testNetworkFailurePropagatesURLError() async throws {
        let api = DogAPI(session: session)
        register("https://dog.ceo/api/breed/hound/images") { _ in .failure(.notConnectedToInternet) }

        do {
            let images = try await api.houndImages()
            XCTFail("expected URLError, got \(images)")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .notConnectedToInternet)
        }
    }

    func testMalformedJSONThrowsMalformedResponse() async throws {
        let api = DogAPI(session: session)
        register("https://dog.ceo/api/breed/hound/images") { _ in
            .json(#"{"message": ["https://images.dog.ceo/breeds/hound-afghan/n02088094_1003.jpg""#)
        }

        do {
            let images = try await api.houndImages()
            XCTFail("expected DogAPIError.malformedResponse, got \(images)")
        } catch let error as DogAPIError {
            XCTAssertEqual(error, .malformedResponse)
        }
    }
}
