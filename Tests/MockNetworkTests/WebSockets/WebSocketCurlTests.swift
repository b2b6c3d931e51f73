// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import MockNetwork
    import MockNetworkServer
    import XCTest

    /// `curl --include` opening a socket on a served registry by hand (the handshake's fields given
    /// as options), as one checks a server from a shell: the `101`, its accept value, and the
    /// handler's first frame after it.
    final class WebSocketCurlTests: XCTestCase {
        func testCurlSeesTheSwitchAndTheHandlersFirstFrame() async throws {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/local/bin"]
            guard let curl = folders.map({ $0 + "/curl" }).first(where: FileManager.default.isExecutableFile) else {
                throw XCTSkip("curl is not installed: install it (apt-get install curl) to run the curl tests")
            }
            let mocks = MockRegistry()
            mocks.webSocket("wss://api.example.com/chat") { socket in
                await socket.send("hello from the server")
                socket.drop()  // curl knows no frames: the end of the connection ends its run
            }
            let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
            defer { server.stop() }
            let arguments = [
                "--silent", "--include", "--no-buffer", "--noproxy", "*", "--max-time", "10", "--http1.1",
                "-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13",
                "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "http://127.0.0.1:\(server.port)/chat",
            ]
            let run = try await withWatchdog(30) {
                try await withCheckedThrowingContinuation { continuation in
                    Thread.detachNewThread {
                        continuation.resume(
                            with: Result {
                                try DemoProcess.run(
                                    URL(fileURLWithPath: curl), arguments: arguments,
                                    environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
                            })
                    }
                }
            }
            let head = run.output.components(separatedBy: "\r\n\r\n").first ?? ""
            XCTAssertTrue(head.hasPrefix("HTTP/1.1 101 Switching Protocols"), run.output)
            XCTAssertTrue(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), head)
            XCTAssertTrue(head.contains("Upgrade: websocket"), head)
            // The frame after the head: FIN and text (0x81, which the output's text shows as a
            // replacement character), a length of 21, then the text.
            let frame = Array(run.output.utf8.dropFirst(head.utf8.count + 4))
            XCTAssertEqual(frame, Array("\u{FFFD}\u{15}hello from the server".utf8), "\(run.output)")
            XCTAssertEqual(mocks.requests.map(\.url.absoluteString), ["wss://api.example.com/chat"])
        }
    }
#endif
