import Foundation

/// Reads requests from a connection's bytes as they arrive, one after another, however the bytes are
/// split: the head line by line, then a body of a given length or in chunks.
///
/// Every part is held to a limit, so no input makes it keep more than `maxHeaderBytes` of head and
/// `maxBodyBytes` of body: a head that does not end in time fails with 431 (414 while still on its
/// request line), a body too long with 413, anything that breaks the grammar with 400. After a failure
/// the parser reads nothing more; the connection answers and closes.
struct RequestParser {
    /// What the bytes so far give.
    enum Step {
        /// The bytes end inside a request: read more.
        case needMore
        /// A head asked for `100 Continue` before its body: send it (in turn), then call `next` again.
        case continueNeeded
        /// A whole request.
        case request(HTTPServerRequest)
        /// A request that cannot be answered; nothing after it is read.
        case failure(RequestFailure)
    }

    private enum State {
        case head
        case lengthBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers(bytes: Int)
        case failed
    }

    /// The longest chunk-size line, extensions included.
    static let maxChunkLineBytes = 4096
    /// The most fields a head may have.
    static let maxFieldCount = 1000

    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private let peer: HTTPPeer
    private var state = State.head
    /// Bytes of the waiting input already searched for a line's end.
    private var scanned = 0
    private var headBytes = 0
    private var requestLine: RequestHeadGrammar.RequestLine?
    private var headers = HTTPHeaders()
    private var body = Data()

