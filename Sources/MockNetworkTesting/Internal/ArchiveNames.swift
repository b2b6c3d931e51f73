// With the package's `Archives` trait (on by default).
#if Archives
    #if canImport(Testing)
        import Foundation
        import Testing

        /// The archive names Swift Testing tests get: one per test, per case of a parameterized test,
        /// and per test of a suite (nested suites included), so that no two record into one file.
        enum ArchiveNames {
            /// The archive `test` (and `testCase`) uses: `archive` for a test of its own,
            /// `archive/<nested suites>/<test function>` inside a suite with the trait, and
            /// `…/<arguments>.har` for a case of a parameterized test.
            ///
            /// - Throws: ``CaseNameUnavailable`` when the case's arguments cannot be read.
            static func name(archive: String, suites: [String: [String]], test: Test, testCase: Test.Case?) throws
                -> String
            {
                var parts = [archive]
                if let suite = suites[archive] {
                    let components = test.id.nameComponents
                    let inside =
                        components.starts(with: suite)
                        ? Array(components.dropFirst(suite.count)) : [components.last ?? test.name]
                    parts += inside.map { ArchiveSupport.filter(forTest: $0) }
                }
                if let testCase, testCase.isParameterized {
                    guard let arguments = arguments(of: testCase) else { throw CaseNameUnavailable(test: test.name) }
                    parts.append(fileName(describing: arguments) + ".har")
                }
                return parts.joined(separator: "/")
            }

            /// The case's arguments, each as Swift Testing describes it (`1`, `"ada"`), or `nil` when
            /// they cannot be found. `Test.Case` keeps them to itself, so they are looked up by reflection.
            static func arguments(of testCase: Test.Case) -> [String]? {
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
                return find(testCase, depth: 0).map { values in values.map { String(describingForTest: $0) } }
            }

            /// The arguments as a file name that any file system takes, distinct for distinct arguments:
            /// each argument (a string without its quotes, an enum's case without its dot) joined by `_`.
            /// An argument that holds anything but lowercase ASCII letters, digits, `-` and `.` (where two
            /// texts could give one name, or differ only in case on a case-insensitive disk) is written
            /// with `_` for each run of other characters, and the name ends in a hash of the whole; a long
            /// name is cut before it.
            static func fileName(describing arguments: [String]) -> String {
                let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.".unicodeScalars)
                var exact = true
                let parts = arguments.map { argument in
                    var text = argument
                    if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                        text = String(text.dropFirst().dropLast())  // a string
                    } else if text.hasPrefix("."), text.dropFirst().first?.isLetter == true {
                        text = String(text.dropFirst())  // an enum's case: `.admin` is `admin`
                    }
                    var part = ""
                    var pendingSeparator = false
                    for scalar in text.unicodeScalars {
                        if allowed.contains(scalar)
                            || (scalar.isASCII && CharacterSet.uppercaseLetters.contains(scalar))
                        {
                            if pendingSeparator && !part.isEmpty { part += "_" }
                            pendingSeparator = false
                            part.unicodeScalars.append(scalar)
                            if !allowed.contains(scalar) { exact = false }
                        } else {
                            pendingSeparator = true
                            exact = false
                        }
                    }
                    if part.isEmpty || part.hasPrefix(".") { exact = false }
                    return part
                }
                var name = parts.joined(separator: "_")
                if name.isEmpty || name.hasPrefix(".") { name = "case" + (name.isEmpty ? "" : "_") + name }
                guard !exact || name.count > 64 else { return name }
                // FNV-1a: the same arguments give the same name in every run.
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in arguments.joined(separator: "\u{0}").utf8 {
                    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                }
                let kept = String(name.prefix(47))
                return (kept.hasSuffix(".") ? kept + "_" : kept) + "-" + String(hash, radix: 16)
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
#endif
