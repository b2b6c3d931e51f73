import Foundation

/// The lines of each ```swift block of `text` (a README or a DocC article), for the tests that keep
/// snippets the code of a test.
func swiftBlocks(in text: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in text.components(separatedBy: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if current == nil, trimmed == "```swift" {
            current = []
        } else if let lines = current, trimmed == "```" {
            blocks.append(lines)
            current = nil
        } else {
            current?.append(line)
        }
    }
    return blocks
}
