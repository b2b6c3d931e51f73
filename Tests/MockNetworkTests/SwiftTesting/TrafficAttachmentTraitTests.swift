// Issue handlers (to tell a failing issue from a known one) came with Swift 6.2, `isFailure` with 6.3.
#if compiler(>=6.3)
    import Foundation
    import MockNetwork
    import MockNetworkTesting
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The trait attaches a failing test's traffic to its report, and a passing test's never.
    @Suite
    struct TrafficAttachmentTraitTests {
        /// What the trait attached while `body` ran in its scope, by name, and how many issues failing the
        /// test it recorded. Those issues are kept from failing this test by an issue filter around the
        /// scope, not by `withKnownIssue`: a known issue does not fail a test, so it attaches nothing.
        private func attachments(
            _ trait: MockNetworkTrait = .mockNetwork, _ body: @escaping @Sendable (MockRegistry) async throws -> Void
        ) async throws -> (attached: [String: HTTPArchive], issues: Int) {
            let test = try #require(Test.current)
            let seen = Shared<[String: Data]>([:])
            let issues = Shared(0)
            let swallow = IssueHandlingTrait.filterIssues { issue in
                if issue.isFailure { issues.update { $0 += 1 } }
                return false
            }
            try await swallow.provideScope(for: test, testCase: nil) {
                await TrafficAttachment.$sink.withValue({ name, json in seen.update { $0[name] = json } }) {
                    do {
                        try await trait.provideScope(for: test, testCase: nil) { try await body(MockRegistry.current) }
                    } catch {
                        issues.update { $0 += 1 }  // a thrown error is a failing issue of the test
                    }
                }
            }
            return (try seen.current.mapValues { try HTTPArchive(json: $0) }, issues.current)
        }

        private static func get(_ mocks: MockRegistry, _ address: String) async throws {
            var request = URLRequest(url: try #require(URL(string: address)))
            request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            _ = try await mocks.session.data(for: request)
        }

        #if canImport(FoundationNetworking)
            /// On Linux Swift Testing keeps an attachment only with `--attachments-path`, yet prints
            /// "Attached" either way: the traffic is a file too, which the test's first failure names
            /// (one failure, one report: no warning of its own, which doubled the count of issues).
            @Test func onLinuxAFailingTestsTrafficIsAFileItsFirstFailureNames() async throws {
                let test = try #require(Test.current)
                let file = TrafficAttachment.linuxFolder.appendingPathComponent(
                    "traffic-TrafficAttachmentTraitTests.onLinuxAFailingTestsTrafficIsAFileItsFirstFailureNames.har")
                try? FileManager.default.removeItem(at: file)
                let failures = Shared<[[String]]>([])
                let warnings = Shared(0)
                let swallow = IssueHandlingTrait.filterIssues { issue in
                    if issue.isFailure {
                        failures.update { $0.append(issue.comments.map(\.rawValue)) }
                    } else {
                        warnings.update { $0 += 1 }
                    }
                    return false
                }
                try await swallow.provideScope(for: test, testCase: nil) {
                    try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                        let mocks = MockRegistry.current
                        mocks.register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
                        try await Self.get(mocks, "https://api.example.com/user")
                        #expect(Bool(false), "the test's own check fails")
                        #expect(Bool(false), "and another")
                    }
                }
                #expect(FileManager.default.fileExists(atPath: file.path))
                #expect(warnings.current == 0)
                #expect(
                    failures.current == [
                        [
                            "the test's own check fails",
                            "MockNetwork: what the network saw is in \(file.path) when the test ends, a HAR file: "
                                + "open it in a browser's network panel.",
                        ],
                        ["and another"],
                    ])
                try? FileManager.default.removeItem(at: file)
                _ = rmdir(TrafficAttachment.linuxFolder.path)  // when nothing else is in it
            }

            /// A client's error for a request MockNetwork reports (an unmatched one), thrown out of the
            /// test, is no second failure: the report, with the nearest match and the fix, is the one.
            @Test func aThrownUnmatchedRequestErrorIsOneFailureTheReport() async throws {
                let test = try #require(Test.current)
                let failures = Shared<[String]>([])
                let swallow = IssueHandlingTrait.filterIssues { issue in
                    if issue.isFailure { failures.update { $0.append(issue.comments.map(\.rawValue).joined()) } }
                    return false
                }
                let thrown = Shared<(any Error)?>(nil)
                try await swallow.provideScope(for: test, testCase: nil) {
                    do {
                        try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                            let mocks = MockRegistry.current
                            mocks.attachesTrafficOnFailure = false
                            try await Self.get(mocks, "https://api.example.com/none")
                        }
                    } catch {
                        thrown.update { $0 = error }
                    }
                }
                #expect((thrown.current as? URLError)?.code == .resourceUnavailable, "the test still throws it")
                #expect(failures.current.count == 1)
                #expect(
                    failures.current.first?.hasPrefix("MockNetwork: no handler for GET https://api.example.com/none.")
                        == true)
            }
        #endif

        @Test func aTestThatFailsAnExpectationGetsItsTrafficAttached() async throws {
            let (attached, issues) = try await attachments { mocks in
                mocks.register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
                try await Self.get(mocks, "https://api.example.com/user")
                #expect(Bool(false), "the test's own check fails")
            }
            #expect(issues == 1)
            let name = "traffic-TrafficAttachmentTraitTests.aTestThatFailsAnExpectationGetsItsTrafficAttached.har"
            #expect(Array(attached.keys) == [name])
            let entries = attached[name]?.entries ?? []
            #expect(entries.map(\.request.url) == ["https://api.example.com/user"])
            #expect(entries.map(\.response.status) == [200])
            // Masked, not dropped.
            #expect(entries.first?.request.headers.first { $0.name == "Authorization" }?.value == "REDACTED")
        }

        /// Each case of a parameterized test, and a test of the same name in another suite, has a traffic
        /// file of its own: named from the suites, the function and the case's arguments (all eight cases,
        /// and the other suite's test, once named one file, which held one case).
        @Test(arguments: ["eur", "usd", "gbp", "chf", "jpy", "cad", "aud", "nzd"])
        func casesHaveTrafficFilesOfTheirOwn(_ currency: String) throws {
            let test = try #require(Test.current)
            let name = TrafficAttachment.testName(test, Test.Case.current)
            #expect(name == "TrafficAttachmentTraitTests.casesHaveTrafficFilesOfTheirOwn.\(currency)")
            #expect(TrafficAttachment.fileName(for: name) == "traffic-\(name).har")
        }

        @Suite struct Elsewhere {
            @Test func casesHaveTrafficFilesOfTheirOwn() throws {
                let test = try #require(Test.current)
                #expect(
                    TrafficAttachment.testName(test, Test.Case.current)
                        == "TrafficAttachmentTraitTests.Elsewhere.casesHaveTrafficFilesOfTheirOwn")
            }
        }

        @Test func aFailureMockNetworkReportsAttachesTheTraffic() async throws {
            let (attached, issues) = try await attachments { mocks in
                _ = try? await Self.get(mocks, "https://api.example.com/unmatched")
            }
            #expect(issues == 1)
            #expect(attached.values.map { $0.entries.map(\.request.url) } == [["https://api.example.com/unmatched"]])
        }

        @Test func aTestThatThrowsGetsItsTrafficAttached() async throws {
            struct Failed: Error {}
            let (attached, issues) = try await attachments { mocks in
                mocks.register("https://api.example.com/user") { _ in .status(204) }
                try await Self.get(mocks, "https://api.example.com/user")
                throw Failed()
            }
            #expect(issues == 1)
            #expect(attached.count == 1)
        }

        @Test func aPassingTestGetsNone() async throws {
            let (attached, issues) = try await attachments { mocks in
                mocks.register("https://api.example.com/user") { _ in .status(204) }
                try await Self.get(mocks, "https://api.example.com/user")
            }
            #expect(issues == 0)
            #expect(attached.isEmpty)
        }

        /// A failure MockNetwork reports that the test expects (a known issue) does not fail it either.
        @Test func aMockNetworkFailureTheTestExpectsIsNoFailure() async throws {
            let test = try #require(Test.current)
            let seen = Shared<[String]>([])
            await TrafficAttachment.$sink.withValue({ name, _ in seen.update { $0.append(name) } }) {
                await withKnownIssue {
                    try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                        _ = try? await Self.get(MockRegistry.current, "https://api.example.com/unmatched")
                    }
                }
            }
            #expect(seen.current == [])
        }

        /// A known issue inside the test does not fail it: no attachment.
        @Test func aKnownIssueInsideTheTestIsNoFailure() async throws {
            let (attached, issues) = try await attachments { mocks in
                mocks.register("https://api.example.com/user") { _ in .status(204) }
                try await Self.get(mocks, "https://api.example.com/user")
                withKnownIssue { #expect(Bool(false)) }
            }
            #expect(issues == 0)
            #expect(attached.isEmpty)
        }

        @Test func aTestThatTurnsItOffGetsNone() async throws {
            let (attached, issues) = try await attachments { mocks in
                mocks.attachesTrafficOnFailure = false
                mocks.register("https://api.example.com/user") { _ in .status(204) }
                try await Self.get(mocks, "https://api.example.com/user")
                #expect(Bool(false))
            }
            #expect(issues == 1)
            #expect(attached.isEmpty)
        }

        @Test func aSuiteTurnsItOffInItsDefaults() async throws {
            let trait = MockNetworkTrait.mockNetwork { mocks in mocks.attachesTrafficOnFailure = false }
            let (attached, issues) = try await attachments(trait) { mocks in
                _ = try? await Self.get(mocks, "https://api.example.com/unmatched")
            }
            #expect(issues == 1)
            #expect(attached.isEmpty)
        }
    }
#endif
