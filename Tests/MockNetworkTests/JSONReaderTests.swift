import Foundation
import Testing

@testable import MockNetwork

/// The fast JSON reader gives what `JSONDecoder` gives, or leaves the text to it.
@Suite struct JSONReaderTests {
    /// What `JSONDecoder` reads from `text`, or `nil` where it throws.
    private func decoded(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }

    @Test(arguments: [
        #"{"operationName":"Op999","query":"query Op999 { a }","variables":{"id":7}}"#,
        #" { "a" : [ 1 , -2.5e3 , 0.25 , 1E+2 , -0 , 0 ] , "b" : { } , "c" : [ ] } "#,
        #"[true,false,null,"",{"k":[[[]]]}]"#,
        #""\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00 plain""#,
        #"{"naïve":"日本語 ✓","emoji":"😀"}"#,
        "7", "-0.0", "1e-7", "123456789012345678901234567890", "\"\"", "null",
    ])
    func readsWhatJSONDecoderReads(_ text: String) throws {
        let data = Data(text.utf8)
        let read = try #require(JSONReader.value(in: data), "the reader left \(text) to JSONDecoder")
        #expect(read == decoded(data))
        #expect(try JSONValue(json: data) == read)
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "[1 2]",
        "{\"a\" 1}", "{a:1}", "'x'", "\"unterminated", "\"tab\there\"", "\"\\x\"", "\"\\u12\"",
        "\"\\ud800\"", "\"\\udc00\"", "1e400", "[1]x", "{\"a\":1,\"a\":2}",
    ])
    func leavesAnythingElseToJSONDecoder(_ text: String) throws {
        let data = Data(text.utf8)
        #expect(JSONReader.value(in: data) == nil)
        // And what JSONValue(json:) then does is JSONDecoder's: the same value, or an error.
        if let expected = decoded(data) {
            #expect(try JSONValue(json: data) == expected)
        } else {
            #expect(throws: MockNetworkError.self) { try JSONValue(json: data) }
        }
    }

    @Test func leavesInvalidUTF8AByteOrderMarkAndDeepNestingToJSONDecoder() {
        #expect(JSONReader.value(in: Data([0x22, 0xC3, 0x28, 0x22])) == nil)
        #expect(JSONReader.value(in: Data([0xEF, 0xBB, 0xBF]) + Data("7".utf8)) == nil)
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(JSONReader.value(in: Data(deep.utf8)) == nil)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(JSONReader.value(in: Data(fine.utf8)) != nil)
    }
}