    init(maxHeaderBytes: Int, maxBodyBytes: Int, peer: HTTPPeer) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.peer = peer
    }

    /// Whether some of a request has been read and not all of it: an end of stream now truncates it.
    var hasPartialRequest: Bool {
        if case .head = state { return requestLine != nil }
        if case .failed = state { return false }
        return true
    }

    /// Consumes what it can of `input` and says what it found.
    mutating func next(from input: inout ByteQueue) -> Step {
        do throws(RequestFailure) {
            while true {
                switch state {
                case .failed:
                    input.removeAll()
                    return .needMore
                case .head:
                    guard let step = try readHeadLine(from: &input) else { return .needMore }
                    if case .needMore = step { continue }
                    return step
                case .lengthBody(let remaining):
                    let taken = takeBody(from: &input, upTo: remaining)
                    guard taken == remaining else {
                        state = .lengthBody(remaining: remaining - taken)
                        return .needMore
                    }
                    return .request(finish())
                case .chunkSize:
                    guard let size = try readLine(from: &input, budget: Self.maxChunkLineBytes, parse: chunkSize)
                    else { return .needMore }
                    guard size <= maxBodyBytes - body.count else { throw tooLarge }
                    state = size == 0 ? .trailers(bytes: 0) : .chunkData(remaining: size)
                case .chunkData(let remaining):
                    let taken = takeBody(from: &input, upTo: remaining)
                    guard taken == remaining else {
                        state = .chunkData(remaining: remaining - taken)
                        return .needMore
                    }
                    state = .chunkEnd
                case .chunkEnd:
                    guard input.count >= 1, input[0] == lineFeed || input.count >= 2 else { return .needMore }
                    let length = input[0] == lineFeed ? 1 : 2
                    guard length == 1 || (input[0] == carriageReturn && input[1] == lineFeed) else {
                        throw RequestFailure.malformed("a chunk's data does not end where its size says")
                    }
                    input.removeFirst(length)
                    state = .chunkSize
                case .trailers(let bytes):
                    let budget = maxHeaderBytes - bytes
                    guard let line = try readLine(from: &input, budget: budget, parse: { Array($0) }) else {
                        return .needMore
                    }
                    if line.isEmpty { return .request(finish()) }
                    _ = try RequestHeadGrammar.field(line[...])  // trailer fields are checked, then dropped
                    state = .trailers(bytes: bytes + line.count + 2)
                }
            }
        } catch {
            state = .failed
            input.removeAll()
            return .failure(error)
        }
    }

    // MARK: The head

    /// Reads one line of the head: nil when it is not all there, `.needMore` to go on with the next
    /// line, or the step the end of the head gives.
    private mutating func readHeadLine(from input: inout ByteQueue) throws(RequestFailure) -> Step? {
        let hadRequestLine = requestLine != nil
        let fieldsFull = headers.count >= Self.maxFieldCount
        let budget = maxHeaderBytes - headBytes
        let line: HeadLine
        do throws(RequestFailure) {
            // Each line is read where it lies in the input, not copied out first.
            let read = try readLine(from: &input, budget: budget) { (bytes) throws(RequestFailure) -> HeadLine in
                if bytes.isEmpty { return .empty }
                if !hadRequestLine { return .requestLine(try RequestHeadGrammar.requestLine(bytes), bytes.count) }
                guard !fieldsFull else { throw Self.tooManyFields }
                return .field(try RequestHeadGrammar.field(bytes), bytes.count)
            }
            guard let read else { return nil }
            line = read
        } catch  where error.status == 431 && !hadRequestLine {
            throw RequestFailure(status: 414, reason: "the request line is longer than \(maxHeaderBytes) bytes")
        }
        switch line {
        case .empty where !hadRequestLine:
            // Empty lines before a request line are ignored (RFC 9112, 2.2), within the head's budget.
            headBytes += 2
            return .needMore
        case .requestLine(let parsed, let count):
            headBytes += count + 2
            requestLine = parsed
            return .needMore
        case .field(let field, let count):
            headBytes += count + 2
            headers.add(field.name, field.value)
            return .needMore
        case .empty:
            headBytes += 2
        }
        let version = requestLine?.version ?? .http11
        let framing = try RequestHeadGrammar.framing(headers, version: version, maxBodyBytes: maxBodyBytes)
        let expectsContinue = try RequestHeadGrammar.expectsContinue(headers)
        switch framing {
        case .none:
            return .request(finish())
        case .length(let length):
            body.reserveCapacity(min(length, 1 << 20))
            state = .lengthBody(remaining: length)
        case .chunked:
            state = .chunkSize
        }
        return expectsContinue ? .continueNeeded : .needMore
    }

    /// A line of a head, parsed where it lay, and its length without its ending.
    private enum HeadLine {
        case empty
        case requestLine(RequestHeadGrammar.RequestLine, Int)
        case field(HTTPHeaders.Field, Int)
    }

    private static var tooManyFields: RequestFailure {
        RequestFailure(status: 431, reason: "the head has more than \(Self.maxFieldCount) fields")
    }

    private var tooLarge: RequestFailure {
        RequestFailure(status: 413, reason: "the body is larger than \(maxBodyBytes) bytes")
    }

    private func chunkSize(_ line: ArraySlice<UInt8>) throws(RequestFailure) -> Int {
        try RequestHeadGrammar.chunkSize(line)
    }

    // MARK: Lines and bodies

    /// Splits a line off `input` (ending in LF or CRLF) and parses it, or gives nil when its end has
    /// not arrived. A line that would pass `budget` bytes (its ending included) fails: 431, or 400 for
    /// a chunk-size line; a CR anywhere but before the LF fails with 400.
    private mutating func readLine<Line>(
        from input: inout ByteQueue, budget: Int, parse: (ArraySlice<UInt8>) throws(RequestFailure) -> Line
    ) throws(RequestFailure) -> Line? {
        guard let end = input.firstOffset(of: lineFeed, from: scanned) else {
            scanned = input.count
            if input.count >= budget { throw lineTooLong(budget) }
            return nil
        }
        guard end < budget else { throw lineTooLong(budget) }
        scanned = 0
        let parsed = try input.withBytes(0..<end) { (bytes) throws(RequestFailure) -> Line in
            let line = bytes.last == carriageReturn ? bytes.dropLast() : bytes
            guard !line.contains(carriageReturn) else { throw RequestFailure.malformed("a bare CR in a line") }
            return try parse(line)
        }
        input.removeFirst(end + 1)
        return parsed
    }

    private func lineTooLong(_ budget: Int) -> RequestFailure {
        if case .chunkSize = state { return .malformed("a chunk-size line is longer than \(budget) bytes") }
        return RequestFailure(status: 431, reason: "the head is longer than \(maxHeaderBytes) bytes")
    }

    private mutating func takeBody(from input: inout ByteQueue, upTo remaining: Int) -> Int {
        let count = min(remaining, input.count)
        guard count > 0 else { return 0 }
        input.withBytes(0..<count) { body.append(contentsOf: $0) }
        input.removeFirst(count)
        return count
    }

    /// The request read, and the parser ready for the next one.
    private mutating func finish() -> HTTPServerRequest {
        let line = requestLine ?? .init(method: "", target: "", version: .http11)
        let request = HTTPServerRequest(
            method: line.method, target: line.target, version: line.version, headers: headers, body: body,
            peer: peer)
        state = .head
        scanned = 0
        headBytes = 0
        requestLine = nil
        headers = HTTPHeaders()
        body = Data()
        return request
    }

    private var lineFeed: UInt8 { 0x0A }
    private var carriageReturn: UInt8 { 0x0D }
}
