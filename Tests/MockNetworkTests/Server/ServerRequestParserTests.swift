import Foundation
import XCTest

@testable import MockNetworkServer

/// The request parser alone: requests split at every byte, pipelined, in both body framings, and
/// each way a request can be malformed or too large, with the status it gets.
final class ServerRequestParserTests: XCTestCase {
    private let peer = HTTPPeer(host: "127.0.0.1", port: 50_000)

    private func parser(maxHeaderBytes: Int = 1024, maxBodyBytes: Int = 1024) -> RequestParser {
        RequestParser(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes, peer: peer)
    }

    /// Every step `bytes` gives when they arrive in pieces of `pieceSize`, steps that need more left out.
    private func steps(
        _ bytes: [UInt8], pieceSize: Int = .max, parser start: RequestParser? = nil
    ) -> [RequestParser.Step] {
        var parser = start ?? parser()
        var input = ByteQueue()
        var steps: [RequestParser.Step] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + min(pieceSize, bytes.count))
            input.append(contentsOf: bytes[offset..<end])
            offset = end
            while true {
                let step = parser.next(from: &input)
                if case .needMore = step { break }
                steps.append(step)
                if case .failure = step { return steps }
            }
        }
        return steps
    }

    private func requests(_ steps: [RequestParser.Step]) -> [HTTPServerRequest] {
        steps.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    private func failure(_ text: String, parser: RequestParser? = nil) -> RequestFailure? {
        for step in steps(Array(text.utf8), parser: parser) { if case .failure(let failure) = step { return failure } }
        return nil
    }

    private let pipelined = Array(
        ("\r\nGET /a?b=c HTTP/1.1\r\nHost: x\r\nAccept: */*\r\nX-Twice: 1\r\nx-twice: 2\r\n\r\n"
            + "POST /upload HTTP/1.1\nHost: x\ncontent-length: 5\n\nhello"
            + "PUT /chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "GET /old HTTP/1.0\r\n\r\n").utf8)

    func testPipelinedRequestsParseTheSameHoweverTheBytesAreSplit() {
        for pieceSize in [1, 2, 3, 7, 64, Int.max] {
            let parsed = requests(steps(pipelined, pieceSize: pieceSize))
            XCTAssertEqual(parsed.map(\.method), ["GET", "POST", "PUT", "GET"], "pieces of \(pieceSize)")
            XCTAssertEqual(parsed.map(\.target), ["/a?b=c", "/upload", "/chunks", "/old"])
            XCTAssertEqual(parsed.map(\.version), [.http11, .http11, .http11, .http10])
            XCTAssertEqual(parsed.map { String(decoding: $0.body, as: UTF8.self) }, ["", "hello", "hello world", ""])
            XCTAssertEqual(parsed.first?.headers.values(for: "X-TWICE"), ["1", "2"])
            XCTAssertEqual(parsed.first?.headers.combined("x-twice"), "1, 2")
            XCTAssertEqual(parsed.first?.headers["accept"], "*/*")
            XCTAssertEqual(parsed.map(\.keepsConnectionOpen), [true, true, true, false])
            XCTAssertEqual(parsed.first?.peer, peer)
        }
    }

    func testConnectionFieldsDecideKeepAlive() {
        let closing = requests(steps(Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive, CLOSE\r\n\r\n".utf8)))
        XCTAssertEqual(closing.first?.keepsConnectionOpen, false)
        let kept = requests(steps(Array("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8)))
        XCTAssertEqual(kept.first?.keepsConnectionOpen, true)
    }

    func testExpectContinueStopsAfterTheHeadUntilAskedAgain() {
        var parser = parser()
        var input = ByteQueue()
        input.append(contentsOf: "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n".utf8)
        guard case .continueNeeded = parser.next(from: &input) else { return XCTFail("no continue step") }
        guard case .needMore = parser.next(from: &input) else { return XCTFail("a body was made up") }
        XCTAssertTrue(parser.hasPartialRequest)
        input.append(contentsOf: "ok".utf8)
        guard case .request(let request) = parser.next(from: &input) else { return XCTFail("no request") }
        XCTAssertEqual(request.body, Data("ok".utf8))
        XCTAssertFalse(parser.hasPartialRequest)
        // Without a body, nothing waits for 100 Continue.
        input.append(contentsOf: "GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n".utf8)
        guard case .request = parser.next(from: &input) else { return XCTFail("no request") }
    }

    func testMalformedRequestsFailWithTheirStatus() {
        let cases: [(String, Int)] = [
            ("GET /\r\n\r\n", 400),
            ("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", 400),
            ("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET /\u{7F} HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET / HTTP/1.x\r\nHost: x\r\n\r\n", 400),
            ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("GET / HTTP/1.1\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x\r\nName : value\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n folded\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x\r\nA: b\0c\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: x\rA: b\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\nContent-Length: 1\r\n\r\n", 417),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1234567890abcdef0\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", 400),
        ]
        for (text, status) in cases {
            XCTAssertEqual(failure(text)?.status, status, text.debugDescription)
        }
    }

    /// Linux's URLSession sends a body stream with both framings: the chunks frame the body, and the
    /// connection closes after the answer (RFC 9112, 6.3), so nothing after them is read as a request.
    func testBothFramingsReadTheChunksAndCloseTheConnection() throws {
        let text =
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n0\r\n\r\n"
        let request = try XCTUnwrap(requests(steps(Array(text.utf8))).first)
        XCTAssertEqual(request.body, Data("hello".utf8))
        XCTAssertFalse(request.keepsConnectionOpen)
        let plain = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        XCTAssertEqual(try XCTUnwrap(requests(steps(Array(plain.utf8))).first).keepsConnectionOpen, true)
    }

    func testEqualRepeatedContentLengthsAreOneLength() {
        let text = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc"
        XCTAssertEqual(requests(steps(Array(text.utf8))).first?.body, Data("abc".utf8))
    }

    func testHeadsAndBodiesPastTheLimitsFail() {
        let long = String(repeating: "a", count: 2000)
        XCTAssertEqual(failure("GET /\(long) HTTP/1.1\r\nHost: x\r\n\r\n")?.status, 414)
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: x\r\nX: \(long)\r\n\r\n")?.status, 431)
        // A head that never ends fails as soon as it passes the limit, not when its line ends.
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: x\r\nX: \(long)")?.status, 431)
        let manyFields = String(repeating: "A: b\r\n", count: 1001)
        let roomy = parser(maxHeaderBytes: 1 << 20)
        XCTAssertEqual(failure("GET / HTTP/1.1\r\nHost: x\r\n\(manyFields)\r\n", parser: roomy)?.status, 431)
        let post = "POST / HTTP/1.1\r\nHost: x\r\n"
        XCTAssertEqual(failure(post + "Content-Length: 1025\r\n\r\n")?.status, 413)
        XCTAssertEqual(failure(post + "Content-Length: 99999999999999999999\r\n\r\n")?.status, 413)
        let chunks = String(repeating: "100\r\n\(String(repeating: "z", count: 256))\r\n", count: 4) + "1\r\nz\r\n"
        XCTAssertEqual(failure(post + "Transfer-Encoding: chunked\r\n\r\n\(chunks)")?.status, 413)
        let trailers = String(repeating: "T: \(String(repeating: "t", count: 100))\r\n", count: 11)
        XCTAssertEqual(failure(post + "Transfer-Encoding: chunked\r\n\r\n0\r\n\(trailers)\r\n")?.status, 431)
        // Exactly at the limits is fine.
        let body = String(repeating: "b", count: 1024)
        XCTAssertEqual(requests(steps(Array((post + "Content-Length: 1024\r\n\r\n\(body)").utf8))).count, 1)
    }

    func testAfterAFailureNothingMoreIsRead() {
        var parser = parser()
        var input = ByteQueue()
        input.append(contentsOf: "BAD\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        guard case .failure(let failure) = parser.next(from: &input) else { return XCTFail("no failure") }
        XCTAssertEqual(failure.status, 400)
        guard case .needMore = parser.next(from: &input) else { return XCTFail("read past a failure") }
        XCTAssertTrue(input.isEmpty)
    }

    func testPartialRequestsAreSeen() {
        var parser = parser()
        var input = ByteQueue()
        input.append(contentsOf: "\r\n".utf8)
        _ = parser.next(from: &input)
        XCTAssertFalse(parser.hasPartialRequest, "empty lines before a request are no request")
        input.append(contentsOf: "GET / HTTP/1.1\r\n".utf8)
        _ = parser.next(from: &input)
        XCTAssertTrue(parser.hasPartialRequest)
    }
}
