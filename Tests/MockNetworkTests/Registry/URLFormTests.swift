import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Registering skips parsing URLs already in their absolute form; these check that a registered
/// string, in that form or not, files the handler under what `URL(string:)` makes of it.
final class URLFormTests: XCTestCase {
    private let forms = [
        "https://api.example.com/items/1?page=2",
        "https://api.example.com",
        "https://api.example.com/",
        "HTTPS://API.Example.com/Items",
        "https://api.example.com/a/../b/./c",
        "https://api.example.com/search?q=a+b&tags=x,y;z&empty=&flag",
        "https://api.example.com/p#frag",
        "https://api.example.com/p#frag#again",
        "https://api.example.com/p?x=1#f?g",
        "https://api.example.com/~user/_x/(1)/*/!$'@:",
        "https://api.example.com/caf%C3%A9",
        "https://api.example.com/with space",
        "https://api.example.com/ünïcode",
        "https://api.example.com/%zz",
        "https://user:pass@api.example.com/p",
        "https://api.example.com:8443/p",
        "https://api.example.com?x=1",
        "https://under_score.example.com/p",
        "https://[::1]:8080/p",
        "http://127.0.0.1:9/p",
        "custom-scheme+v1.2://host/p",
    ]

    func testEveryFormIsFiledUnderItsAbsoluteString() async throws {
        for form in forms {
            let parsed = try url(form)
            let mocks = MockRegistry()
            mocks.register(.url(form)) { _ in .text("found") }
            XCTAssertEqual(mocks.registered, [parsed.absoluteString], form)
            mocks.register(.url(parsed)) { _ in .text("again") }
            XCTAssertEqual(mocks.registered.count, 1, "the same URL, as a String and as a URL, replaces: \(form)")
            XCTAssertEqual(mocks.callCount(for: form), 0, form)
            mocks.remove(form)
            XCTAssertEqual(mocks.registered, [], "remove finds what register filed: \(form)")
        }
    }

    func testPlainFormsAnswerRequestsBuiltFromTheSameString() async throws {
        let mocks = MockRegistry()
        let plain = forms.filter { $0.hasPrefix("http") && !$0.contains("#") && !$0.contains(" ") }
        for (index, form) in plain.enumerated() {
            mocks.register(.url(form)) { _ in .text("\(index)") }
        }
        for (index, form) in plain.enumerated() {
            let (data, _) = try await mocks.session.data(from: try url(form))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "\(index)", form)
        }
        XCTAssertEqual(mocks.failures.map(\.message), [])
    }

    func testNotAnAbsoluteURLIsStillRefused() {
        let mocks = MockRegistry()
        for text in ["api.example.com/items", "/items", "", "items?page=1"] {
            mocks.register(.url(text)) { _ in .status(200) }
        }
        XCTAssertEqual(mocks.registered, [])
        XCTAssertEqual(mocks.failures.count, 4)
        XCTAssertTrue(mocks.failures.allSatisfy { $0.message.contains("is not an absolute URL") })
    }
}
