// This machine's figures, for the regression guard (Regressions.swift).

/// Figures of the machine this package is developed on (Linux, 2 cores, release build), in the
/// guard's terms: requests over their floor, registration in ms. Each is the median of the runs
/// made while the machine was as quiet as it got while they were recorded (1-minute load 1.3 to
/// 3.5; other sessions were building), with the noise allowed before a row counts as REGRESSED:
/// about 1.5 times the spread between those runs, and never less than 30% (40% for registration's
/// medians).
///
/// The short run's rows over their floor come from four short runs of 082fbc6's request path,
/// registration from three runs of 4749b64's. A short run (2,000 requests a row, CI's) swings far
/// more than a full one, so it flags a row only when it got about 1.5 to 2 times as slow. The full
/// run's rows over their floor, rows 5, 7, 8, 10 and 10a, and the rows over HTTP come from three full
/// runs one after the other on 26 November 2026 (load 1.1 to 1.4; BENCHMARKS.md quotes them). To
/// record again: three runs of each length on a quiet machine, then the medians of their
/// `for Baselines.swift:` lines.
enum Baselines {
    /// Rows whose figures do not depend on how many requests a row makes.
    static let anyRun: [Baseline] = [
        Baseline(row: "5e", measure: .figure, value: 9.65, noise: 0.45),
        Baseline(row: "5u", measure: .figure, value: 16.6, noise: 0.4),
        Baseline(row: "5m", measure: .figure, value: 10.4, noise: 0.45),
        Baseline(row: "9", measure: .figure, value: 3.56, noise: 1.4),
        Baseline(row: "6", measure: .growth, value: 0, noise: 2),
        Baseline(row: "5", measure: .figure, value: 10.4, noise: 0.4),
        Baseline(row: "7", measure: .figure, value: 4.45, noise: 1.05),
        Baseline(row: "8", measure: .figure, value: 1.56, noise: 0.4),
        Baseline(row: "10", measure: .figure, value: 43.0, noise: 0.4),
        Baseline(row: "10a", measure: .figure, value: 71.2, noise: 0.4),
        // Over HTTP with 8 connections, over the minimal socket server of the same run: the medians of
        // the three full runs (20,000 requests a row); short runs (5,000) came out alike. The rows with 1
        // connection swing too much between runs (2-4×, the floor most) to hold.
        Baseline(row: "13e", measure: .throughputOver("13f"), value: 0.56, noise: 0.4),
        Baseline(row: "13", measure: .throughputOver("13f"), value: 0.44, noise: 0.4),
    ]

    /// Rows over their floor, by the requests a row makes.
    static let byRequests: [Int: [Baseline]] = [
        2_000: overFloor([
            "2": (2.05, 0.45), "3": (2.10, 0.6), "2a": (1.64, 0.3), "2b": (2.16, 0.7), "3p": (2.12, 0.7),
            "3q": (2.09, 0.55), "3r": (1.98, 0.65), "2c": (2.14, 0.6), "2s": (10.3, 1.3), "2d": (2.83, 1.0),
            "3t": (2.02, 0.6), "2k": (1.65, 0.3), "4": (1.65, 0.65), "10b": (1.50, 1.75),
        ]) + [
            Baseline(row: "4o", measure: .throughputOverFloor, value: 0.480, noise: 0.5),
            Baseline(row: "4m", measure: .throughputOverFloor, value: 0.496, noise: 0.5),
            Baseline(row: "11", measure: .growth, value: 0.10, noise: 1),
        ],
        20_000: overFloor([
            "2": (1.33, 0.3), "3": (1.36, 0.3), "2a": (1.15, 0.3), "2b": (1.36, 0.3), "3p": (1.49, 0.3),
            "3q": (1.44, 0.3), "3r": (1.36, 0.3), "2c": (1.37, 0.3), "2s": (12.3, 0.3), "2d": (2.19, 0.3),
            "3t": (1.40, 0.3), "2k": (1.10, 0.3), "4": (1.76, 0.45), "10b": (1.31, 0.31),
        ]) + [
            Baseline(row: "4o", measure: .throughputOverFloor, value: 0.764, noise: 0.3),
            Baseline(row: "4m", measure: .throughputOverFloor, value: 0.855, noise: 0.3),
        ],
    ]

    private static func overFloor(_ figures: [String: (value: Double, noise: Double)]) -> [Baseline] {
        figures.sorted { $0.key < $1.key }.map {
            Baseline(row: $0.key, measure: .overFloor, value: $0.value.value, noise: $0.value.noise)
        }
    }
}
