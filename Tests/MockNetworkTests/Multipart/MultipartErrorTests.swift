import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each malformed multipart body gives its own error, whose message says what is wrong and how to fix it.
@Suite struct MultipartErrorTests {
    private func error(_ body: String, _ contentType: String = "multipart/form-data; boundary=AaB03x")
        -> MultipartFormatError?
    {
        do {
            _ = try MultipartPart.parts(in: crlf(body), contentType: contentType)
            return nil
        } catch {
            return error as? MultipartFormatError
        }
    }

    @Test func contentTypeWithoutMultipartOrBoundary() {
        #expect(error("", "application/json") == .notMultipart(contentType: "application/json"))
        #expect(error("", "multipart/form-data") == .missingBoundary(contentType: "multipart/form-data"))
        #expect(
            error("", #"multipart/form-data; boundary="""#)
                == .missingBoundary(contentType: #"multipart/form-data; boundary="""#))
        #expect(
            MultipartFormatError.missingBoundary(contentType: "multipart/form-data").description
                == "MockNetwork: the Content-Type \"multipart/form-data\" names no boundary, so the parts cannot be "
                + "told apart. Give the boundary the body is written with: multipart/form-data; boundary=\"…\".")
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.httpBody = Data("x".utf8)
        #expect(throws: MultipartFormatError.notMultipart(contentType: nil)) { try MultipartPart.parts(of: request) }
    }

    @Test func boundaryNotFound() {
        #expect(error("--OtherBoundary\n\nx\n--OtherBoundary--") == .boundaryNotFound(boundary: "AaB03x"))
        #expect(error("") == .boundaryNotFound(boundary: "AaB03x"))
        // Not at the start of a line: no boundary line.
        #expect(error("text --AaB03x\n\nx\n") == .boundaryNotFound(boundary: "AaB03x"))
        #expect(
            MultipartFormatError.boundaryNotFound(boundary: "AaB03x").description
                == "MockNetwork: the body has no line \"--AaB03x\" opening its first part: it was written with "
                + "another boundary than the Content-Type names, or it is empty. Send the body with the boundary "
                + "of its Content-Type, each part after a line of \"--\" and the boundary.")
    }

    @Test func missingFinalBoundary() {
        #expect(
            error("--AaB03x\ncontent-disposition: form-data; name=\"a\"\n\nvalue")
                == .missingFinalBoundary(boundary: "AaB03x"))
        #expect(error("--AaB03x\n\nvalue\n--AaB03x") == .missingFinalBoundary(boundary: "AaB03x"))
        #expect(error("--AaB03x\n\nvalue--AaB03x--") == .missingFinalBoundary(boundary: "AaB03x"))
        #expect(
            MultipartFormatError.missingFinalBoundary(boundary: "AaB03x").description
                == "MockNetwork: the body ends before its closing line \"--AaB03x--\": it was cut short, or a "
                + "boundary line is not at the start of a line. End the last part with a line break and \"--AaB03x--\"."
        )
    }

    @Test func noBlankLineAfterTheHeaders() {
        #expect(
            error("--AaB03x\n\nfine\n--AaB03x\ncontent-disposition: form-data; name=\"a\"\nvalue\n--AaB03x--")
                == .missingBlankLine(part: 2))
        #expect(error("--AaB03x\ncontent-disposition: form-data\n--AaB03x--") == .missingBlankLine(part: 1))
        #expect(error("--AaB03x\ncontent-disposition: form-data\n\n--AaB03x--") == nil)  // fields, no body: allowed
        #expect(
            MultipartFormatError.missingBlankLine(part: 2).description
                == "MockNetwork: part 2 has no blank line after its header fields, so where its body starts is "
                + "unknown. Put an empty line (CR LF CR LF) between a part's header fields and its body, even when "
                + "it has no fields.")
    }

    @Test func aHeaderLineThatIsNoField() {
        #expect(
            error("--AaB03x\ncontent-disposition: form-data; name=\"a\"\nno colon here\n\nvalue\n--AaB03x--")
                == .malformedHeader(part: 1, line: "no colon here"))
        #expect(error("--AaB03x\n: value\n\nx\n--AaB03x--") == .malformedHeader(part: 1, line: ": value"))
        #expect(
            MultipartFormatError.malformedHeader(part: 1, line: "no colon here").description
                == "MockNetwork: the line \"no colon here\" among the header fields of part 1 is no field "
                + "(name: value). Write each field on a line of its own, and a blank line before the body.")
    }

    @Test func partThatIsNotTheJSONAskedFor() throws {
        let part = MultipartPart(headers: ["Content-Disposition": #"form-data; name="map""#], body: Data("[1]".utf8))
        #expect(throws: MockNetworkError.self) { try part.json([String: Int].self) }
        #expect(try part.json(JSONValue.self) == [1])
    }
}
