"""Tests of availability_check.py: small packages written to a temporary folder, and a run over a
copy of this repository's sources.

Run: python3 -m unittest discover -s scripts -p 'test_availability_check.py'
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import availability_check as checker  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PACKAGE = """\
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Fixture",
    // platforms: [.macOS(.v10_15)],  (a comment: not read)
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    targets: [.target(name: "MockNetworkServer")]
)
"""

# As at commit 488c2ab: a task executor that needs macOS 15 / iOS 18, and inside it a check that
# can never be false.
SOCKET_EXECUTOR = """\
import Dispatch

/// Where a socket handler runs: on its connection's serial queue.
///
/// `SocketExecutor.run(on:)` in a comment is no use.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class SocketExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` with its jobs on `queue`.
    static func run(
        on queue: DispatchQueue, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            try await withTaskExecutorPreference(SocketExecutor(queue)) { try await body() }
        } else {
            try await body()
        }
    }
}
"""

# WebSocketBook.swift's shape at 488c2ab, with the call to SocketExecutor.run in {call}.
WEB_SOCKET_BOOK = """\
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class SocketRoute: Sendable {
    enum Body: Sendable {
        case handler(@Sendable (MockWebSocket) async throws -> Void)
        case test
    }

    let body: Body

    init(body: Body) {
        self.body = body
    }

    /// Starts answering `socket`.
    func start(_ socket: MockWebSocket, queue: DispatchQueue) {
        switch body {
        case .handler(let handler):
            let work: @Sendable () async -> Void = { [self] in
                do {
{call}
                    await socket.close()
                } catch {
                    print("the WebSocket handler threw \\(error)")
                }
            }
            _ = Task { await work() }
        case .test:
            break
        }
    }
}
"""

# As the repository's core does: no build for watchOS.
WATCHOS_STOP = """\
import Foundation

#if os(watchOS)
    #error("MockNetwork needs a custom URLProtocol, which watchOS does not load")
