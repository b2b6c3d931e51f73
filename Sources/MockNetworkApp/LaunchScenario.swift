import Foundation
import MockNetwork
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A scenario a launch names: a stub variant of the app's bundle, checked before anything is
/// registered, so that a misspelt name fails at launch rather than on the first request.
///
/// Each stubbed URL is answered as ``MockRegistry/stubs(_:variant:in:unmatched:)`` answers it, from
/// `Fixtures/<scenario>/<file>` or `<scenario>/<file>`. A flow that needs the same URL to answer
/// differently over time numbers its files: `breeds.1.json`, `breeds.2.json`, … answer the first,
/// second, … request, and the last one answers every request after it. GraphQL operations are
/// answered from the scenario's `graphql` folder (`LaunchGraphQLScenario`).
enum LaunchScenario {
    /// Registers `routes` (URL → file name) on `registry`, answered from the files of `scenario`.
    ///
    /// - Throws: ``MockLaunchError/unknownScenario(_:variants:bundle:)`` when the bundle has no such
    ///   variant, ``MockLaunchError/incompleteScenario(_:missing:bundle:)`` when it lacks some files.
    static func register(_ scenario: String, routes: [String: String], in bundle: Bundle, on registry: MockRegistry)
        throws
    {
        let root = bundle.resourceURL ?? bundle.bundleURL
        let bundlePath = bundle.bundleURL.path
        // A name of a folder in the bundle, never a path: what the environment says cannot reach out.
        guard isName(scenario) else {
            throw MockLaunchError.unknownScenario(
                scenario, variants: variants(for: Array(routes.values), root: root), bundle: bundlePath)
        }
        var found: [(url: String, files: [String])] = []
        var missing: [String] = []
        for (url, name) in routes.sorted(by: { $0.key < $1.key }) {
            let files = files(of: name, in: scenario, root: root)
            if files.isEmpty {
                missing.append(AppStubs.candidates(for: name, variant: scenario).joined(separator: " or "))
            } else {
                found.append((url, files))
            }
        }
        if found.isEmpty && !isFolder(scenario, root: root) {
            throw MockLaunchError.unknownScenario(
                scenario, variants: variants(for: Array(routes.values), root: root), bundle: bundlePath)
        }
        if !missing.isEmpty {
            throw MockLaunchError.incompleteScenario(scenario, missing: missing, bundle: bundlePath)
        }
        for (url, files) in found {
            // One file answers every request; a numbered sequence one each, its last one every request after.
            let calls = Locked(0)
            registry.register(.url(url)) { _ in
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                let file = files[min(call, files.count) - 1]
                return try AppStubs.response(file, variant: scenario, root: root, bundlePath: bundlePath)
            }
        }
        // GraphQL operations answered from `graphql/<OperationName>.json` (`LaunchGraphQLScenario.swift`).
        LaunchGraphQLScenario.register(scenario, in: bundle, on: registry)
    }

    /// The files that answer the stub `name` in `variant`, in the order they answer: the numbered
    /// sequence (`breeds.1.json`, `breeds.2.json`, …) when its first file exists, else the one file;
    /// none when neither exists.
    /// Whether `text` is a name (no separator, not `.` or `..`), as scenarios and archives in the
    /// bundle are named.
    static func isName(_ text: String) -> Bool {
        !text.contains("/") && !text.contains("\\") && text != "." && text != ".."
    }

    static func files(of name: String, in variant: String, root: URL) -> [String] {
        let file = AppStubs.fileName(name)
        let ext = (file as NSString).pathExtension
        let base = (file as NSString).deletingPathExtension
        var sequence: [String] = []
        while exists(base + ".\(sequence.count + 1)." + ext, in: variant, root: root) {
            sequence.append(base + ".\(sequence.count + 1)." + ext)
        }
        if !sequence.isEmpty { return sequence }
        return exists(file, in: variant, root: root) ? [file] : []
    }

    private static func exists(_ file: String, in variant: String, root: URL) -> Bool {
        AppStubs.candidates(for: file, variant: variant).contains { path in
            FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
        }
    }

    private static func isFolder(_ variant: String, root: URL) -> Bool {
        ["Fixtures/" + variant, variant].contains { path in
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: root.appendingPathComponent(path).path, isDirectory: &isFolder)
            return exists && isFolder.boolValue
        }
    }

    /// The variants the bundle has for these stubs: the folders (under `Fixtures/` or at the top)
    /// that hold a file for at least one of `names`; every folder under `Fixtures/` when there are none.
    static func variants(for names: [String], root: URL) -> [String] {
        var out: Set<String> = []
        for folder in [root.appendingPathComponent("Fixtures"), root] {
            let children = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for child in children where !child.hasPrefix(".") && child != "Fixtures" {
                var isFolder: ObjCBool = false
                let path = folder.appendingPathComponent(child).path
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue
                else { continue }
                let holdsStubs =
                    names.isEmpty
                    ? folder != root
                    : names.contains { !files(of: $0, in: child, root: root).isEmpty }
                if holdsStubs { out.insert(child) }
            }
        }
        return out.sorted()
    }
}
