import Foundation
import Testing

@testable import MockNetwork

/// MockNetwork encodes the characters a URL may not hold before Foundation reads the text, as
/// `URL(string:)` does from iOS 17 and macOS 14 (and on Linux), so that iOS 16 and macOS 13, where
/// it returns `nil` for such text, read a handler's URL, a `Location` and an archive's URL alike.
@Suite struct URLTextTests {
    /// What the encoding makes of odd URLs, written out: what iOS 17 and Linux's Foundation make.
    static let cases: [(text: String, encoded: String)] = [
        ("https://api.example.com/a b", "https://api.example.com/a%20b"),
        ("https://api.example.com/café", "https://api.example.com/caf%C3%A9"),
        ("https://api.example.com/100%", "https://api.example.com/100%25"),
        // A component with one invalid character is encoded whole, its escapes too, as Foundation does.
        ("https://api.example.com/a%20b c", "https://api.example.com/a%2520b%20c"),
        ("https://api.example.com/search?q=a%3Ab[0]", "https://api.example.com/search?q=a%253Ab%5B0%5D"),
        ("https://api.example.com/x?q={\"a\":1}", "https://api.example.com/x?q=%7B%22a%22:1%7D"),
        ("https://api.example.com/x#frag ment", "https://api.example.com/x#frag%20ment"),
        ("https://[::1]:8080/a b", "https://[::1]:8080/a%20b"),
        ("/relative path?q=a b", "/relative%20path?q=a%20b"),
        ("https://api.example.com/ok?x=1&y=2", "https://api.example.com/ok?x=1&y=2"),
        ("https://api.example.com/%41", "https://api.example.com/%41"),
    ]

    @Test(arguments: cases.indices)
    func anOddURLIsEncodedAsFoundationFromIOS17ReadsIt(_ index: Int) throws {
        let (text, encoded) = Self.cases[index]
        #expect(URLText.encodingInvalidCharacters(text) == encoded)
        // What Foundation here (RFC 3986, as from iOS 17) makes of the text unencoded: the same URL.
        #expect(URL(string: text)?.absoluteString == URL(string: encoded)?.absoluteString)
    }

    @Test(arguments: cases.indices)
    func theEncodedTextIsAURLWithNothingLeftToEncode(_ index: Int) throws {
        let encoded = URLText.encodingInvalidCharacters(Self.cases[index].text)
        if #available(macOS 14, iOS 17, tvOS 17, *) {
            #expect(URL(string: encoded, encodingInvalidCharacters: false) != nil, "\(encoded)")
        }
        #expect(URLText.encodingInvalidCharacters(encoded) == encoded, "encoding twice changes nothing")
    }

    @Test func aHostBeyondASCIIIsLeftToFoundation() {
        #expect(URLText.encodingInvalidCharacters("https://bücher.example/a b") == "https://bücher.example/a%20b")
    }

    @Test func registeringAURLWithASpaceMatchesTheRequestTheClientMakes() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/files/my report.pdf") { _ in .text("pdf") }
        let url = try #require(URL(string: "https://api.example.com/files/my%20report.pdf"))
        let (data, _) = try await mocks.session.data(from: url)
        #expect(String(decoding: data, as: UTF8.self) == "pdf")
        #expect(mocks.failures == [])
    }
}

/// Registering skips parsing a URL already in its absolute form (`URLKeys.absoluteString`): for a
/// port and percent escapes too, where it must give what parsing gives, byte for byte.
@Suite struct PlainURLFastPathTests {
    @Test func theFastPathGivesWhatParsingGives() throws {
        let texts = [
            "https://api.example.com/items/7", "https://api.example.com:8443/search/7?q=caf%C3%A9",
            "https://api.example.com:8443", "http://127.0.0.1:8080/a?b=c#d", "https://API.Example.com:443/X",
            "https://api.example.com/a%2Fb?q=%e2%82%ac", "https://api.example.com/100%25", "https://h:/x",
            "https://api.example.com:123456/x", "https://api.example.com/%zz", "https://api.example.com/a%2",
            "https://api.example.com/a b", "https://api.example.com/caf\u{E9}", "https://user@api.example.com/x",
            "https://api.example.com:80a/x", "https://api.example.com/#a#b",
        ]
        for text in texts {
            #expect(URLKeys.absoluteString(text) == URLText.url(text)?.absoluteString, "\(text)")
        }
        // The forms the fast path takes are their own absolute string, unparsed.
        #expect(
            URLKeys.absoluteString("https://api.example.com:8443/search/7?q=caf%C3%A9")
                == "https://api.example.com:8443/search/7?q=caf%C3%A9")
    }
}