#endif
"""

UNGUARDED = "                    try await SocketExecutor.run(on: queue) { try await handler(socket) }"

FINDING = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.+)$")
SUMMARY = re.compile(r"^availability: \d+ files, \d+ declarations in the sources and \d+ of the toolchain "
                     r"newer than the targets, \d+ errors? \([\d.]+ s\)$")
NOTE = re.compile(r"^availability: (\w+ not checked: .+|warning: .+)$")


def line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the fixture")


class Fixture:
    """A package in a temporary folder: Package.swift and the given files under Sources/."""

    def __init__(self, test: unittest.TestCase, files: dict[str, str], package: str = PACKAGE):
        self.root = tempfile.mkdtemp(prefix="availability-")
        test.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        with open(os.path.join(self.root, "Package.swift"), "w", encoding="utf-8") as f:
            f.write(package)
        for path, text in files.items():
            full = os.path.join(self.root, "Sources", path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(textwrap.dedent(text))

    def check(self, toolchain: bool = False) -> checker.Result:
        return checker.check(self.root, use_toolchain=toolchain)

    def main(self, *args: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = checker.main(["--root", self.root, *args])
        return code, out.getvalue()


def book(call: str) -> dict[str, str]:
    return {
        "MockNetworkServer/WebSockets/SocketExecutor.swift": SOCKET_EXECUTOR.replace(
            "        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {\n"
            "            try await withTaskExecutorPreference(SocketExecutor(queue)) { try await body() }\n"
            "        } else {\n"
            "            try await body()\n"
            "        }\n",
            "        try await withTaskExecutorPreference(SocketExecutor(queue)) { try await body() }\n"),
        "MockNetworkServer/WebSockets/WebSocketBook.swift": WEB_SOCKET_BOOK.replace("{call}", call),
    }


class SocketExecutorPatternTests(unittest.TestCase):
    """(1) The bug on main at 488c2ab: an unguarded SocketExecutor.run(on:)."""

    def test_unguarded_call_is_reported_at_its_file_and_line(self):
        fixture = Fixture(self, {
            "MockNetworkServer/WebSockets/SocketExecutor.swift": SOCKET_EXECUTOR,
            "MockNetworkServer/WebSockets/WebSocketBook.swift": WEB_SOCKET_BOOK.replace("{call}", UNGUARDED),
            "MockNetwork/MockURLProtocol.swift": WATCHOS_STOP,
        })
        code, out = fixture.main()
        self.assertEqual(code, 1, out)
        book_text = WEB_SOCKET_BOOK.replace("{call}", UNGUARDED)
        line = line_of(book_text, "SocketExecutor.run(")
        col = book_text.splitlines()[line - 1].index("SocketExecutor") + 1
        declared = line_of(SOCKET_EXECUTOR, "final class SocketExecutor")
        self.assertIn(
            f"Sources/MockNetworkServer/WebSockets/WebSocketBook.swift:{line}:{col}: error: 'SocketExecutor' is "
            f"only available in macOS 15 or newer (declared at "
            f"Sources/MockNetworkServer/WebSockets/SocketExecutor.swift:{declared}); guard it with if "
            f"#available or mark the enclosing declaration @available",
            out.splitlines())
        # One finding for the use (not a second one for `.run`), one for the redundant check.
        uses = [l for l in out.splitlines() if "WebSocketBook.swift" in l]
        self.assertEqual(len(uses), 1, out)
        self.assertIn("availability: watchOS not checked: Sources/MockNetwork/MockURLProtocol.swift:4 stops the "
                      "build there with #error", out)

    def test_list_names_the_newer_declarations(self):
        fixture = Fixture(self, book(UNGUARDED))
        code, out = fixture.main("--list", "--no-toolchain")
        self.assertEqual(code, 1)
        self.assertIn("deployment targets: macOS 13, iOS 16, tvOS 16, watchOS 4, visionOS 1", out)
        self.assertRegex(out, r"SocketExecutor.swift:\d+: class SocketExecutor: macOS 15, iOS 18, tvOS 18, "
                              r"watchOS 11, visionOS 2")
        self.assertRegex(out, r"func SocketExecutor.run\(on:\)")


class GuardedUseTests(unittest.TestCase):
    """(2) The same call where the code may use it."""

    CASES = {
        "if #available": """\
                    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                        try await SocketExecutor.run(on: queue) { try await handler(socket) }
                    } else {
                        try await handler(socket)
                    }""",
        "guard #available": """\
                    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
                    try await SocketExecutor.run(on: queue) { try await handler(socket) }""",
        "if #unavailable, else": """\
                    if #unavailable(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2) {
                        try await handler(socket)
                    } else {
                        try await SocketExecutor.run(on: queue) { try await handler(socket) }
                    }""",
    }

    def test_guarded_calls_pass(self):
        for name, call in self.CASES.items():
            with self.subTest(name):
                result = Fixture(self, book(call)).check()
                self.assertEqual([str(f) for f in result.findings], [])

    def test_call_inside_an_available_function_passes(self):
        files = book("                    try await handle(socket, queue: queue, handler: handler)")
        files["MockNetworkServer/WebSockets/Handle.swift"] = """\
            import Dispatch

            @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
            func handle(
                _ socket: MockWebSocket, queue: DispatchQueue, handler: @escaping @Sendable (MockWebSocket) async throws -> Void
            ) async throws {
                try await SocketExecutor.run(on: queue) { try await handler(socket) }
            }

            @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
            extension MockWebSocket {
                func run(on queue: DispatchQueue) async throws {
                    try await SocketExecutor.run(on: queue) {}
                }
            }
            """
        result = Fixture(self, files).check()
        messages = [str(f) for f in result.findings]
        # `handle` itself is newer, so its call in WebSocketBook is reported, and nothing inside it.
        self.assertEqual(len(messages), 1, messages)
        self.assertIn("'handle' is only available in macOS 15 or newer", messages[0])

    def test_an_older_enclosing_availability_is_not_enough(self):
        files = book(UNGUARDED)
        files["MockNetworkServer/WebSockets/Older.swift"] = """\
            @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
            func older() async throws {
                try await SocketExecutor.run(on: .main) {}
            }
            """
        result = Fixture(self, files).check()
        self.assertIn("Older.swift", " ".join(str(f) for f in result.findings))

    def test_guard_in_a_closure_does_not_cover_the_code_after_the_closure(self):
        files = book("""\
                    let inner = {
                        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
                        _ = SocketExecutor(queue)
                    }
                    inner()
                    _ = SocketExecutor(queue)""")
        result = Fixture(self, files).check()
        lines = [f.line for f in result.findings if f.path.endswith("WebSocketBook.swift")]
        text = files["MockNetworkServer/WebSockets/WebSocketBook.swift"]
        self.assertEqual(lines, [line_of(text, "inner()") + 1], [str(f) for f in result.findings])

    def test_code_apple_does_not_compile_is_not_checked(self):
        result = Fixture(self, book("""\
