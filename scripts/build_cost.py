#!/usr/bin/env python3
"""What adopting MockNetwork costs a user's clean debug build, in CPU seconds.

Writes a small user package (a URLSession client and its tests) in a temporary folder, three ways:
its tests on a hand-written URLProtocol (no MockNetwork), on MockNetworkTesting with the default
traits, and on MockNetworkTesting with `traits: []`. Each is built clean (`swift build
--build-tests`), the variants interleaved over --rounds rounds, and the script prints the CPU time
(user + system, of the compiler processes) and the wall time of each build, their medians, and
what MockNetwork adds over the package without it. Not a timed test: figures depend on the
machine and its load, which the script prints (1-minute load average before each build).

    python3 scripts/build_cost.py [--rounds 2] [--profile]

--profile also builds MockNetwork's modules one after another (the CPU of each), then the core
once with -debug-time-function-bodies and -debug-time-expression-type-checking, and lists where
the type checker spent most time.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CLIENT = """\
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

public struct User: Codable, Equatable, Sendable {
    public let id: Int
    public let name: String

    public init(id: Int, name: String) { (self.id, self.name) = (id, name) }
}

public struct UserClient: Sendable {
    let session: URLSession
    let base: URL

    public init(session: URLSession, base: URL = URL(string: "https://api.example.com")!) {
        (self.session, self.base) = (session, base)
    }

    public func user(_ id: Int) async throws -> User {
        let (data, response) = try await session.data(from: base.appendingPathComponent("users/\\(id)"))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
        return try JSONDecoder().decode(User.self, from: data)
    }

