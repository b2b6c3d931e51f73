import Foundation
import MockNetwork
import Testing

/// Thousands of random bodies and content types through the multipart reader: each gives parts or
/// a `MultipartFormatError`, never a crash; what the writer writes, the reader reads back.
@Suite struct MultipartFuzzTests {
    private let tokens = [
        "--b", "--b--", "\r\n", "\n", "\r", " ", "\t", "Content-Type: text/plain",
        "Content-Disposition: form-data; name=\"f\"",
        "filename*=UTF-8''%C3%A9", ":", ";", "\"", "x", "--", "b", "\r\n\r\n", "é",
    ]
    private let contentTypes = [
        "multipart/form-data; boundary=b", #"multipart/mixed; boundary="b""#, "multipart/mixed; boundary=\"b",
        "multipart/x; boundary=", "multipart/mixed", "text/plain", "", ";;;=", "multipart/mixed; boundary=\"\\\"",
    ]

    @Test func randomBodiesGivePartsOrAnError() {
        var input = FuzzInput(seed: 2046)
        for round in 0..<4_000 {
            let body = round % 2 == 0 ? input.bytes(upTo: 120) : input.splice(tokens, upTo: 40)
            let contentType =
                round % 7 == 0
                ? String(decoding: input.bytes(upTo: 30), as: UTF8.self) : contentTypes.randomElement(using: &input)!
            do {
                let parts = try MultipartPart.parts(in: body, contentType: contentType)
                for part in parts { _ = (part.name, part.filename, part.contentType, part.text) }
            } catch  where !(error is MultipartFormatError) {
                Issue.record("an error that is not documented: \(error)")
            } catch {}
        }
    }

    @Test func whatTheWriterWritesTheReaderReadsBack() throws {
        var input = FuzzInput(seed: 7578)
        for _ in 0..<500 {
            let parts = (0..<Int.random(in: 1...4, using: &input)).map { _ in
                MultipartPart(
                    headers: ["Content-Type": "application/octet-stream", "X-N": "\(input.next() % 100)"],
                    body: input.bytes(upTo: 60))
            }
            guard let pieces = try? MultipartPart.framed(parts, boundary: "fuzz'boundary") else { continue }
            let read = try MultipartPart.parts(
                in: pieces.reduce(Data(), +), contentType: "multipart/mixed; boundary=\"fuzz'boundary\"")
            if read != parts { Issue.record("read back \(read), wrote \(parts)") }
        }
    }
}