#if os(Linux)
                    try await SocketExecutor.run(on: queue) { try await handler(socket) }
#elseif canImport(FoundationNetworking)
                    try await SocketExecutor.run(on: queue) { try await handler(socket) }
#else
                    try await handler(socket)
#endif""")).check()
        self.assertEqual([str(f) for f in result.findings], [])


class CommentsAndStringsTests(unittest.TestCase):
    """(3) Text is not code; string interpolations are."""

    def test_comments_and_strings_pass(self):
        result = Fixture(self, book('''\
                    // try await SocketExecutor.run(on: queue) {}
                    /* SocketExecutor /* nested */ SocketExecutor.run */
                    print("SocketExecutor.run(on:) is \\"not\\" code")
                    print(#"raw "SocketExecutor" \\(SocketExecutor.run(on: queue) {})"#)
                    print("""
                        SocketExecutor "quoted" \\(1 + 2) \\("SocketExecutor")
                        """)
                    try await handler(socket)''')).check()
        self.assertEqual([str(f) for f in result.findings], [])

    def test_code_in_an_interpolation_is_checked(self):
        call = '                    print("ran: \\(try await SocketExecutor.run(on: queue) {})")'
        result = Fixture(self, book(call)).check()
        self.assertEqual(len(result.findings), 1, [str(f) for f in result.findings])
        self.assertIn("'SocketExecutor'", result.findings[0].message)
        text = WEB_SOCKET_BOOK.replace("{call}", call)
        self.assertEqual(result.findings[0].line, line_of(text, "ran: "))

    def test_code_in_raw_and_multiline_interpolations_is_checked(self):
        call = '''\
                    print(#"raw \\#(SocketExecutor.self)"#)
                    print("""
                        \\(SocketExecutor.self)
                        """)'''
        result = Fixture(self, book(call)).check()
        self.assertEqual(len(result.findings), 2, [str(f) for f in result.findings])


class RedundantCheckTests(unittest.TestCase):
    """(4) An #available that cannot be false where it stands."""

    def test_check_inside_an_available_class_is_reported(self):
        fixture = Fixture(self, {"MockNetworkServer/WebSockets/SocketExecutor.swift": SOCKET_EXECUTOR})
        result = fixture.check()
        self.assertEqual(len(result.findings), 1, [str(f) for f in result.findings])
        finding = result.findings[0]
        self.assertEqual(finding.line, line_of(SOCKET_EXECUTOR, "if #available"))
        self.assertIn("is always true here", finding.message)
        self.assertIn("unnecessary check for 'macOS'", finding.message)

    def test_check_implied_by_the_deployment_target_is_reported(self):
        result = Fixture(self, {"A/A.swift": """\
            func f() {
                if #available(macOS 13, iOS 16, *) { print(1) }
                if #available(macOS 14, iOS 17, *) { print(2) }
                guard #available(macOS 14, iOS 17, *) else { return }
                if #available(macOS 14, iOS 17, *) { print(3) }
            }
            """}).check()
        self.assertEqual([(f.line, "always true" in f.message) for f in result.findings], [(2, True), (5, True)])


class ToolchainTests(unittest.TestCase):
    """(5) The standard library's declarations, read from the toolchain's interfaces."""

    def test_unguarded_standard_library_declarations_are_reported(self):
        if checker.find_interface_dir() is None:
            self.skipTest("no Swift toolchain interfaces here (swift not on PATH)")
        package = PACKAGE.replace(".visionOS(.v1)]", ".visionOS(.v1), .watchOS(.v9)]")
        source = """\
            import Synchronization

            final class Box: Sendable {
                let count = Mutex(0)

                func go(_ executor: any TaskExecutor) async {
                    await withTaskExecutorPreference(executor) {}
                    _ = Task(executorPreference: executor) {}
                    _ = Task(priority: .high) {}
                    await withDiscardingTaskGroup { group in group.addTask {} }
                    await withTaskGroup(of: Void.self) { group in group.addTask {} }
                    let (stream, continuation) = AsyncStream<Int>.makeStream()
                    _ = (stream, continuation)
                    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                        _ = Atomic<Int>(0)
                        _ = Task(executorPreference: executor) {}
                    }
                }
            }
            """
        result = Fixture(self, {"A/Box.swift": source}, package=package).check(toolchain=True)
        found = {(f.line, re.search(r"'([^']+)'", f.message).group(1)) for f in result.findings}
        lines = textwrap.dedent(source).splitlines()

        def at(needle):
            return next(n for n, l in enumerate(lines, 1) if needle in l)

        self.assertEqual(found, {
            (at("Mutex(0)"), "Mutex"),
            (at("any TaskExecutor"), "TaskExecutor"),
            (at("withTaskExecutorPreference"), "withTaskExecutorPreference"),
            (at("_ = Task(executorPreference"), "Task(executorPreference:)"),
            (at("withDiscardingTaskGroup"), "withDiscardingTaskGroup"),
        }, [str(f) for f in result.findings])
        self.assertIn("Synchronization", result.modules)


