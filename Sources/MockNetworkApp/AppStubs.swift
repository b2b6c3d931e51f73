import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// A registry that answers each URL of `routes` with a file from the `variant` folder of
    /// `bundle`, for an app's development build: run the app against canned data (an empty list, a
    /// long one, an error) without a server.
    ///
    /// The file for `"breeds"` and variant `"empty"` is `Fixtures/empty/breeds.json` or
    /// `empty/breeds.json` in the bundle's resources; a name without an extension gets `.json`.
    /// `Content-Type` follows the extension. Files are read on every request, so an edited file
    /// is served at once. A file that is missing fails its request with
    /// ``MockLaunchError/missingStub(name:variant:bundle:)``, which names the bundle, the variant
    /// and the paths looked for; the other URLs keep working.
    ///
    /// ```swift
    /// #if DEBUG
    /// let stubs = MockRegistry.stubs(
    ///     ["https://api.example.com/breeds": "breeds", "https://api.example.com/user": "user"],
    ///     variant: ProcessInfo.processInfo.environment["STUBS"] ?? "standard",
    ///     in: .main, unmatched: .passToNetwork)
    /// let client = BreedsClient(session: stubs.session)  // keep `stubs` alive as long as its session
    /// #endif
    /// ```
    ///
    /// - Parameters:
    ///   - routes: full URLs (query included; matched exactly) and the names of the files that answer them.
    ///   - variant: the folder of the bundle the files are read from, e.g. `"empty"` or `"standard"`.
    ///   - bundle: the bundle with the files, e.g. `.main` for an app or `.module` for a package target.
    ///   - unmatched: what happens to requests for other URLs: `.fail` (the default), or
    ///     `.passToNetwork` to stub only some endpoints and let the rest reach the real server.
    /// - Returns: the registry; use its `session`, or its `configuration` for a session of your own.
    public static func stubs(
        _ routes: [String: String], variant: String, in bundle: Bundle, unmatched: Unmatched = .fail
    ) -> MockRegistry {
        let registry = MockRegistry(unmatched: unmatched)
        let root = bundle.resourceURL ?? bundle.bundleURL
        let bundlePath = bundle.bundleURL.path
        for (url, name) in routes.sorted(by: { $0.key < $1.key }) {
            registry.register(.url(url)) { _ in
                try AppStubs.response(name, variant: variant, root: root, bundlePath: bundlePath)
            }
        }
        return registry
    }
}

/// Reading the files of ``MockRegistry/stubs(_:variant:in:unmatched:)``.
enum AppStubs {
    /// The file a stub `name` is read from: `name` itself, or `name.json` when it has no extension.
    static func fileName(_ name: String) -> String {
        URL(fileURLWithPath: name).pathExtension.isEmpty ? name + ".json" : name
    }

    /// The paths, relative to the bundle's resources, where the file `name` of `variant` may be.
    static func candidates(for name: String, variant: String) -> [String] {
        let file = fileName(name)
        let inVariant = variant.isEmpty ? file : variant + "/" + file
        return ["Fixtures/" + inVariant, inVariant]
    }

    static func response(_ name: String, variant: String, root: URL, bundlePath: String) throws -> MockResponse {
        for path in candidates(for: name, variant: variant) {
            let file = root.appendingPathComponent(path)
            if let data = try? Data(contentsOf: file) {
                return .data(data, headers: ["Content-Type": Fixtures.contentType(of: file.pathExtension)])
            }
        }
        throw MockLaunchError.missingStub(name: name, variant: variant, bundle: bundlePath)
    }
}
