// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import XCTest

    /// Runs a program (the demo, `curl`) to its end, with a watchdog: one that does not end in time
    /// is terminated, and the test fails instead of stalling the run.
    enum DemoProcess {
        /// Where the build puts `CatBreedsDemo`: next to this test target's resource bundle.
        static let demoPath = Bundle.module.bundleURL.deletingLastPathComponent().path + "/CatBreedsDemo"

        /// The demo, when it is built.
        static var demo: URL? {
            FileManager.default.isExecutableFile(atPath: demoPath) ? URL(fileURLWithPath: demoPath) : nil
        }

        /// The demo, or a skip of the test that says how to build it.
        static func builtDemo() throws -> URL {
            try XCTSkipUnless(
                demo != nil,
                "CatBreedsDemo is not built at \(demoPath): build the package with "
                    + "`swift build --build-tests` first")
            return try XCTUnwrap(demo)
        }

        /// This process's environment without MockNetwork's variables: a launch names only what the
        /// test sets.
        static var cleanEnvironment: [String: String] {
            ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKNETWORK_") }
        }

        struct Run {
            let status: Int32
            let output: String
            let errors: String
        }

        struct Hung: Error, CustomStringConvertible {
            let program: String
            let seconds: TimeInterval
            var description: String { "\(program) did not end within \(seconds) s and was terminated" }
        }

        static func run(
            _ program: URL, arguments: [String] = [], environment: [String: String], timeout: TimeInterval = 60
        ) throws -> Run {
            let process = Process()
            process.executableURL = program
            process.arguments = arguments
            // A temporary folder of the run's own, removed after it: what the program leaves there (a
            // launch report that shows a failure stays, for its reader) leaves nothing behind the test.
            let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
                "DemoProcess-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: temporary) }
            process.environment = environment.merging(["TMPDIR": temporary.path]) { _, ours in ours }
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            let ended = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in ended.signal() }
            try process.run()
            // Read while it runs, so that a full pipe never blocks it. On threads of their own, not
            // Dispatch's: reads blocking Dispatch's threads hold back the timers of a registry the
            // program talks to (on 2 cores, a served stream of 0.3 s took 1.9 s to reach curl).
            let read = DispatchGroup()
            let outputData = Shared(Data())
            let errorData = Shared(Data())
            for (pipe, data) in [(output, outputData), (errors, errorData)] {
                let reading = pipe.fileHandleForReading
                read.enter()
                Thread.detachNewThread {
                    let bytes = reading.readDataToEndOfFile()
                    data.update { $0 = bytes }
                    read.leave()
                }
            }
            if ended.wait(timeout: .now() + timeout) == .timedOut {
                process.terminate()
                _ = ended.wait(timeout: .now() + 5)
                throw Hung(program: program.lastPathComponent, seconds: timeout)
            }
            _ = read.wait(timeout: .now() + 5)
            return Run(
                status: process.terminationStatus, output: String(decoding: outputData.current, as: UTF8.self),
                errors: String(decoding: errorData.current, as: UTF8.self))
        }
    }
#endif
