import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkApp
#endif

/// What the UI tests article's live snippets use of `XCUIApplication`, for a small feed app run in
/// this process (there is no XCUIApplication on Linux): launched, it makes its session with
/// `MockRegistry.launched(environment:)` from `launchEnvironment`, as an app does at launch, shows
/// a spinner while it loads `https://api.example.com/feed`, then a text for each item; "Refresh" loads
/// the feed again, "Like" posts the first item to `https://api.example.com/likes` and does not wait.
@MainActor
final class FeedApp {
    /// As `XCUIApplication.launchEnvironment`.
    var launchEnvironment: [String: String] = [:]
    private let screen = FeedScreen()
    private var session: URLSession?

    /// An element of the screen, as `XCUIElement`: there when `isShown` says so.
    struct Element {
        let screen: FeedScreen
        let isShown: @Sendable (FeedScreen.State) -> Bool
        /// For a button: the app, and the button's label.
        var button: (app: FeedApp, label: String)?

        var exists: Bool { screen.holds(isShown) }

        /// Waits, up to `timeout` seconds, until the element is on the screen (the app shows it
        /// from another thread, which wakes this wait).
        func waitForExistence(timeout: TimeInterval) -> Bool {
            screen.wait(until: isShown, timeout: timeout)
        }

        /// As `XCUIElement.tap()` on a button.
        @MainActor
        func tap() { button.map { $0.app.press($0.label) } }
    }

    /// Elements by label, as `XCUIElementQuery`.
    struct Query {
        let make: (String) -> Element
        subscript(label: String) -> Element { make(label) }
    }

    var activityIndicators: Query {
        Query { [screen] label in Element(screen: screen) { label == "loading" && $0.loading } }
    }

    var staticTexts: Query {
        Query { [screen] label in Element(screen: screen) { $0.texts.contains(label) } }
    }

    var buttons: Query {
        Query { [self] label in
            Element(screen: screen, isShown: { _ in true }, button: (self, label))
        }
    }

    /// Starts the app: its session from the launch environment, then the feed.
    func launch(file: StaticString = #filePath, line: UInt = #line) {
        do {
            session = try MockRegistry.launched(environment: launchEnvironment)?.session
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        load()
    }

    /// What a button does: "Like" likes the first item, "Refresh" loads the feed again.
    func press(_ label: String) {
        if label == "Like" { like() } else { load() }
    }

    /// Shows the spinner, loads the feed, then shows its items.
    private func load() {
        guard let session else { return }
        let screen = screen
        screen.update { $0.loading = true }
        session.dataTask(with: URL(string: "https://api.example.com/feed")!) { data, _, _ in
            let items = data.flatMap { try? JSONDecoder().decode([String].self, from: $0) } ?? []
            screen.update { state in
                state.loading = false
                state.texts = items
            }
        }.resume()
    }

    /// Posts the first item to the likes endpoint, and does not wait for the answer.
    private func like() {
        guard let session, let first = screen.holds({ $0.texts.first }) else { return }
        var request = URLRequest(url: URL(string: "https://api.example.com/likes")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"item":"\#(first)"}"#.utf8)
        session.dataTask(with: request).resume()
    }
}

/// The feed app's screen: what it shows, changed from the session's threads, waited for by the test.
final class FeedScreen: @unchecked Sendable {  // every access to `state` holds `condition`
    struct State {
        var loading = false
        var texts: [String] = []
    }

    private let condition = NSCondition()
    private var state = State()

    func update(_ change: (inout State) -> Void) {
        condition.withLock {
            change(&state)
            condition.broadcast()
        }
    }

    func holds<T>(_ read: (State) -> T) -> T {
        condition.withLock { read(state) }
    }

    func wait(until isShown: (State) -> Bool, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while !isShown(state) {
                if !condition.wait(until: deadline) { return isShown(state) }
            }
            return true
        }
    }
}
