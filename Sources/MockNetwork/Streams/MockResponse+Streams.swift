import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies that arrive over time: streams, server-sent events, a slow network, a connection lost
/// part-way. MockNetwork keeps the time itself, the same on every platform; a session data delegate
/// (and on Apple platforms `bytes(for:)`) sees each piece when it comes, while `data(for:)` and
/// completion handlers get the whole body when it ends.
extension MockResponse {
    /// A body that arrives in `chunks`, the first with the response and each next one `every` after
    /// the one before, as a server that streams its answer sends it (with no `Content-Length`).
    /// `Content-Type` is `application/octet-stream` unless `headers` sets it.
    ///
    /// ```swift
    /// mocks.register("https://api.example.com/export") { _ in
    ///     .streamed([header, row1, row2], every: .milliseconds(20))
    /// }
    /// ```
    ///
    /// A negative `interval` fails the request with ``MockNetworkError/invalidStream(_:)``, and the
    /// test at this call.
    public static func streamed(
        _ chunks: [Data], every interval: Duration, status: Int = 200, headers: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try stream(
                chunks, every: interval, status: status, headers: headers, contentType: "application/octet-stream")
        }
    }

    /// Text that arrives in `chunks` (UTF-8), the first with the response and each next one `every`
    /// after the one before. `Content-Type` is `text/plain; charset=utf-8` unless `headers` sets it.
    public static func streamed(
        _ chunks: [String], every interval: Duration, status: Int = 200, headers: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try stream(
                chunks.map { Data($0.utf8) }, every: interval, status: status, headers: headers,
                contentType: "text/plain; charset=utf-8")
        }
    }

    /// Server-sent events (`text/event-stream`), the first with the response and each next one
    /// `every` after the one before, framed as the WHATWG standard says (see ``ServerSentEvent``).
    /// The body ends after the last event, as a server closing the stream does.
    ///
    /// An event the format cannot carry fails the request with ``MockNetworkError/invalidStream(_:)``,
    /// and the test at this call.
    public static func events(
        _ events: [ServerSentEvent], every interval: Duration = .zero, status: Int = 200,
        headers: [String: String] = [:], fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try eventStream(events, every: interval, status: status, headers: headers)
        }
    }

    /// `events(_:every:status:headers:)`, throwing what it cannot send.
    package static func eventStream(
        _ events: [ServerSentEvent], every interval: Duration, status: Int, headers: [String: String]
    ) throws -> MockResponse {
        var response = try stream(
            try events.map { Data(try $0.framed().utf8) }, every: interval, status: status, headers: headers,
            contentType: "text/event-stream")
        if !response.headers.keys.contains(where: { $0.caseInsensitiveCompare("Cache-Control") == .orderedSame }) {
            response.headers["Cache-Control"] = "no-cache"
        }
        return response
    }

    /// This response, its body arriving at `bytesPerSecond`: each twentieth of a second's worth
    /// arrives when its last byte would, so the whole body takes its size divided by the rate.
    /// A `.streamed` or `.events` body is sent at this rate instead of its own pace.
    ///
    /// A rate that is not positive fails the request with ``MockNetworkError/invalidStream(_:)``, and
    /// the test at this call.
    public func throttled(
        bytesPerSecond: Int, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column
    ) -> MockResponse {
        guard bytesPerSecond > 0 else {
            return .invalid(
                MockNetworkError.invalidStream(
                    "throttled(bytesPerSecond: \(bytesPerSecond)) would never send the body. Give a rate above 0, "
                        + "e.g. 64_000 for a slow mobile network."),
                at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        var copy = self
        copy.pacing = BodyPacing(
            shape: .rate(bytesPerSecond), fault: pacing?.fault, sendsLength: pacing?.sendsLength ?? true)
        copy.headers = Self.notSniffed(copy.headers)
        return copy
    }

    /// This response, its connection lost after the first `bytes` of the body: the client gets the
    /// response and those bytes (at the body's pace), then the request fails with `error`, e.g.
    /// `URLError(.networkConnectionLost)`.
    ///
    /// With `bytes` equal to the body's size, the whole body arrives and the request fails instead
    /// of ending (a connection lost just before the end).
    ///
    /// A `bytes` that is negative or past the end of the body fails the request with
    /// ``MockNetworkError/invalidStream(_:)``, and the test at this call.
    public func failing(
        after bytes: Int, with error: any Error, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) -> MockResponse {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        guard bytes >= 0 else {
            return .invalid(
                MockNetworkError.invalidStream(
                    "failing(after: \(bytes)) is a negative number of bytes. Give 0 to fail right after the "
                        + "response, or the number of body bytes that arrive before the failure."),
                at: location)
        }
        guard bytes <= body.count else {
            return .invalid(
                MockNetworkError.invalidStream(
                    "failing(after: \(bytes)) is past the end of the \(body.count)-byte body, so it could never cut "
                        + "it. Give at most \(body.count) (the whole body, then the failure), or a longer body."),
                at: location)
        }
        var copy = self
        var pacing = copy.pacing ?? BodyPacing()
        pacing.fault = BodyPacing.Fault(after: bytes, error: error)
        copy.pacing = pacing
        return copy
    }

    package static func stream(
        _ chunks: [Data], every interval: Duration, status: Int, headers: [String: String], contentType: String
    ) throws -> MockResponse {
        guard interval >= .zero else {
            throw MockNetworkError.invalidStream(
                "every: \(interval) is negative. Give the time between two pieces, .zero or more.")
        }
        var headers = Self.notSniffed(headers)
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            headers["Content-Type"] = contentType
        }
        var response = try MockResponse(status: status, headers: headers, body: chunks.reduce(Data(), +))
        var ends: [Int] = []
        var end = 0
        for chunk in chunks {
            end += chunk.count
            ends.append(end)
        }
        response.pacing = BodyPacing(
            shape: .pieces(ends: ends, interval: BodyPacing.seconds(interval)), sendsLength: false)
        return response
    }

    /// `headers` with `X-Content-Type-Options: nosniff` unless they name it: Apple's loading is
    /// reported to hold back the first 512 bytes of a body to guess its type, unless told not to,
    /// which would keep a body over time from arriving piece by piece.
    private static func notSniffed(_ headers: [String: String]) -> [String: String] {
        guard !headers.keys.contains(where: { $0.lowercased() == "x-content-type-options" }) else { return headers }
        var headers = headers
        headers["X-Content-Type-Options"] = "nosniff"
        return headers
    }
}
