import Foundation
import MockNetwork

/// The `label`s of a `@defer` answer's incremental items, checked against the `@defer`s of the query
/// they answer: where the query labels each of its `@defer`s (Apollo iOS's queries do, and it finds a
/// deferred fragment by its label, else fails with `missingLabel`), each item must carry one of those
/// labels; where a `@defer` has none (urql, graphql-js), an item may have none.
struct DeferredItems: Sendable {
    /// Each item's payload and place (from 1), and its label if it has one.
    let items: [(payload: Int, item: Int, label: String?)]

    init(_ payloads: [String]) {
        var items: [(payload: Int, item: Int, label: String?)] = []
        for (number, text) in payloads.enumerated() {
            let incremental = (try? JSONValue(json: text))?["incremental"]?.arrayValue ?? []
            for (index, item) in incremental.enumerated() {
                items.append((number + 1, index + 1, item["label"]?.stringValue))
            }
        }
        self.items = items
    }

    /// The error of the first item whose label the query `document` does not allow, if any.
    func labelError(for document: String?) -> GraphQLFormatError? {
        guard let document, !items.isEmpty else { return nil }
        let (labels, unlabeled) = Self.defers(in: document)
        guard !labels.isEmpty || unlabeled > 0 else { return nil }
        let listed = labels.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        for (payload, item, label) in items {
            let place = "incremental item \(item) of payload \(payload) of the @defer answer"
            if let label, !labels.contains(label) {
                return .invalidAnswer(
                    "\(place) has the label \"\(label)\", which no @defer of the query carries ("
                        + (labels.isEmpty ? "its @defers carry none" : "it labels \(listed)")
                        + "). Give the item the label of the @defer it answers, or none for an unlabeled @defer.")
            }
            if label == nil, unlabeled == 0 {
                return .invalidAnswer(
                    "\(place) has no label, and the query labels each of its @defers (\(listed)): Apollo iOS "
                        + "finds a deferred fragment by its label, and fails with missingLabel. Give the item the "
                        + #"label of its @defer: {"label": "\#(labels.sorted()[0])", "data": …, "path": […]}."#)
            }
        }
        return nil
    }

    /// The literal labels of `document`'s `@defer`s, and how many have no label (a label given by a
    /// variable counts as none: it can be anything).
    static func defers(in document: String) -> (labels: Set<String>, unlabeled: Int) {
        var labels: Set<String> = []
        var unlabeled = 0
        var rest = Substring(document)
        while let found = rest.range(of: "@defer") {
            rest = rest[found.upperBound...]
            let arguments = rest.drop { $0.isWhitespace }
            guard arguments.first == "(", let close = arguments.firstIndex(of: ")") else {
                unlabeled += 1
                continue
            }
            let inside = arguments[arguments.index(after: arguments.startIndex)..<close]
            if let label = inside.range(of: "label"),
                case let value = inside[label.upperBound...].drop(while: { $0.isWhitespace || $0 == ":" }),
                value.first == "\"", let end = value.dropFirst().firstIndex(of: "\"")
            {
                labels.insert(String(value[value.index(after: value.startIndex)..<end]))
            } else {
                unlabeled += 1
            }
        }
        return (labels, unlabeled)
    }
}
