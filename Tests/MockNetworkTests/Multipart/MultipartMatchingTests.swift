import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Matching on parts (`.part`), and a recorded request's parts and operation.
@Suite struct MultipartMatchingTests {
    private let mocks = MockRegistry()
    private let address = "https://api.example.com/avatar"

    /// A `multipart/form-data` upload with a caption and a file `name`d `avatar`.
    private func upload(filename: String = "me.png", type: String = "image/png") -> URLRequest {
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\"X B\"", forHTTPHeaderField: "Content-Type")
        request.httpBody = crlf(
            """
            --X B
            Content-Disposition: form-data; name="caption"

            At the beach
            --X B
            Content-Disposition: form-data; name="avatar"; filename="\(filename)"
            Content-Type: \(type)

            PNG
            --X B--

            """)
        return request
    }

    private func answer(_ request: URLRequest) async throws -> String {
        String(decoding: try await mocks.session.data(for: request).0, as: UTF8.self)
    }

    @Test func aPartByNameFilenameAndTypeMustBeThere() async throws {
        mocks.register(.url(address).part("avatar"), answer: .text("any avatar"))
        mocks.register(
            .url(address).part("avatar", filename: "me.png", contentType: "IMAGE/PNG").part("caption"),
            answer: .text("my PNG"))

        #expect(try await answer(upload()) == "my PNG")
        #expect(try await answer(upload(type: "image/png; q=1")) == "my PNG")
        #expect(try await answer(upload(filename: "you.png")) == "any avatar")
        #expect(try await answer(upload(type: "image/jpeg")) == "any avatar")
        #expect(mocks.failures.isEmpty)
    }

    @Test func aMissingPartIsWhatTheReportSays() async throws {
        mocks.register(.url(address).part("avatar", contentType: "image/jpeg"), answer: .status(201))

        _ = try? await mocks.session.data(for: upload())
        var plain = URLRequest(url: URL(string: address)!)
        plain.httpMethod = "POST"
        plain.httpBody = Data("hello".utf8)
        _ = try? await mocks.session.data(for: plain)

        let nearest = mocks.failures.map { $0.message.split(separator: "\n")[1] }
        #expect(
            nearest == [
                "Nearest: https://api.example.com/avatar with part avatar type image/jpeg (part avatar type image/png ≠ image/jpeg)",
                "Nearest: https://api.example.com/avatar with part avatar type image/jpeg (part avatar missing: the body is not multipart)",
            ])
    }

    @Test func aRecordedRequestReadsItsPartsAndItsOperation() async throws {
        mocks.register(.url(address), answer: .status(201))
        mocks.register(.graphQL(), answer: .status(200))
        _ = try await mocks.session.data(for: upload())
        _ = try await mocks.session.data(
            for: GraphQLRequests.post(#"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":7}}"#))

        let recorded = mocks.requests
        let parts = try recorded[0].multipartParts
        #expect(parts.map(\.name) == ["caption", "avatar"])
        #expect(parts.map(\.text) == ["At the beach", "PNG"])
        #expect(parts[1].filename == "me.png")
        #expect(recorded[0].graphQLOperation == nil)
        #expect(recorded[1].graphQLOperation?.description == #"query GetUser {"id":7}"#)
        #expect(try recorded[1].graphQLOperations.count == 1)
        #expect(throws: MultipartFormatError.self) { try recorded[1].multipartParts }
    }
}
