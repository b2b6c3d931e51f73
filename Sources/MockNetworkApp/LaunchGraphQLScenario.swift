import Foundation
import MockNetwork
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A scenario's GraphQL operations: a scenario folder with a `graphql` folder answers each GraphQL
/// request, at any URL, from the file named after its operation, `graphql/GetUser.json`.
///
/// The file holds the whole GraphQL response (`{"data": …}`, `{"errors": […]}` or both), sent with
/// status 200 in the media type the request's `Accept` asks for (as `MockResponse.graphQL` chooses
/// it). Numbered files (`GetUser.1.json`, `GetUser.2.json`, …) answer one request of that operation
/// each, in order, the last one every request after it, as a URL's numbered files do. The files are
/// found at launch and read on every request. An operation with no file fails as an unmatched
/// request whose report names the operation and the files there are; it ranks below every other
/// answer (the scenario's URL stubs, an archive's entries), so those still answer what they match.
enum LaunchGraphQLScenario {
    /// The folder of a scenario that holds its operations' files.
    static let folderName = "graphql"

    /// Registers the operations of `scenario`'s `graphql` folder on `registry`; nothing when it has none.
    static func register(_ scenario: String, in bundle: Bundle, on registry: MockRegistry) {
        let root = bundle.resourceURL ?? bundle.bundleURL
        guard let folder = folder(of: scenario, root: root) else { return }
        let operations = files(in: root.appendingPathComponent(folder))
        for (name, files) in operations.sorted(by: { $0.key < $1.key }) {
            let calls = Locked(0)
            registry.register(.graphQL(name)) { [weak registry] request in
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                let file = folder + "/" + files[min(call, files.count) - 1]
                return try answer(from: file, root: root, for: request, registry: registry)
            }
        }
        registry.registerDefaults { registry in
            registry.register(.graphQL()) { [weak registry] request in
                let message = missing(request, scenario: scenario, folder: folder, root: root)
                registry?.record(MockFailure(message: message, location: nil))
                let summary = String(message.prefix { $0 != "\n" }.dropLast())
                throw URLError(
                    .resourceUnavailable,
                    userInfo: [
                        NSLocalizedDescriptionKey: summary + " (the scenario has no file for it; see the report).",
                        NSURLErrorFailingURLErrorKey: request.url as Any,
                    ])
            }
        }
    }

    /// `Fixtures/<scenario>/graphql` or `<scenario>/graphql`, whichever the bundle has, relative to its resources.
    private static func folder(of scenario: String, root: URL) -> String? {
        ["Fixtures/\(scenario)/\(folderName)", "\(scenario)/\(folderName)"].first { path in
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: root.appendingPathComponent(path).path, isDirectory: &isFolder)
            return exists && isFolder.boolValue
        }
    }

    /// The operations that have files in `folder`, and their files in the order they answer: the
    /// numbered sequence from `.1.json` on, when there is one, else `Name.json`.
    static func files(in folder: URL) -> [String: [String]] {
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        var out: [String: [String]] = [:]
        for name in names where name.hasSuffix(".json") {
            let operation = String(name.prefix { $0 != "." })
            guard !operation.isEmpty, out[operation] == nil else { continue }
            var sequence: [String] = []
            while names.contains("\(operation).\(sequence.count + 1).json") {
                sequence.append("\(operation).\(sequence.count + 1).json")
            }
            if !sequence.isEmpty {
                out[operation] = sequence
            } else if names.contains("\(operation).json") {
                out[operation] = ["\(operation).json"]
            }
        }
        return out
    }

    /// The answer the file at `path` (relative to `root`) holds for `request`.
    private static func answer(from path: String, root: URL, for request: URLRequest, registry: MockRegistry?)
        throws -> MockResponse
    {
        let data: Data
        do {
            data = try Data(contentsOf: root.appendingPathComponent(path))
        } catch {
            throw recorded(
                "MockNetwork: the scenario's file \(path) could not be read (\(error.localizedDescription)). Keep it "
                    + "in the app's resources, or remove the folder's other files for that operation.",
                registry)
        }
        guard let response = try? JSONValue(json: data), response["data"] != nil || response["errors"] != nil else {
            throw recorded(
                "MockNetwork: the scenario's file \(path) is no GraphQL response (\(MockRegistry.shortened(String(decoding: data, as: UTF8.self)))). "
                    + #"Write the whole response: {"data": {…}}, {"errors": [{"message": "…"}]}, or both."#,
                registry)
        }
        let type = MockResponse.graphQLMediaType(accepting: request.value(forHTTPHeaderField: "Accept"))
        return try MockResponse(headers: ["Content-Type": type + "; charset=utf-8"], body: data)
    }

    /// `message` noted as a failure of `registry`'s, as the error to throw: the launch report lists it.
    private static func recorded(_ message: String, _ registry: MockRegistry?) -> GraphQLFormatError {
        registry?.record(MockFailure(message: message, location: nil))
        return .invalidAnswer(String(message.dropFirst("MockNetwork: ".count)))
    }

    /// The report for a GraphQL request the folder has no file for: the request and its operation,
    /// the files looked for and those there are, and the fix.
    static func missing(_ request: URLRequest, scenario: String, folder: String, root: URL) -> String {
        let method = RecordedRequest.method(of: request)
        let url = MockRegistry.shortened(request.url?.absoluteString ?? "")
        guard let operation = GraphQLOperation(request) else {
            return "MockNetwork: no handler for \(method) \(url) (a GraphQL request that carries no one operation)."
        }
        let there = files(in: root.appendingPathComponent(folder)).values.joined().sorted()
        let have = there.isEmpty ? "it holds no operation's file" : "it holds \(there.joined(separator: ", "))"
        var lines = ["MockNetwork: no handler for \(method) \(url) (\(MockRegistry.shortened(operation.description)))."]
        guard let name = operation.name else {
            lines.append(
                "The scenario \"\(scenario)\" answers GraphQL operations from files named after them in \(folder)/ "
                    + "(\(have)), and this \(operation.type?.rawValue ?? "operation") has no name.")
            lines.append("Fix: name the operation in the app's document (query GetUser { … }), then add its file.")
            return lines.joined(separator: "\n")
        }
        lines.append(
            "The scenario \"\(scenario)\" has no file for the operation \(name): looked for \(folder)/\(name).json "
                + "and \(folder)/\(name).1.json; \(have).")
        lines.append(
            "Fix: add \(folder)/\(name).json to the app's resources, holding the whole GraphQL response "
                + #"({"data": …} or {"errors": […]}); or numbered files \#(name).1.json, \#(name).2.json, … for a flow."#
        )
        return lines.joined(separator: "\n")
    }
}
