// The regression guard: each row beside this machine's recorded figure (Baseline.swift), marked
// REGRESSED when it got worse than that by more than the noise seen between runs. It prints and
// fails nothing; CI's short run shows it.

import Foundation

/// How a row is held against its baseline.
enum Measure {
    /// Its µs per request over row 1n's of the same run (URLSession's own cost): load on the
    /// machine moves both alike, so the ratio holds where the figures swing 2-3×.
    case overFloor
    /// Its requests per second over row 4n's of the same run; higher is better.
    case throughputOverFloor
    /// Its requests per second over the named row's of the same run (a server row's floor); higher
    /// is better.
    case throughputOver(String)
    /// The figure itself (ms, µs); lower is better. `noise` is a fraction of the baseline.
    case figure
    /// The figure itself (MB, KB); lower is better. `noise` is in the row's unit, added.
    case growth

    var higherIsBetter: Bool {
        switch self {
        case .throughputOverFloor, .throughputOver: true
        case .overFloor, .figure, .growth: false
        }
    }
}

/// A row's recorded figure and how far from it a run may land by chance.
struct Baseline {
    let row: String
    let measure: Measure
    let value: Double
    let noise: Double

    /// What this run measured, in the baseline's terms.
    @MainActor var measured: Double {
        switch measure {
        case .overFloor: figure(row) / figure("1n")
        case .throughputOverFloor: figure(row) / figure("4n")
        case .throughputOver(let floor): figure(row) / figure(floor)
        case .figure, .growth: figure(row)
        }
    }

    /// The worst a run may measure before it counts as a regression.
    var limit: Double {
        switch measure {
        case .overFloor, .figure: value * (1 + noise)
        case .throughputOverFloor, .throughputOver: value * (1 - noise)
        case .growth: value + noise
        }
    }

    func isWorse(_ measured: Double, than bound: Double) -> Bool {
        measure.higherIsBetter ? measured < bound : measured > bound
    }

    @MainActor func describe(_ value: Double) -> String {
        switch measure {
        case .overFloor: String(format: "%.2f× 1n", value)
        case .throughputOverFloor: String(format: "%.2f× 4n", value)
        case .throughputOver(let floor): String(format: "%.2f× %@", value, floor)
        case .figure, .growth: String(format: "%.2f ", value) + (units[row] ?? "")
        }
    }
}

/// Prints each row of this run that is worse than its baseline: within noise, or REGRESSED.
/// `requests` picks the baseline (the figures of a row over its floor depend on how many requests
/// it makes); `rows`, when given, limits the rows compared.
@MainActor func regressions(requests: Int?, rows: Set<String>? = nil) {
    var baselines = Baselines.anyRun
    var note = ""
    if let requests {
        if let recorded = Baselines.byRequests[requests] {
            baselines += recorded
        } else {
            let counts = Baselines.byRequests.keys.sorted().map(String.init).joined(separator: ", ")
            note = "; the rows over their floor have a baseline for runs of \(counts) requests a row only"
        }
    }
    if let rows { baselines = baselines.filter { rows.contains($0.row) } }
    baselines.sort { (printed.firstIndex(of: $0.row) ?? .max) < (printed.firstIndex(of: $1.row) ?? .max) }
    var better = 0
    var lines: [String] = []
    var regressed = 0
    for baseline in baselines {
        let measured = baseline.measured
        guard measured.isFinite else { continue }
        if baseline.isWorse(measured, than: baseline.limit) {
            regressed += 1
            lines.append(mark(baseline, measured, "REGRESSED"))
        } else if baseline.isWorse(measured, than: baseline.value) {
            lines.append(mark(baseline, measured, "worse, within noise"))
        } else {
            better += 1
        }
    }
    print(
        "against this machine's baseline (Baselines.swift): \(better) rows as good or better, "
            + "\(lines.count - regressed) worse within noise, \(regressed) REGRESSED" + note + busyNote())
    for line in lines { print(line) }
}

/// A note when other work shared the cores during the run: the baseline was recorded on a quieter
/// machine, and MockNetwork's thread hops suffer from it more than URLSession's own path does.
func busyNote() -> String {
    var loads = [0.0]
    let cores = ProcessInfo.processInfo.activeProcessorCount
    guard getloadavg(&loads, 1) == 1, loads[0] > Double(cores) else { return "" }
    return String(
        format: " (load %.1f on %d cores during the run: other work shared them, so read marks with care)", loads[0],
        cores)
}

@MainActor private func mark(_ baseline: Baseline, _ measured: Double, _ verdict: String) -> String {
    pad("  " + (names[baseline.row] ?? baseline.row)) + baseline.describe(measured)
        + " (baseline \(baseline.describe(baseline.value)), limit \(baseline.describe(baseline.limit))) \(verdict)"
}

/// Prints this run's figures in the baseline's terms, to record a new baseline from.
@MainActor func figuresForBaseline(requests: Int?) {
    var baselines = Baselines.anyRun
    if let requests { baselines += Baselines.byRequests[requests] ?? Baselines.byRequests[2_000] ?? [] }
    // Rows not recorded yet too, so a quiet run gives every figure to record.
    let recorded = Set(baselines.map(\.row))
    baselines += ["5", "7", "8", "10", "10a"].filter { !recorded.contains($0) }.map {
        Baseline(row: $0, measure: .figure, value: 0, noise: 0)
    }
    let values = baselines.filter { $0.measured.isFinite }.map { "\($0.row)=" + String(format: "%.3f", $0.measured) }
    print("for Baselines.swift: " + values.joined(separator: " "))
}
