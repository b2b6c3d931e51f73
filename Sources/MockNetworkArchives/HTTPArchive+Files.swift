import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reading and writing archives: files, bundles and JSON, and the errors that say what went wrong.
extension HTTPArchive {
    /// Reads the archive in the file at `url`.
    ///
    /// - Throws: ``LoadError`` naming the file, and for a broken archive the JSON path and what
    ///   was expected there.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw LoadError(
                file: url.path, path: "",
                problem: "the file cannot be read (\(error.localizedDescription)). Check the path, or record the "
                    + "archive (MOCKNETWORK_RECORD=once).")
        }
        try self.init(json: data, file: url.path)
    }

    /// Reads the archive `name` from `bundle`, such as `Bundle.module` of a test target with
    /// `resources: [.copy("Archives")]`. Without an extension, `.har` is assumed; the file is
    /// looked for at the bundle's top, then under `Archives/`, `Fixtures/` and `Fixtures/Archives/`.
    ///
    /// - Throws: ``LoadError`` when the bundle has no such file or the archive is broken.
    public init(named name: String, in bundle: Bundle) throws {
        if let url = Self.file(named: name, in: bundle) {
            try self.init(contentsOf: url)
            return
        }
        throw LoadError(
            file: name, path: "",
            problem:
                "no archive \"\(Self.fileName(name))\" in the bundle at \(bundle.bundleURL.path) (looked at its top and under "
                + "Archives/, Fixtures/ and Fixtures/Archives/). Add the file to the test target's resources, "
                + "e.g. resources: [.copy(\"Archives\")].")
    }

    /// The file of the archive `name` in `bundle`, where ``init(named:in:)`` looks for it.
    public static func file(named name: String, in bundle: Bundle) -> URL? {
        let file = fileName(name)
        for folder in ["", "Archives/", "Fixtures/", "Fixtures/Archives/"] {
            if let url = bundle.resourceURL?.appendingPathComponent(folder + file),
                FileManager.default.fileExists(atPath: url.path)
            {
                return url
            }
        }
        return nil
    }

    /// `name`, with `.har` when it has no extension.
    package static func fileName(_ name: String) -> String {
        (name as NSString).pathExtension.isEmpty ? name + ".har" : name
    }

    /// Reads an archive from its JSON; `file` names it in errors.
    ///
    /// - Throws: ``LoadError`` with the JSON path and what was expected there.
    public init(json: Data, file: String = "(data)") throws {
        do {
            let document = try JSONDecoder().decode(Document.self, from: json)
            self = document.log
        } catch let error as DecodingError {
            throw LoadError(file: file, decoding: error)
        }
        for (index, entry) in entries.enumerated() {
            let at = "log.entries[\(index)]"
            guard URLKeys.absoluteString(entry.request.url) != nil else {
                throw LoadError(
                    file: file, path: at + ".request.url",
                    problem: "expected an absolute URL, found \"\(entry.request.url)\"")
            }
            guard entry.response.status == 0 || (100...599).contains(entry.response.status) else {
                throw LoadError(
                    file: file, path: at + ".response.status",
                    problem:
                        "expected an HTTP status in 100...599 (or 0 for no response), found \(entry.response.status)")
            }
        }
    }

    /// The archive as HAR 1.2 JSON: pretty-printed, keys sorted, so that a recording changes
    /// little from one run to the next and diffs well.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(log: self))
    }

    /// Writes the archive to `url` (atomically), making the folders on the way.
    ///
    /// - Throws: ``WriteError``, naming the file and why it could not be written.
    public func write(to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WriteError(
                file: url.path, problem: "its folder \(folder.path) cannot be created (\(error.localizedDescription))")
        }
        do {
            try json().write(to: url, options: .atomic)
        } catch {
            throw WriteError(file: url.path, problem: error.localizedDescription)
        }
    }

    /// An archive that could not be written: which file, and why.
    public struct WriteError: Error, Equatable, CustomStringConvertible, LocalizedError {
        /// The file that was to be written.
        public let file: String
        /// What went wrong.
        public let problem: String

        /// The file and the problem, then how to fix it.
        public var description: String {
            "MockNetwork: cannot write the HAR archive \(file): \(problem). Record into a folder the tests may "
                + "write, e.g. next to the test's source file (the default)."
        }

        /// The ``description``, for `localizedDescription`.
        public var errorDescription: String? { description }
    }

    /// An archive that cannot be read: which file, where in its JSON, and what is wrong there.
    public struct LoadError: Error, Equatable, CustomStringConvertible, LocalizedError {
        /// The file (or bundle name) that was read.
        public let file: String
        /// Where in the JSON, such as `log.entries[2].response.status`; empty for the file as a whole.
        public let path: String
        /// What was expected there, and what was found.
        public let problem: String

        init(file: String, path: String, problem: String) {
            self.file = file
            self.path = path
            self.problem = problem
        }

        init(file: String, decoding error: DecodingError) {
            func path(_ keys: [any CodingKey]) -> String {
                var out = ""
                for key in keys {
                    if let index = key.intValue {
                        out += "[\(index)]"
                    } else {
                        out += (out.isEmpty ? "" : ".") + key.stringValue
                    }
                }
                return out
            }
            switch error {
            case .typeMismatch(let type, let context):
                self.init(
                    file: file, path: path(context.codingPath),
                    problem: "expected \(HTTPArchive.kind(of: type)) (\(context.debugDescription))")
            case .valueNotFound(let type, let context):
                self.init(
                    file: file, path: path(context.codingPath),
                    problem: "expected \(HTTPArchive.kind(of: type)), found null")
            case .keyNotFound(let key, let context):
                self.init(
                    file: file, path: path(context.codingPath + [key]),
                    problem: "expected the field \"\(key.stringValue)\", which is missing")
            case .dataCorrupted(let context):
                let underlying = (context.underlyingError as NSError?).map { " (\($0.localizedDescription))" } ?? ""
                let detail =
                    (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                if context.underlyingError == nil, !context.codingPath.isEmpty {
                    // A value of the wrong kind, say a status of 200.5, where the decoder said what it found.
                    self.init(file: file, path: path(context.codingPath), problem: context.debugDescription)
                } else {
                    // The description adds how to fix it when there is a path; say it here when there is none.
                    let fix =
                        context.codingPath.isEmpty
                        ? ". Fix the file, or record it again (MOCKNETWORK_RECORD=rewrite)." : ""
                    self.init(
                        file: file, path: path(context.codingPath),
                        problem:
                            "expected HAR JSON: \(context.debugDescription)\(detail.map { " \($0)" } ?? underlying)\(fix)"
                    )
                }
            @unknown default:
                self.init(file: file, path: "", problem: "\(error)")
            }
        }

        /// The file, the JSON path and the problem, then how to fix it.
        public var description: String {
            if path.isEmpty { return "MockNetwork: cannot load the HAR archive \(file): \(problem)" }
            return "MockNetwork: the HAR archive \(file) is broken at \(path): \(problem). "
                + "Fix the file, or record it again (MOCKNETWORK_RECORD=rewrite)."
        }

        /// The ``description``, for `localizedDescription`.
        public var errorDescription: String? { description }
    }

    static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }

    static func dateText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func reasonPhrase(_ status: Int) -> String {
        status == 0 ? "" : ReasonPhrases.phrase(for: status)
    }
}
