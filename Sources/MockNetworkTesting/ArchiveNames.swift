#if canImport(Testing)
    import Foundation
    import Testing

    /// The archive names Swift Testing tests get: one per test, per case of a parameterized test,
    /// and per test of a suite (nested suites included), so that no two record into one file.
    enum ArchiveNames {
        /// The suite whose `.mockNetwork(archive:)` trait is in effect: its archive name and the
        /// components of its ID, which its tests' paths inside the archive folder start after.
        struct Suite: Sendable {
            let archive: String
            let components: [String]
        }

        /// The archive `test` (and `testCase`) uses: `archive` for a test of its own,
        /// `archive/<nested suites>/<test function>` inside a suite with the trait, and
        /// `…/<arguments>` for a case of a parameterized test.
        ///
        /// - Throws: ``CaseNameUnavailable`` when the case's arguments cannot be read.
        static func name(archive: String, suite: Suite?, test: Test, testCase: Test.Case?) throws -> String {
            var parts = [archive]
            if let suite, suite.archive == archive {
                let components = test.id.nameComponents
                let inside =
                    components.starts(with: suite.components)
                    ? Array(components.dropFirst(suite.components.count)) : [components.last ?? test.name]
                parts += inside.map { ArchiveSupport.filter(forTest: $0) }
            }
            if let testCase, testCase.isParameterized {
                guard let arguments = arguments(of: testCase) else { throw CaseNameUnavailable(test: test.name) }
                parts.append(fileName(describing: arguments))
            }
            return parts.joined(separator: "/")
        }

        /// The case's arguments, as Swift Testing describes them (`1, "ada"`), or `nil` when they
        /// cannot be found. `Test.Case` keeps them to itself, so they are looked up by reflection.
        static func arguments(of testCase: Test.Case) -> String? {
            func find(_ value: Any, depth: Int) -> [Any]? {
                guard depth < 6 else { return nil }
                for child in Mirror(reflecting: value).children {
                    if child.label == "arguments" {
                        let values = Mirror(reflecting: child.value).children.compactMap { argument in
                            Mirror(reflecting: argument.value).children.first { $0.label == "value" }?.value
                        }
                        if !values.isEmpty { return values }
                    }
                    if let found = find(child.value, depth: depth + 1) { return found }
                }
                return nil
            }
            return find(testCase, depth: 0).map { values in
                values.map { String(describingForTest: $0) }.joined(separator: ", ")
            }
        }

        /// `text` as a file name that any file system takes: letters, digits, `-` and `.`, with runs
        /// of anything else as one `_`; a long one is cut and ends in a hash of the whole.
        static func fileName(describing text: String) -> String {
            var name = ""
            var pendingSeparator = false
            for scalar in text.unicodeScalars {
                let keep =
                    scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == ".")
                if keep {
                    if pendingSeparator && !name.isEmpty { name += "_" }
                    pendingSeparator = false
                    name.unicodeScalars.append(scalar)
                } else {
                    pendingSeparator = true
                }
            }
            if name.isEmpty || name.hasPrefix(".") { name = "case" + (name.isEmpty ? "" : "_") + name }
            guard name.count > 64 else { return name }
            // FNV-1a: the same text gives the same name in every run.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            return String(name.prefix(47)) + "-" + String(hash, radix: 16)
        }

        /// A parameterized test whose cases cannot be told apart, so each cannot have its archive.
        struct CaseNameUnavailable: Error, CustomStringConvertible {
            let test: String
            var description: String {
                "MockNetwork: could not read the arguments of this case of \(test) to name its archive (this "
                    + "version of Swift Testing keeps them where MockNetwork cannot see them). Give each case its "
                    + "own archive: use .mockNetwork without archive:, then call "
                    + "try MockRegistry.current.useArchive(at:) with a file named after the case's argument."
            }
        }
    }
#endif
