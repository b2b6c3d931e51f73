import Dispatch
import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session data delegate that notes each event with the time it came (uptime, nanoseconds).
final class TimedRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state is `Shared`
    enum Event: Equatable {
        case response(Int)
        case data(Data)
        case complete(URLError.Code?)
        case completeWithOtherError(String)
    }

    let events = Shared<[(event: Event, at: UInt64)]>([])
    private let done = Shared<XCTestExpectation?>(nil)
    private let onData = Shared<(@Sendable () -> Void)?>(nil)

    func completion(_ test: XCTestCase) -> XCTestExpectation {
        let expectation = test.expectation(description: "task completes")
        done.update { $0 = expectation }
        return expectation
    }

    /// Called after each piece of data is noted.
    func whenData(_ body: @escaping @Sendable () -> Void) { onData.update { $0 = body } }

    var chunks: [Data] {
        events.current.compactMap { if case .data(let data) = $0.event { return data } else { return nil } }
    }

    /// The times pieces of data came, in seconds after the response.
    var chunkOffsets: [Double] {
        let all = events.current
        guard let start = all.first(where: { if case .response = $0.event { true } else { false } })?.at else {
            return []
        }
        return all.compactMap { if case .data = $0.event { Double($0.at - start) / 1e9 } else { nil } }
    }

    var last: Event? { events.current.last?.event }

    private func note(_ event: Event) {
        let now = DispatchTime.now().uptimeNanoseconds
        events.update { $0.append((event, now)) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        note(.response((response as? HTTPURLResponse)?.statusCode ?? -1))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        note(.data(data))
        onData.current?()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        switch error {
        case nil: note(.complete(nil))
        case let error as URLError: note(.complete(error.code))
        case let error?: note(.completeWithOtherError(String(describing: error)))
        }
        done.update { $0 }?.fulfill()
    }
}

/// A reader of `text/event-stream` bodies as the WHATWG HTML standard parses them (section 9.2.6),
/// written here from the standard so that the tests check MockNetwork's framing against it.
struct EventStreamReader {
    struct Event: Equatable {
        var type = "message"
        var data = ""
        var lastEventID = ""
    }

    private(set) var events: [Event] = []
    private(set) var retry: Int?
    private var buffer = ""
    private var dataBuffer = ""
    private var eventType = ""
    private var lastEventID = ""

    /// Reads `text`, which may end mid-line (the rest comes with the next call).
    mutating func read(_ text: String) {
        buffer += text
        while let end = buffer.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = String(buffer[..<end])
            buffer.removeSubrange(...end)
            process(line)
        }
    }

    private mutating func process(_ line: String) {
        if line.isEmpty {
            dispatch()
            return
        }
        if line.hasPrefix(":") { return }
        var field = line
        var value = ""
        if let colon = line.firstIndex(of: ":") {
            field = String(line[..<colon])
            value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
        }
        switch field {
        case "event": eventType = value
        case "data": dataBuffer += value + "\n"
        case "id": if !value.contains("\0") { lastEventID = value }
        case "retry": if let number = Int(value), value.allSatisfy(\.isASCII) { retry = number }
        default: break
        }
    }

    private mutating func dispatch() {
        defer { eventType = "" }
        guard !dataBuffer.isEmpty else { return }
        if dataBuffer.hasSuffix("\n") { dataBuffer.removeLast() }
        events.append(
            Event(type: eventType.isEmpty ? "message" : eventType, data: dataBuffer, lastEventID: lastEventID))
        dataBuffer = ""
    }
}
