import Foundation

/// A multipart body that cannot be read or written as RFC 2046 says; each message says what is wrong
/// and how to fix it.
public enum MultipartFormatError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The `Content-Type` (`nil` when there is none) is no `multipart/…` type.
    case notMultipart(contentType: String?)
    /// The `Content-Type` is multipart but has no `boundary` parameter.
    case missingBoundary(contentType: String)
    /// The body has no line `--boundary` opening a first part.
    case boundaryNotFound(boundary: String)
    /// The body ends before its closing line `--boundary--`.
    case missingFinalBoundary(boundary: String)
    /// A part (counted from 1) has no blank line after its header fields.
    case missingBlankLine(part: Int)
    /// A line of a part's header fields (the part counted from 1) that is no `name: value`.
    case malformedHeader(part: Int, line: String)
    /// Parts that cannot be written as a multipart body; says why.
    case unwritable(String)

    /// What went wrong, then how to fix it.
    public var description: String {
        switch self {
        case .notMultipart(let contentType?):
            "MockNetwork: the Content-Type \"\(contentType)\" is no multipart type, so the body has no parts. "
                + "Read the parts of a body sent as multipart/form-data or multipart/mixed."
        case .notMultipart(nil):
            "MockNetwork: the request has no Content-Type, so its body has no parts. Send a multipart body "
                + "with its Content-Type, e.g. multipart/form-data; boundary=\"…\"."
        case .missingBoundary(let contentType):
            "MockNetwork: the Content-Type \"\(contentType)\" names no boundary, so the parts cannot be told "
                + "apart. Give the boundary the body is written with: \(contentType); boundary=\"…\"."
        case .boundaryNotFound(let boundary):
            "MockNetwork: the body has no line \"--\(boundary)\" opening its first part: it was written with "
                + "another boundary than the Content-Type names, or it is empty. Send the body with the boundary "
                + "of its Content-Type, each part after a line of \"--\" and the boundary."
        case .missingFinalBoundary(let boundary):
            "MockNetwork: the body ends before its closing line \"--\(boundary)--\": it was cut short, or a "
                + "boundary line is not at the start of a line. End the last part with a line break and "
                + "\"--\(boundary)--\"."
        case .missingBlankLine(let part):
            "MockNetwork: part \(part) has no blank line after its header fields, so where its body starts is "
                + "unknown. Put an empty line (CR LF CR LF) between a part's header fields and its body, even "
                + "when it has no fields."
        case .malformedHeader(let part, let line):
            "MockNetwork: the line \"\(MockRegistry.shortened(line))\" among the header fields of part \(part) is "
                + "no field (name: value). Write each field on a line of its own, and a blank line before the body."
        case .unwritable(let reason):
            "MockNetwork: \(reason)"
        }
    }

    /// The ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
