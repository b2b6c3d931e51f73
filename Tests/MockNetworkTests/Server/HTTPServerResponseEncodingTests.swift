import Foundation
import XCTest

@testable import MockNetworkServer

/// The bytes of a response head and of chunk heads, written straight into a byte buffer.
final class HTTPServerResponseEncodingTests: XCTestCase {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func testHeadCarriesStatusFieldsLengthAndConnection() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Trace": "a b"]
        XCTAssertEqual(
            text(ResponseEncoding.head(status: 200, headers: headers, framing: .length(1_234_567), connection: .none)),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Trace: a b\r\nContent-Length: 1234567\r\n\r\n")
        XCTAssertEqual(
            text(ResponseEncoding.head(status: 404, headers: [:], framing: .length(0), connection: .close)),
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(
            text(ResponseEncoding.head(status: 599, headers: [:], framing: .chunked, connection: .keepAlive)),
            "HTTP/1.1 599 Server Error\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(
            text(ResponseEncoding.head(status: 204, headers: [:], framing: .bodiless, connection: .none)),
            "HTTP/1.1 204 No Content\r\n\r\n")
    }

    func testHeadDropsFramingFieldsAndFieldsThatCouldSplitIt() {
        let headers: HTTPHeaders = [
            "content-length": "9", "TRANSFER-ENCODING": "gzip", "Connection": "upgrade", "keep-alive": "5",
            "Bad Name": "x", "X-Split": "a\r\nInjected: yes", "X-Kept": "yes",
        ]
        XCTAssertEqual(
            text(ResponseEncoding.head(status: 200, headers: headers, framing: .length(2), connection: .none)),
            "HTTP/1.1 200 OK\r\nX-Kept: yes\r\nContent-Length: 2\r\n\r\n")
    }

    func testLengthsAndChunkSizesAreWrittenInFull() {
        for (length, digits) in [(0, "0"), (9, "9"), (10, "10"), (100, "100"), (Int.max, "\(Int.max)")] {
            XCTAssertEqual(
                text(ResponseEncoding.head(status: 200, headers: [:], framing: .length(length), connection: .none)),
                "HTTP/1.1 200 OK\r\nContent-Length: \(digits)\r\n\r\n")
        }
        for (size, hex) in [
            (1, "1"), (10, "a"), (15, "f"), (16, "10"), (255, "ff"), (4096, "1000"), (Int.max, "7fffffffffffffff"),
        ] {
            var bytes: [UInt8] = []
            ResponseEncoding.appendChunkHead(size, to: &bytes)
            XCTAssertEqual(text(bytes), hex + "\r\n")
        }
    }
}