class PackageSwiftTests(unittest.TestCase):
    """(6) Deployment targets from Package.swift."""

    def read(self, text: str) -> dict:
        with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as f:
            f.write(text)
        self.addCleanup(os.remove, f.name)
        return checker.read_deployment(f.name)

    def test_platforms(self):
        self.assertEqual(self.read(PACKAGE), {
            "macOS": (13,), "iOS": (16,), "tvOS": (16,), "watchOS": (4, 0), "visionOS": (1,)})

    def test_string_and_minor_versions(self):
        deployment = self.read('let p = Package(name: "x", platforms: [.iOS("16.4"), .macOS(.v10_15), '
                               '.watchOS(.v2)])')
        self.assertEqual(deployment["iOS"], (16, 4))
        self.assertEqual(deployment["macOS"], (10, 15))
        self.assertEqual(deployment["watchOS"], (4, 0))  # raised to SwiftPM's oldest supported

    def test_no_platforms(self):
        self.assertEqual(self.read('let p = Package(name: "x")'), checker.SWIFTPM_OLDEST)

    def test_repository_package(self):
        deployment = checker.read_deployment(os.path.join(REPO, "Package.swift"))
        self.assertEqual(set(deployment), set(checker.PLATFORMS))


class WholeRepositoryTests(unittest.TestCase):
    """(7) A run over a copy of this repository's sources completes and speaks its format."""

    def test_repository_sources(self):
        root = tempfile.mkdtemp(prefix="availability-repo-")
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        shutil.copy(os.path.join(REPO, "Package.swift"), root)
        sources = os.path.join(REPO, "Sources")
        for dirpath, _, filenames in os.walk(sources):
            for name in filenames:
                if name.endswith(".swift"):
                    target = os.path.join(root, os.path.relpath(os.path.join(dirpath, name), REPO))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copy(os.path.join(dirpath, name), target)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = checker.main(["--root", root])
        lines = out.getvalue().splitlines()
        self.assertIn(code, (0, 1), out.getvalue())
        self.assertTrue(lines and SUMMARY.match(lines[-1]), out.getvalue())
        for line in lines[:-1]:
            self.assertTrue(FINDING.match(line) or NOTE.match(line), line)
        self.assertEqual(code == 1, any(FINDING.match(line) for line in lines))


class MatchingTests(unittest.TestCase):
    """What a name alone does not prove."""

    def test_common_member_names_need_their_type(self):
        result = Fixture(self, {
            "A/New.swift": """\
                @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
                enum Newer {
                    static func run() {}
                }

                enum Older {
                    static func run() {}
                }

                func f(_ o: Older.Type) {
                    o.run()
                    Older.run()
                    Newer.run()
                }
                """}).check()
        self.assertEqual([(f.line, f.col) for f in result.findings], [(13, 5)], [str(f) for f in result.findings])

    def test_a_platform_the_sources_stop_with_an_error_is_not_checked(self):
        files = book(UNGUARDED)
        files["MockNetworkServer/Stop.swift"] = '#if os(macOS)\n    #error("not here")\n#endif\n'
        result = Fixture(self, files).check()
        self.assertEqual(result.unbuilt, {"macOS": "Sources/MockNetworkServer/Stop.swift:2"})
        self.assertIn("only available in iOS 18 or newer", " ".join(str(f) for f in result.findings))


if __name__ == "__main__":
    unittest.main()
