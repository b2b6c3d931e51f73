import Foundation

/// A check of a response against the request it answers, which a product's builder adds when only
/// the request can tell whether its input is right (GraphQL's `@defer` labels, which the request's
/// document gives). The error it returns fails the request, and the test at `location`, the
/// builder's call.
package struct RequestCheck: Sendable {
    package let location: SourceLocation
    package let check: @Sendable (RecordedRequest) -> (any Error)?

    package init(at location: SourceLocation, _ check: @escaping @Sendable (RecordedRequest) -> (any Error)?) {
        (self.location, self.check) = (location, check)
    }
}
