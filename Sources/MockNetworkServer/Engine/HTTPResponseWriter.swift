import Foundation

/// Where a responder writes its answer to one request: all at once with `respond`, or over time with
/// `begin`, `write` and `end`.
///
/// Every method may be called from any thread; calls take effect in the order they are made. Only the
/// first `respond` or `begin` counts, and calls after the answer ended (or its connection closed) do
/// nothing, so a writer kept too long is harmless. The server frames the body itself: `Content-Length`
/// for a whole body or an announced length, else `Transfer-Encoding: chunked` (HTTP/1.0 clients get the
/// body up to the connection's end); an answer to `HEAD` sends its head alone, with the length it
/// would have had.
package final class HTTPResponseWriter: Sendable {
    private let connection: Connection
    let serial: Int

    init(connection: Connection, serial: Int) {
        self.connection = connection
        self.serial = serial
    }

    /// Sends a whole answer: the status, the fields and the body, with its length.
    package func respond(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        connection.post(WriterCall(serial: serial, kind: .respond(status: status, headers: headers, body: body)))
    }

    /// Sends the head of an answer whose body follows over time: chunked, or exactly `length` bytes
    /// when that is given.
    package func begin(status: Int, headers: HTTPHeaders = [:], length: Int? = nil) {
        connection.post(WriterCall(serial: serial, kind: .begin(status: status, headers: headers, length: length)))
    }

    /// Sends the next piece of a body begun with `begin` (an empty piece sends nothing).
    package func write(_ piece: Data) {
        connection.post(WriterCall(serial: serial, kind: .write(piece)))
    }

    /// Ends a body begun with `begin`. A body shorter than its announced length, or an answer never
    /// begun, ends with the connection closing instead.
    package func end() {
        connection.post(WriterCall(serial: serial, kind: .end))
    }

    /// Fails the answer: what was written is sent, then the connection closes, so the client sees
    /// its body cut short (or no answer at all).
    package func abort() {
        connection.post(WriterCall(serial: serial, kind: .abort))
    }

    /// Answers with `head` (a `101 Switching Protocols`, written whole by the caller) and hands the
    /// connection to `upgrade`: from then on its bytes are that protocol's, nothing more is read as
    /// HTTP, and the idle time counts only while the client takes nothing of what is sent.
    func switchProtocols(head: [UInt8], to upgrade: any ConnectionUpgrade) {
        connection.post(WriterCall(serial: serial, kind: .switchProtocols(head: head, upgrade: upgrade)))
    }

    /// The channel an upgraded protocol writes through on this answer's connection.
    func upgradedChannel() -> UpgradedChannel {
        UpgradedChannel(connection: connection)
    }

    /// Where an answer stands for its client.
    package enum Progress: Sendable, Equatable {
        /// Some of it is still to be sent, and its client is there.
        case writing
        /// Nothing of it is left to send: it ended (or was aborted), or every byte of it went to the
        /// client (the last of its announced length, or its head when it has no body: a `HEAD`, 204,
        /// 304). The server's stop can no longer cut it short.
        case sent
        /// Its client hung up before it was all sent: it closed or reset the connection, ended its side
        /// of it (the server takes that as leaving), or took nothing for the idle time.
        case clientLeft
        /// The server stopped before it was all sent.
        case cutShort
    }

    /// Where the answer stands for its client now, seen without waiting (the socket is peeked for
    /// a client that hung up and whose leaving the server has not read yet).
    package var progress: Progress {
        connection.progress(of: serial)
    }

    /// Runs `handler` once if the connection closes before the answer ends (the client closed or
    /// ended its side of the connection, the server stopped): the responder's cue to stop working on
    /// it. Runs at once when the connection closed while this answer was in progress.
    package func onClose(_ handler: @escaping @Sendable () -> Void) {
        connection.post(WriterCall(serial: serial, kind: .onClose(handler)))
    }
}