    public func rename(_ id: Int, to name: String) async throws {
        var request = URLRequest(url: base.appendingPathComponent("users/\\(id)"))
        request.httpMethod = "PATCH"
        request.httpBody = try JSONEncoder().encode(["name": name])
        _ = try await session.data(for: request)
    }
}
"""

# The same two tests, on MockNetworkTesting.
WITH_MOCKNETWORK = """\
import Client
import Foundation
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class UserClientTests: MockNetworkTestCase {
    func testReadsAUser() async throws {
        let url = URL(string: "https://api.example.com/users/1")!
        register(url) { _ in .json(#"{"id": 1, "name": "Ada"}"#) }
        let user = try await UserClient(session: session).user(1)
        XCTAssertEqual(user, User(id: 1, name: "Ada"))
    }

    func testRenamesAUser() async throws {
        register("https://api.example.com/users/{id}", method: "PATCH") { request, parameters in
            XCTAssertEqual(parameters["id"], "2")
            XCTAssertEqual(request.httpMethod, "PATCH")
            return .status(204)
        }
        try await UserClient(session: session).rename(2, to: "Grace")
    }
}
"""

# The same two tests, on the hand-written URLProtocol of the tutorials.
WITHOUT_MOCKNETWORK = """\
import Client
import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class StubProtocol: URLProtocol {
    // Guarded by `lock`: the tutorials' global store.
    nonisolated(unsafe) static var handlers: [String: (URLRequest) throws -> (HTTPURLResponse, Data)] = [:]
    static let lock = NSLock()

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let handler = Self.lock.withLock { Self.handlers[request.url?.absoluteString ?? ""] }
        guard let client, let handler else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        do {
            let (response, data) = try handler(request)
            client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client.urlProtocol(self, didLoad: data)
            client.urlProtocolDidFinishLoading(self)
        } catch {
            client.urlProtocol(self, didFailWithError: error)
        }
    }

    override func stopLoading() {}
}

final class UserClientTests: XCTestCase {
    var session: URLSession!

    override func setUp() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        session = URLSession(configuration: configuration)
    }

    override func tearDown() {
        StubProtocol.lock.withLock { StubProtocol.handlers = [:] }
    }

    func register(_ url: String, _ handler: @escaping (URLRequest) throws -> (HTTPURLResponse, Data)) {
        StubProtocol.lock.withLock { StubProtocol.handlers[url] = handler }
    }

    func testReadsAUser() async throws {
        register("https://api.example.com/users/1") { request in
            (HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!,
             Data(#"{"id": 1, "name": "Ada"}"#.utf8))
        }
        let user = try await UserClient(session: session).user(1)
        XCTAssertEqual(user, User(id: 1, name: "Ada"))
    }

    func testRenamesAUser() async throws {
        register("https://api.example.com/users/2") { request in
            XCTAssertEqual(request.httpMethod, "PATCH")
            return (HTTPURLResponse(url: request.url!, statusCode: 204, httpVersion: nil, headerFields: nil)!, Data())
        }
        try await UserClient(session: session).rename(2, to: "Grace")
    }
}
"""


def manifest(variant: str, identity: str) -> str:
    if variant == "none":
        dependencies, test_dependencies = "", '"Client"'
    else:
        traits = ", traits: []" if variant == "lean" else ""
        dependencies = f'.package(path: "{ROOT}"{traits})'
        test_dependencies = f'"Client", .product(name: "MockNetworkTesting", package: "{identity}")'
    return f"""\
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "UserApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [{dependencies}],
    targets: [
        .target(name: "Client"),
        .testTarget(name: "ClientTests", dependencies: [{test_dependencies}]),
    ]
)
"""


def write_package(folder: str, variant: str) -> None:
    identity = os.path.basename(ROOT).lower()
    os.makedirs(os.path.join(folder, "Sources", "Client"))
    os.makedirs(os.path.join(folder, "Tests", "ClientTests"))
    with open(os.path.join(folder, "Package.swift"), "w") as file:
        file.write(manifest(variant, identity))
    with open(os.path.join(folder, "Sources", "Client", "Client.swift"), "w") as file:
        file.write(CLIENT)
    with open(os.path.join(folder, "Tests", "ClientTests", "ClientTests.swift"), "w") as file:
        file.write(WITHOUT_MOCKNETWORK if variant == "none" else WITH_MOCKNETWORK)


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def clean_build(folder: str, extra: list[str]) -> tuple[float, float]:
    """A clean `swift build --build-tests` of `folder`: (CPU seconds, wall seconds)."""
    shutil.rmtree(os.path.join(folder, ".build"), ignore_errors=True)
    # Resolve first (no compiling), so that the figures are the build's alone.
    subprocess.run(["swift", "package", "resolve"], cwd=folder, check=True, capture_output=True)
    cpu, wall = cpu_of_children(), time.monotonic()
    result = subprocess.run(
        ["swift", "build", "--build-tests", *extra], cwd=folder, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the {os.path.basename(folder)} build failed:\n{result.stdout[-4000:]}{result.stderr[-2000:]}")
    warnings = [line for line in result.stdout.splitlines() if "warning:" in line and "/Tests/" in line]
    for warning in sorted(set(warnings)):
        print(f"  the {os.path.basename(folder)} test target warned: {warning.split('/Tests/', 1)[-1]}")
    return cpu_of_children() - cpu, time.monotonic() - wall


def profile(folder: str) -> None:
    """Where the type checker spends its time in the core: the slowest function bodies and expressions."""
    shutil.rmtree(os.path.join(folder, ".build"), ignore_errors=True)
    flags = ["-Xfrontend", "-debug-time-function-bodies", "-Xfrontend", "-debug-time-expression-type-checking"]
    result = subprocess.run(
        ["swift", "build", "--target", "MockNetwork", *[f for flag in flags for f in ("-Xswiftc", flag)]],
        cwd=folder, capture_output=True, text=True)
    # The driver repeats a batch's remarks once per file of the batch: one figure per place.
    by_place: dict[str, float] = {}
    for line in (result.stdout + result.stderr).splitlines():
        head = line.split("\t", 1)
        if len(head) == 2 and head[0].endswith("ms") and "MockNetwork/" in head[1]:
            try:
                by_place[head[1].strip()] = float(head[0][:-2])
            except ValueError:
                pass
    timings = sorted(((ms, where) for where, ms in by_place.items()), reverse=True)
    total = sum(ms for ms, _ in timings)
    print(f"\ntype checking in the core: {total / 1000:.1f} s over {len(timings)} bodies and expressions; slowest:")
    for ms, where in timings[:20]:
        print(f"  {ms:8.1f} ms  {where.replace(ROOT + '/', '')}")


def modules(folder: str) -> None:
    """The CPU each module of MockNetwork takes in a clean build, built one after another."""
    shutil.rmtree(os.path.join(folder, ".build"), ignore_errors=True)
    subprocess.run(["swift", "package", "resolve"], cwd=folder, check=True, capture_output=True)
    print("\nclean build, module by module (each after the ones before it):")
    for target in ["MockNetwork", "MockNetworkGraphQL", "MockNetworkArchives", "MockNetworkTesting"]:
        cpu = cpu_of_children()
        result = subprocess.run(["swift", "build", "--target", target], cwd=folder, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"building {target} failed:\n{result.stdout[-3000:]}")
        print(f"  {target:22} CPU {cpu_of_children() - cpu:6.1f} s")
    cpu = cpu_of_children()
    subprocess.run(["swift", "build", "--build-tests"], cwd=folder, check=True, capture_output=True)
    print(f"  {'the rest (user targets)':22} CPU {cpu_of_children() - cpu:6.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2, help="clean builds of each variant (default 2)")
    parser.add_argument("--profile", action="store_true", help="also show where the core's type checking goes")
    parser.add_argument("--keep", action="store_true", help="keep the temporary packages and print where")
    arguments = parser.parse_args()

    base = tempfile.mkdtemp(prefix="mocknetwork-build-cost-")
    variants = {"none": "without MockNetwork (hand-written URLProtocol)",
                "default": "MockNetworkTesting, default traits",
                "lean": "MockNetworkTesting, traits: []"}
    figures: dict[str, list[tuple[float, float]]] = {variant: [] for variant in variants}
    try:
        for variant in variants:
            write_package(os.path.join(base, variant), variant)
        print(f"{os.cpu_count()} cores; clean `swift build --build-tests` of a user package, {arguments.rounds} rounds")
        for round in range(arguments.rounds):
            for variant in variants:
                load = os.getloadavg()[0]
                cpu, wall = clean_build(os.path.join(base, variant), [])
                figures[variant].append((cpu, wall))
                print(f"round {round + 1}  {variant:8}  CPU {cpu:6.1f} s  wall {wall:6.1f} s  (load before {load:.2f})",
                      flush=True)
        print()
        none_cpu = statistics.median(cpu for cpu, _ in figures["none"])
        for variant, label in variants.items():
            cpu = statistics.median(cpu for cpu, _ in figures[variant])
            wall = statistics.median(wall for _, wall in figures[variant])
            added = "" if variant == "none" else f"   MockNetwork adds {cpu - none_cpu:5.1f} s of CPU"
            print(f"{label:50}  CPU {cpu:6.1f} s  wall {wall:6.1f} s{added}")
        if arguments.profile:
            modules(os.path.join(base, "default"))
            profile(os.path.join(base, "default"))
    finally:
        if arguments.keep:
            print(f"packages kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
