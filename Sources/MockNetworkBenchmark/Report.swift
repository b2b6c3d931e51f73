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

    var symbol: String {
        switch self {
        case .microsecondsPerRequest: "µs/req"
        case .requestsPerSecond: "req/s"
        case .milliseconds: "ms"
        case .microseconds: "µs"
        case .kilobytes: "KB"
        }
    }

    var format: String {
        self == .microsecondsPerRequest ? "%9.2f" : self == .requestsPerSecond ? "%9.0f req/s" : "%9.2f \(symbol)"
    }
}

/// The figures of this run by row number, with the names and units of their rows, and the rows
/// of requests in the order printed.
@MainActor var figures: [String: Double] = [:]
@MainActor var names: [String: String] = [:]
@MainActor var units: [String: String] = [:]
/// Every row kept, in the order printed.
@MainActor var printed: [String] = []
@MainActor var requestRows: [String] = []

func pad(_ text: String) -> String {
    text.count >= 58 ? text : text + String(repeating: " ", count: 58 - text.count)
}

/// The row number a row's name starts with.
func number(of name: String) -> String { String(name.prefix { $0 != " " }) }

/// Prints a row and keeps its figure.
@MainActor func report(_ name: String, _ value: Double, _ unit: Unit = .microsecondsPerRequest) {
    print(pad(name) + String(format: unit.format, value))
    keep(name, value, unit.symbol)
    if unit == .microsecondsPerRequest { requestRows.append(number(of: name)) }
}

/// Keeps a figure of a row printed in a form of its own.
@MainActor func keep(_ name: String, _ value: Double, _ unit: String) {
    if figures[number(of: name)] == nil { printed.append(number(of: name)) }
    figures[number(of: name)] = value
    names[number(of: name)] = name
    units[number(of: name)] = unit
}

/// A figure of this run; a row that did not run reads as not a number, which no comparison meets.
@MainActor func figure(_ row: String) -> Double { figures[row] ?? .nan }
