/// The latest requests of a registry, never more than its limit: a ring of slots, so that logging
/// one more request past the limit replaces the oldest without moving the others.
struct RequestLog: Sendable {
    private var slots: [RecordedRequest] = []
    /// The slot of the oldest request, once the ring is full.
    private var head = 0
    let limit: Int
    /// How many requests were logged before the oldest one kept: dropped by the limit, or by a reset.
    private(set) var dropped = 0

    init(limit: Int, dropped: Int = 0) {
        self.limit = max(1, limit)
        self.dropped = dropped
    }

    /// How many requests were ever logged, the dropped ones included.
    var total: Int { dropped + slots.count }

    /// Logs `request`; returns its number (0 for the first request ever logged).
    mutating func append(_ request: RecordedRequest) -> Int {
        let number = total
        if slots.count < limit {
            slots.append(request)
        } else {
            slots[head] = request
            head = (head + 1) % limit
            dropped += 1
        }
        return number
    }

    /// The request numbered `number`, changed by `body`, if it is still kept.
    mutating func update(_ number: Int, _ body: (inout RecordedRequest) -> Void) {
        let index = number - dropped
        guard index >= 0, index < slots.count else { return }
        body(&slots[(head + index) % slots.count])
    }

    /// The kept requests, oldest first.
    var all: [RecordedRequest] {
        Array(slots[head...] + slots[..<head])
    }
}
