import Foundation
import MockNetworkServer
import XCTest

#if canImport(Glibc)
    import Glibc

    /// The server's sockets are close-on-exec from birth: a process another thread starts at any
    /// instant inherits none of them, so a stopped server's port is closed, whatever runs beside it.
    ///
    /// The processes are started with `posix_spawn` and no file actions, as `system()` and `popen()`
    /// start them (`curl` run from a test that way): a child keeps every descriptor that was not
    /// close-on-exec at the instant it was made. (Foundation's `Process` on Linux closes, in the child,
    /// the descriptors open when `run()` began, which hides most of this; and until it execs, any child
    /// holds a copy of every descriptor for a moment, which no flag prevents: each check here comes
    /// after its child has exec'd, as `posix_spawn` returns only then.) Linux only: on Apple platforms
    /// the server sets the flag just after `socket` and `accept` (`Socket+CloseOnExec.swift`).
    final class HTTPServerDescriptorTests: XCTestCase {
        /// A child sleeping 30 s, started with nothing closed: its process number, or nil.
        private static func spawnSleeper() -> pid_t? {
            let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
            defer { arguments.forEach { free($0) } }
            var pid = pid_t()
            return posix_spawn(&pid, "/bin/sleep", nil, nil, arguments, environ) == 0 ? pid : nil
        }

        private static func end(_ child: pid_t) {
            kill(child, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }

        /// The sockets `pid` holds past its standard input, output and error, from `/proc`.
        private static func sockets(of pid: pid_t) -> Set<String> {
            let folder = "/proc/\(pid)/fd"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return Set(
                names.filter { (Int($0) ?? 0) > 2 }
                    .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
                    .filter { $0.hasPrefix("socket:") })
        }

        func testNoProcessStartedMeanwhileInheritsTheServersSockets() async throws {
            // What any child inherits before a server exists (the test process's own sockets).
            let first = try XCTUnwrap(Self.spawnSleeper())
            let before = Self.sockets(of: first)
            Self.end(first)

            let serving = Shared(true)
            let started = Shared(0)
            // Children that inherited a socket of the server's, kept alive with it.
            let inheriting = Shared<[pid_t]>([])
            let spawnerDone = DispatchSemaphore(value: 0)
            Thread {
                defer { spawnerDone.signal() }
                while serving.current, let child = Self.spawnSleeper() {
                    started.update { $0 += 1 }
                    if Self.sockets(of: child).subtracting(before).isEmpty {
                        Self.end(child)
                    } else {
                        inheriting.update { $0.append(child) }
                    }
                }
            }.start()
            defer { inheriting.current.forEach(Self.end) }

            // Meanwhile servers start, answer a request and stop, until 1000 processes have started; each
            // stopped port is tried at once, while children may hold a copy of its descriptor.
            let acceptedAfterStop = Shared(0)
            let ports = try await withWatchdog(60) {
                try await offThread {
                    defer { serving.update { $0 = false } }
                    var ports: [Int] = []
                    while ports.count < 300 || started.current < 1000 {
                        let server = try HTTPServer(responder: echo)
                        let client = try RawHTTPClient(port: server.port, closeOnExec: true)
                        defer { client.close() }
                        client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                        _ = try client.readResponse()
                        server.stop()
                        if let late = try? RawHTTPClient(port: server.port, timeout: 1, closeOnExec: true) {
                            acceptedAfterStop.update { $0 += 1 }
                            late.close()
                        }
                        ports.append(server.port)
                    }
                    return ports
                }
            }
            try await withWatchdog(20) { try await offThread { spawnerDone.wait() } }
            let listening = ports.filter { port in
                guard let client = try? RawHTTPClient(port: port, timeout: 1, closeOnExec: true) else { return false }
                client.close()
                return true
            }
            XCTAssertGreaterThan(started.current, 0, "processes started meanwhile")
            XCTAssertEqual(
                inheriting.current.count, 0,
                "\(inheriting.current.count) of \(started.current) processes inherited a socket of the servers'")
            XCTAssertEqual(listening.count, 0, "\(listening.count) of \(ports.count) stopped servers still listened")
            XCTAssertEqual(
                acceptedAfterStop.current, 0,
                "\(acceptedAfterStop.current) of \(ports.count) servers accepted a connection right after stop()")
        }
    }
#endif
