import Foundation
import XCTest

@testable import MockNetworkServer

/// The pieces WebSockets are made of, alone: SHA-1 against FIPS 180's vectors, UTF-8 validation at
/// its edges, and frames read and written as RFC 6455's examples give them.
final class WebSocketFramingTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testSHA1MatchesTheStandardsVectors() {
        XCTAssertEqual(hex(SHA1.digest(Array("".utf8))), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(hex(SHA1.digest(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(
            hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(
            hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        // 55, 56 and 64 bytes: the padding's edges.
        XCTAssertEqual(
            hex(SHA1.digest([UInt8](repeating: 0x61, count: 55))), "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        XCTAssertEqual(
            hex(SHA1.digest([UInt8](repeating: 0x61, count: 56))), "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        XCTAssertEqual(
            hex(SHA1.digest([UInt8](repeating: 0x61, count: 64))), "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    func testTheAcceptValueIsRFC6455sExample() {
        XCTAssertEqual(WebSocketHandshake.accept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testUTF8ValidationTakesWellFormedTextAndRefusesTheRest() {
        XCTAssertTrue(UTF8Check.isValid(Array("Hello, wörld € 𝄞".utf8)))
        XCTAssertTrue(UTF8Check.isValid([0xF4, 0x8F, 0xBF, 0xBF]), "U+10FFFF")
        XCTAssertTrue(UTF8Check.isValid([0xED, 0x9F, 0xBF]), "U+D7FF, below the surrogates")
        for bad: [UInt8] in [
            [0x80], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xC3], [0xE2, 0x82], [0xFF],
        ] {
            XCTAssertFalse(UTF8Check.isValid(bad), "\(bad)")
        }
    }

    func testAMaskedFrameIsReadAsRFC6455sExampleGivesIt() {
        // RFC 6455, 5.7: a masked "Hello".
        var bytes = ByteQueue()
        bytes.append(contentsOf: [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        XCTAssertEqual(
            WebSocketFrames.read(&bytes, maxPayload: 100),
            .frame(.init(fin: true, opcode: .text, payload: Array("Hello".utf8))))
        XCTAssertTrue(bytes.isEmpty)
        bytes.append(contentsOf: [0x81, 0x85, 0x37])
        XCTAssertEqual(WebSocketFrames.read(&bytes, maxPayload: 100), .needMore)
        XCTAssertEqual(bytes.count, 3, "a frame cut short is left for later")
    }

    func testServerFramesAreUnmaskedWithTheShortestLength() {
        XCTAssertEqual(WebSocketFrames.frame(.text, Array("Hello".utf8)), [0x81, 0x05] + Array("Hello".utf8))
        XCTAssertEqual(
            Array(WebSocketFrames.frame(.binary, [UInt8](repeating: 0, count: 256)).prefix(4)),
            [0x82, 0x7E, 0x01, 0x00])
        XCTAssertEqual(
            Array(WebSocketFrames.frame(.binary, [UInt8](repeating: 0, count: 65536)).prefix(10)),
            [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        XCTAssertEqual(WebSocketFrames.frame(.ping, [], fin: true), [0x89, 0x00])
    }

    func testACloseReasonIsCutAtACharactersEndToFit() {
        let payload = WebSocketFrames.closePayload(.normal, reason: String(repeating: "é", count: 100))
        XCTAssertLessThanOrEqual(payload.count, 125)
        XCTAssertEqual(Array(payload.prefix(2)), [0x03, 0xE8])
        XCTAssertTrue(UTF8Check.isValid(payload.dropFirst(2)))
    }

    /// Unmasking eight bytes at a time gives what the RFC's byte at a time gives, from any offset of
    /// a frame still arriving and for any length.
    func testUnmaskingMatchesTheByteAtATimeRuleFromAnyOffset() throws {
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        let payload = (0..<41).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let masked = payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        var bytes = ByteQueue()
        bytes.append(contentsOf: [0x82, 0x80 | UInt8(payload.count)] + key + masked)
        guard case .head(let head) = WebSocketFrames.readHead(bytes, maxPayload: 1 << 20) else {
            return XCTFail("no head")
        }
        for offset in 0...12 {
            for end in offset...payload.count {
                XCTAssertEqual(
                    WebSocketFrames.unmasked(bytes, head, from: offset, to: end), Array(payload[offset..<end]),
                    "\(offset)..<\(end)")
            }
        }
    }
}
