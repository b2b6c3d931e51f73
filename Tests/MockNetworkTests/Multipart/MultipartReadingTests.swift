import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `text` with each LF made CR LF, as the RFCs' examples are sent.
func crlf(_ text: String) -> Data {
    Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
}

/// Multipart bodies read as RFC 2046 and RFC 7578 frame them: the RFCs' own examples, uploads as
/// clients send them, and each malformed body giving its error.
@Suite struct MultipartReadingTests {
    /// RFC 2046, 5.1.1: a quoted boundary with a space, a preamble, a part without header fields, and an epilogue.
    @Test func rfc2046Example() throws {
        let body = crlf(
            """
            This is the preamble.  It is to be ignored, though it
            is a handy place for composition agents to include an
            explanatory note to non-MIME conformant readers.

            --simple boundary

            This is implicitly typed plain US-ASCII text.
            It does NOT end with a linebreak.
            --simple boundary
            Content-type: text/plain; charset=us-ascii

            This is explicitly typed plain US-ASCII text.
            It DOES end with a linebreak.

            --simple boundary--

            This is the epilogue.  It is also to be ignored.

            """)
        let parts = try MultipartPart.parts(in: body, contentType: #"multipart/mixed; boundary="simple boundary""#)
        #expect(parts.count == 2)
        #expect(parts[0].headers == [:])
        #expect(parts[0].contentType == nil)
        #expect(parts[0].text == "This is implicitly typed plain US-ASCII text.\r\nIt does NOT end with a linebreak.")
        #expect(parts[1].headers == ["Content-type": "text/plain; charset=us-ascii"])
        #expect(parts[1].contentType == "text/plain; charset=us-ascii")
        #expect(parts[1].text == "This is explicitly typed plain US-ASCII text.\r\nIt DOES end with a linebreak.\r\n")
    }

    /// RFC 7578, 4.5 and 4.6: an unquoted boundary, lower-case field names, a charset and `_charset_`.
    @Test func rfc7578Example() throws {
        let body = crlf(
            """
            --AaB03x
            content-disposition: form-data; name="field1"
            content-type: text/plain;charset=UTF-8
            content-transfer-encoding: quoted-printable

            Joe owes =E2=82=AC100.
            --AaB03x
            content-disposition: form-data; name="_charset_"

            iso-8859-1
            --AaB03x--

            """)
        let parts = try MultipartPart.parts(in: body, contentType: "multipart/form-data; boundary=AaB03x")
        #expect(parts.map(\.name) == ["field1", "_charset_"])
        #expect(parts.map(\.text) == ["Joe owes =E2=82=AC100.", "iso-8859-1"])
        #expect(parts[0].contentType == "text/plain;charset=UTF-8")
        #expect(parts[0].header("Content-Transfer-Encoding") == "quoted-printable")
        #expect(parts[0].filename == nil)
        #expect(parts[1].contentType == nil)
    }

    /// A form with a field and a binary file, whose bytes hold CR LF, `--` and the boundary's start.
    @Test func filePartsKeepTheirBytes() throws {
        let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x2D, 0x2D, 0x58, 0x0D, 0x0A, 0xFF, 0x00])
        var body = crlf(
            """
            --X-BOUNDARY
            Content-Disposition: form-data; name="caption"

            At the beach
            --X-BOUNDARY
            Content-Disposition: form-data; name="avatar"; filename="me.png"
            Content-Type: image/png


            """)
        body += image + crlf("\n--X-BOUNDARY--\n")
        let parts = try MultipartPart.parts(in: body, contentType: "multipart/form-data; boundary=X-BOUNDARY")
        #expect(parts.count == 2)
        #expect(parts[0].name == "caption")
        #expect(parts[0].text == "At the beach")
        #expect(parts[1].name == "avatar")
        #expect(parts[1].filename == "me.png")
        #expect(parts[1].contentType == "image/png")
        #expect(parts[1].body == image)
        #expect(parts[1].text == nil)
    }

    /// An upload as Apollo iOS sends it (the GraphQL multipart request spec): `operations`, `map`, then the files.
    @Test func graphQLUploadAsApolloSendsIt() throws {
        let body = crlf(
            #"""
            --apollo-ios.boundary.5A9D
            Content-Disposition: form-data; name="operations"

            {"operationName":"UploadAvatar","query":"mutation UploadAvatar($file: Upload!) { upload(file: $file) { id } }","variables":{"file":null}}
            --apollo-ios.boundary.5A9D
            Content-Disposition: form-data; name="map"

            {"0":["variables.file"]}
            --apollo-ios.boundary.5A9D
            Content-Disposition: form-data; name="0"; filename="a.txt"
            Content-Type: text/plain

            Hello
            --apollo-ios.boundary.5A9D--
            """#)
        var request = URLRequest(url: URL(string: "https://api.example.com/graphql")!)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=apollo-ios.boundary.5A9D", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let parts = try MultipartPart.parts(of: request)
        #expect(parts.map(\.name) == ["operations", "map", "0"])
        #expect(try parts[1].json([String: [String]].self) == ["0": ["variables.file"]])
        #expect(try parts[0].json(JSONValue.self)["variables"] == ["file": nil])
        #expect(parts[2].filename == "a.txt")
        #expect(parts[2].text == "Hello")
    }

    @Test func paddingFoldedAndRepeatedFieldsAndExtendedFilenames() throws {
        let body = crlf(
            """
            --b \t
            Content-Disposition: form-data; name="doc";
             filename="naive.txt"; filename*=UTF-8''na%C3%AFve.txt
            X-Tag: one
            x-tag: two

            body
            --b--\t
            """)
        let parts = try MultipartPart.parts(in: body, contentType: "Multipart/Form-Data; charset=utf-8; BOUNDARY=b")
        #expect(parts.count == 1)
        #expect(parts[0].name == "doc")
        #expect(parts[0].filename == "naïve.txt")
        #expect(parts[0].header("X-TAG") == "one, two")
        #expect(parts[0].text == "body")
    }

    /// A line that starts with the boundary and goes on is no boundary line.
    @Test func aLongerLineIsNoBoundary() throws {
        let body = crlf("--ab\n\n--abc\n--ab-\n--ab--")
        let parts = try MultipartPart.parts(in: body, contentType: "multipart/mixed; boundary=ab")
        #expect(parts.map(\.text) == ["--abc\r\n--ab-"])
    }

    /// Bare LF line breaks throughout, as a hand-written body may have, are read as LF (documented).
    @Test func bareLineFeedsThroughout() throws {
        let body = Data("--b\nContent-Type: text/plain\n\nline one\nline two\n--b\n\nsecond\n--b--\n".utf8)
        let parts = try MultipartPart.parts(in: body, contentType: "multipart/mixed; boundary=b")
        #expect(parts.map(\.text) == ["line one\nline two", "second"])
        #expect(parts[0].contentType == "text/plain")
    }

    @Test func emptyPartsAndPartsWithoutBodies() throws {
        let body = crlf("--b\n\n--b\n--b\nContent-Type: text/plain\n\n--b--")
        let parts = try MultipartPart.parts(in: body, contentType: "multipart/mixed; boundary=b")
        #expect(
            parts == [
                MultipartPart(body: Data()), MultipartPart(body: Data()),
                MultipartPart(headers: ["Content-Type": "text/plain"], body: Data()),
            ])
        #expect(try MultipartPart.parts(in: crlf("--b--"), contentType: "multipart/mixed; boundary=b") == [])
    }
}
