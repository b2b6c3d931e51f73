// How rows are printed and kept: each figure under its row's number (the first word of its name,
// `2k`), for the ratios and the targets at the end of a run.

import Foundation

/// What a row's figure is in, and how it is printed.
enum Unit {
    case microsecondsPerRequest
    case requestsPerSecond
    case milliseconds
    case microseconds
    case kilobytes

    var format: String {
        switch self {
        case .microsecondsPerRequest: "%9.2f"
        case .requestsPerSecond: "%9.0f req/s"
        case .milliseconds: "%9.2f ms"
        case .microseconds: "%9.2f µs"
        case .kilobytes: "%9.2f KB"
        }
    }
}

/// The figures of this run by row number, and the rows of requests in the order printed.
@MainActor var figures: [String: Double] = [:]
@MainActor var requestRows: [String] = []

func pad(_ text: String) -> String {
    text.count >= 58 ? text : text + String(repeating: " ", count: 58 - text.count)
}

/// The row number a row's name starts with.
func number(of name: String) -> String { String(name.prefix { $0 != " " }) }

/// Prints a row and keeps its figure.
@MainActor func report(_ name: String, _ value: Double, _ unit: Unit = .microsecondsPerRequest) {
    print(pad(name) + String(format: unit.format, value))
    keep(name, value)
    if unit == .microsecondsPerRequest { requestRows.append(number(of: name)) }
}

/// Keeps a figure of a row printed in a form of its own.
@MainActor func keep(_ name: String, _ value: Double) {
    figures[number(of: name)] = value
}

/// A figure of this run; a row that did not run reads as not a number, which no comparison meets.
@MainActor func figure(_ row: String) -> Double { figures[row] ?? .nan }
