import Foundation
import MockNetwork
import Testing

/// Parts written as a `multipart/mixed` body: one piece per part, each ending with the boundary
/// line after it, read back as they were.
@Suite struct MultipartWritingTests {
    private let parts = [
        MultipartPart(headers: ["Content-Type": "application/json", "X-Part": "1"], body: Data(#"{"id":7}"#.utf8)),
        MultipartPart(body: Data("no fields".utf8)),
    ]

    @Test func piecesEndWithTheBoundaryLineAfterTheirPart() throws {
        let pieces = try MultipartPart.framed(parts, boundary: "graphql")
        #expect(
            pieces.map { String(decoding: $0, as: UTF8.self) } == [
                "\r\n--graphql\r\nContent-Type: application/json\r\nX-Part: 1\r\n\r\n{\"id\":7}\r\n--graphql",
                "\r\n\r\nno fields\r\n--graphql--\r\n",
            ])
        let read = try MultipartPart.parts(
            in: pieces.reduce(Data(), +), contentType: "multipart/mixed; boundary=graphql")
        #expect(read == parts)
    }

    @Test func anAnswerAtOnce() throws {
        let response = MockResponse.multipart(parts, boundary: "simple boundary", status: 207)
        #expect(response.status == 207)
        #expect(response.headers["Content-Type"] == #"multipart/mixed; boundary="simple boundary""#)
        #expect(response.body == (try MultipartPart.framed(parts, boundary: "simple boundary")).reduce(Data(), +))
        #expect(try MultipartPart.parts(in: response.body, contentType: response.headers["Content-Type"]!) == parts)
        let own = MockResponse.multipart(parts, headers: ["content-type": "multipart/related; boundary=x"])
        #expect(own.headers == ["content-type": "multipart/related; boundary=x"])
    }

    @Test func partsThatCannotBeWritten() {
        #expect(throws: MultipartFormatError.self) { try MultipartPart.framed([], boundary: "b") }
        for boundary in ["", String(repeating: "a", count: 71), "ends with space ", "semi;colon", "quote\""] {
            #expect(throws: MultipartFormatError.self) { try MultipartPart.framed(parts, boundary: boundary) }
        }
        #expect(throws: Never.self) { try MultipartPart.framed(parts, boundary: String(repeating: "a", count: 70)) }
        let holdsBoundary = MultipartPart(body: Data("a\r\n--b\r\nc".utf8))
        #expect(
            throws: MultipartFormatError.unwritable(
                "part 1's body holds a line \"--b\", which would end it there. Choose a boundary that none of the "
                    + "bodies holds.")
        ) { try MultipartPart.framed([holdsBoundary], boundary: "b") }
        #expect(throws: MultipartFormatError.self) {
            try MultipartPart.framed([MultipartPart(body: Data("--b".utf8))], boundary: "b")
        }
        for headers in [["Bad Name": "x"], ["X": "line\r\nbreak"], ["": "x"]] {
            #expect(throws: MultipartFormatError.self) {
                try MultipartPart.framed([MultipartPart(headers: headers, body: Data())], boundary: "b")
            }
        }
        #expect(
            MultipartFormatError.unwritable("x.").description == "MockNetwork: x.")
    }
}
