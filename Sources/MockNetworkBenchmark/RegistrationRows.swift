// Rows 5 to 5m, 7, 8 and 9: registering many handlers, removing one among many, and an
// unmatched request among many.

import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Row 5's 10,000 handlers (row 3's registry, the target registered last), and how long
/// registering them took.
struct TenThousand {
    let registry: MockRegistry
    let addresses: [String]
    let seconds: Double
}

/// Row 5, measured before the request rows (and printed after them): registering 10,000 handlers.
func registerTenThousand() async -> TenThousand {
    let many = MockRegistry()
    let addresses = (0..<10_000).map { "https://api.example.com/items/\($0)?page=\($0 % 7)" }
    let registering = await seconds {
        for address in addresses {
            many.register(.url(address)) { _ in .text("no") }
        }
        many.register(.url(target)) { _ in .text("ok") }
    }
    return TenThousand(registry: many, addresses: addresses, seconds: registering)
}

/// Row 5's figure.
@MainActor func registeringRow(_ many: TenThousand) {
    report("5 registering 10,000 handlers", many.seconds * 1e3, .milliseconds)
}

/// The three forms most registrations take, 10,000 handlers each: rows 5e, 5u and 5m.
enum RegistrationForm: String, CaseIterable {
    /// `register("https://api.example.com/items/7") { … }`: a URL in its absolute form, read as it is.
    case exact = "5e"
    /// A URL with a port and percent-encoding, which `URL(string:)` parses.
    case parsed = "5u"
    /// `register(.url("https://api.example.com/items/7").method("GET")) { … }`.
    case method = "5m"

    var name: String {
        switch self {
        case .exact: "5e registering 10,000 exact URLs"
        case .parsed: "5u registering 10,000 URLs that need parsing"
        case .method: "5m registering 10,000 .url(…).method(\"GET\")"
        }
    }

    /// The figure the issue asks for, in milliseconds.
    var target: Double { self == .exact ? 15 : 20 }

    /// The URLs registered.
    func addresses(_ count: Int) -> [String] {
        switch self {
        case .exact, .method: (0..<count).map { "https://api.example.com/items/\($0)" }
        case .parsed: (0..<count).map { "https://api.example.com:8443/search/\($0)?q=caf%C3%A9" }
        }
    }

    /// Registers a handler for each address in `registry` (a new one, made before the clock starts:
    /// making a registry, its session above all, is no registration), which it returns (so that
    /// freeing it is not timed either).
    func register(_ addresses: [String], in registry: MockRegistry = MockRegistry()) -> MockRegistry {
        switch self {
        case .exact, .parsed:
            for address in addresses { registry.register(.url(address)) { _ in .text("no") } }
        case .method:
            for address in addresses { registry.register(.url(address).method("GET")) { _ in .text("no") } }
        }
        return registry
    }
}

/// Rows 5e, 5u and 5m: 10,000 handlers of each form in a new registry, in `rounds` interleaved
/// rounds (after one not counted); each figure is the median of its rounds, in milliseconds.
func registrationFormRows(rounds: Int = 9) async {
    let forms = RegistrationForm.allCases
    let addresses = forms.map { $0.addresses(10_000) }
    var times: [[Double]] = Array(repeating: [], count: forms.count)
    for round in 0...rounds {
        for offset in 0..<forms.count {
            let row = (round + offset) % forms.count
            let registry = MockRegistry()
            let time = await seconds { _ = forms[row].register(addresses[row], in: registry) }
            withExtendedLifetime(registry) {}
            if round > 0 { times[row].append(time * 1e3) }
        }
    }
    for (form, values) in zip(forms, times) { await report(form.name, median(values), .milliseconds) }
}

/// Rows 7 to 9: registering patterns, removing one URL among many (from row 5's registry), and an
/// unmatched request among the 9,000 left.
func patternsAndRemovalRows(_ many: TenThousand) async throws {
    let patterns = MockRegistry()
    let registeringPatterns = await seconds {
        for index in 0..<2_000 {
            patterns.register(.host("host\(index).example.com", path: "/v1/*")) { _ in .text("p") }
        }
    }
    await report("7 registering 2,000 host/path patterns", registeringPatterns * 1e3, .milliseconds)
    let removals = 1_000
    let removing = await seconds {
        for index in 0..<removals { many.registry.remove(many.addresses[index]) }
    }
    await report("8 remove(url) with 10,000 registered, per call", removing / Double(removals) * 1e6, .microseconds)
    guard let nowhere = URL(string: "https://api.example.com/nowhere") else {
        throw BenchmarkError(description: "no unmatched URL")
    }
    var unmatchedTimes: [Double] = []
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try? await many.registry.session.data(from: nowhere)
        unmatchedTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    _ = many.registry.takeFailures()
    await report("9 an unmatched request with 9,000 handlers", median(unmatchedTimes) * 1e3, .milliseconds)
}
