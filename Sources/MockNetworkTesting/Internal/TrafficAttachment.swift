// With the package's `Archives` trait (on by default).
#if Archives
    import Foundation
    import MockNetwork
    import MockNetworkArchives

    #if canImport(Testing)
        import Testing
    #endif
    #if canImport(XCTest)
        import XCTest
    #endif

    /// Attaches a failing test's traffic (`MockRegistry.trafficReport()`) to the test's report.
    package enum TrafficAttachment {
        /// Where reports go instead of the test framework, for MockNetwork's own tests of what is
        /// attached (a framework's attachments cannot be read back from inside the test).
        @TaskLocal package static var sink: (@Sendable (_ name: String, _ json: Data) -> Void)?

        /// The variable naming the folder the files go to on Linux; a temporary folder otherwise.
        package static let directoryVariable = "MOCKNETWORK_TRAFFIC_DIR"

        /// The folder ``directoryVariable`` names; a blank value counts as unset (as for the launch
        /// variables), not as the current folder.
        package static var directory: String? {
            guard let value = ProcessInfo.processInfo.environment[directoryVariable] else { return nil }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }

        /// Where the traffic files of failed XCTest tests go on Linux.
        package static var linuxFolder: URL {
            directory.map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("MockNetwork-traffic")
        }

        #if canImport(XCTest) && canImport(FoundationNetworking)
            /// Removes the traffic file an earlier, failed run of `testCase` left, now that it passed: what a
            /// failing test's report names stays, and nothing gathers once it is fixed.
            package static func removeEarlierFile(of testCase: XCTestCase) {
                try? FileManager.default.removeItem(
                    at: linuxFolder.appendingPathComponent(fileName(for: testCase.name)))
                // MockNetwork's own folder too, once it holds nothing (`rmdir` removes only an empty one).
                if directory == nil { _ = rmdir(linuxFolder.path) }
            }
        #endif

        /// `testName` as a file name: `traffic-` and its letters, digits, `.`, `-` and `_`, the rest as `_`.
        package static func fileName(for testName: String) -> String {
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_")
            let name = String(testName.map { allowed.contains($0) ? $0 : "_" }).trimmingCharacters(in: ["_"])
            return "traffic-\(name.isEmpty ? "test" : name).har"
        }

        /// What the report holds, for the line that names it.
        static func summary(_ report: TrafficReport) -> String {
            let requests = report.count == 1 ? "1 request" : "\(report.count) requests"
            return report.omitted == 0 ? requests : "the latest \(requests) (\(report.omitted) earlier left out)"
        }

        #if canImport(Testing)
            /// The name a Swift Testing test's traffic goes by: its suites and function
            /// (`FeedTests.showsPrices`), and for a case of a parameterized test its arguments too
            /// (`FeedTests.showsPrices.eur`), so that no two tests or cases share a file.
            package static func testName(_ test: Test, _ testCase: Test.Case?) -> String {
                // A function's name without its argument labels: `showsPrices(_:)` is `showsPrices`.
                var parts = test.id.nameComponents.map { String($0.prefix { $0 != "(" }) }
                if parts.isEmpty { parts = [test.name] }
                if let testCase, testCase.isParameterized {
                    parts.append(ArchiveNames.arguments(of: testCase).map(ArchiveNames.fileName(describing:)) ?? "case")
                }
                return parts.joined(separator: ".")
            }

            /// The line the first failure of a Swift Testing test gets on Linux, naming the file its
            /// traffic goes to when it ends; `nil` where no file is written (Apple platforms attach the
            /// traffic to the report, and a registry may be told not to).
            static func failureNote(_ registry: MockRegistry, testName: String) -> String? {
                #if canImport(FoundationNetworking)
                    // A file is written only for a test that made a request: one made later keeps it so.
                    guard registry.attachesTrafficOnFailure, sink == nil, !registry.requests.isEmpty else { return nil }
                    let file = linuxFolder.appendingPathComponent(fileName(for: testName))
                    return "MockNetwork: what the network saw is in \(file.path) when the test ends, a HAR file: "
                        + "open it in a browser's network panel."
                #else
                    return nil
                #endif
            }

            /// Attaches `registry`'s traffic to the running Swift Testing test. On Linux it goes to a
            /// file, which the test's first failure named (`named`); else a warning at `location`, the
            /// test's, names it (and says why, when it could not be written).
            static func attach(
                _ registry: MockRegistry, testName: String, at location: Testing.SourceLocation, named: Bool
            ) {
                guard registry.attachesTrafficOnFailure, let report = registry.trafficReport() else { return }
                let name = fileName(for: testName)
                if let sink {
                    sink(name, report.json)
                    return
                }
                #if compiler(>=6.2)
                    Attachment.record(Array(report.json), named: name)
                #endif
                #if canImport(FoundationNetworking)
                    // Swift Testing saves an attachment only where `--attachments-path` says, yet prints
                    // "Attached" either way: on Linux the traffic goes to a file too, and a warning (which
                    // fails nothing) says where.
                    let (note, written) = writeFile(report, named: name)
                    if written && named { return }
                    #if compiler(>=6.3)
                        Issue.record(Comment(rawValue: note), severity: .warning, sourceLocation: location)
                    #else
                        print(note)
                    #endif
                #endif
            }
        #endif

        #if canImport(FoundationNetworking)
            /// Writes `report` to the file `name` in ``linuxFolder``; returns the note that names the file,
            /// or says why it could not be written.
            static func writeFile(_ report: TrafficReport, named name: String) -> (note: String, written: Bool) {
                let folder = linuxFolder
                let file = folder.appendingPathComponent(name)
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try report.json.write(to: file)
                } catch {
                    return (
                        "MockNetwork: the test failed, and its traffic could not be written to \(file.path): "
                            + "\(error.localizedDescription). Set \(directoryVariable) to a folder that can be written.",
                        false
                    )
                }
                return (
                    "MockNetwork: the test failed; what the network saw (\(summary(report))) is in \(file.path), "
                        + "a HAR file: open it in a browser's network panel. (Off with "
                        + "\(TrafficReport.environmentVariable)=0 or mocks.attachesTrafficOnFailure = false.)",
                    true
                )
            }
        #endif

        #if canImport(XCTest)
            /// Attaches `registry`'s traffic to `testCase`: an `XCTAttachment` on Apple platforms; on
            /// Linux, whose XCTest has none, a file. Returns the note that names the file (or says why it
            /// could not be written), for the caller to add to the test's first MockNetwork failure or to
            /// the log: never a failure of its own, which would count the failed test once more.
            @discardableResult
            package static func attach(_ registry: MockRegistry, to testCase: XCTestCase) -> String? {
                guard registry.attachesTrafficOnFailure, let report = registry.trafficReport() else { return nil }
                let name = fileName(for: testCase.name)
                if let sink {
                    sink(name, report.json)
                    return nil
                }
                #if canImport(FoundationNetworking)
                    return writeFile(report, named: name).note
                #else
                    let attachment = XCTAttachment(data: report.json, uniformTypeIdentifier: "public.json")
                    attachment.name = name
                    attachment.lifetime = .keepAlways
                    testCase.add(attachment)
                    return nil
                #endif
            }
        #endif
    }
#endif
