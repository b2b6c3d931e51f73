// A streamed answer's timing over a plain socket: when its first byte came, and when each chunk did.

import Foundation

/// When a chunked answer's parts arrived, in seconds after its request was sent.
struct StreamTiming {
    /// The first byte of the answer (its head).
    var firstByte: Double
    /// The last byte of each chunk of data, in order (the last chunk, of size 0, left out).
    var chunks: [Double]
}

/// Sends `GET <path>` on a new connection to 127.0.0.1:`port` and times the chunked answer.
func timeStreamedAnswer(port: Int, path: String) throws -> StreamTiming {
    let fd = try LoopbackSockets.connect(port: port)
    defer { LoopbackSockets.close(fd) }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
    var received: [UInt8] = []
    // After each read: how many bytes had arrived, and when.
    var arrivals: [(bytes: Int, time: Double)] = []
    let start = DispatchTime.now().uptimeNanoseconds
    guard request.withUnsafeBytes({ LoopbackSockets.sendAll(fd, $0) }) else {
        throw BenchmarkError(description: "the server closed the connection")
    }
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        let count = buffer.withUnsafeMutableBytes { LoopbackSockets.receive(fd, into: $0) }
        guard count > 0 else { throw BenchmarkError(description: "the stream ended before its last chunk") }
        received += buffer[..<count]
        arrivals.append((received.count, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        if let ends = chunkEnds(received) {
            let times = ends.map { end in arrivals.first { $0.bytes >= end }!.time }
            return StreamTiming(firstByte: arrivals[0].time, chunks: times)
        }
    }
}

/// The offsets just past each chunk's data in a whole chunked answer, or nil until its last chunk
/// (`0\r\n\r\n`) is in.
private func chunkEnds(_ bytes: [UInt8]) -> [Int]? {
    let crlf: [UInt8] = [0x0D, 0x0A]
    func lineEnd(from offset: Int) -> Int? {
        guard offset + 1 < bytes.count else { return nil }
        return (offset..<(bytes.count - 1)).first { bytes[$0] == crlf[0] && bytes[$0 + 1] == crlf[1] }
    }
    // The head ends with an empty line.
    guard bytes.count >= 4,
        let headEnd = (3..<bytes.count).first(where: { bytes[($0 - 3)...$0].elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) })
    else { return nil }
    var offset = headEnd + 1
    var ends: [Int] = []
    while let end = lineEnd(from: offset) {
        let size = Int(String(decoding: bytes[offset..<end], as: UTF8.self), radix: 16) ?? -1
        guard size >= 0 else { return nil }
        if size == 0 { return bytes.count >= end + 4 ? ends : nil }
        let dataEnd = end + 2 + size
        guard dataEnd + 2 <= bytes.count else { return nil }
        ends.append(dataEnd)
        offset = dataEnd + 2
    }
    return nil
}
