// The end of a run: ratios between rows, and the targets, each ratio beside its floor.

import Foundation

/// Prints the ratios between rows of this run, marks each target met or missed, and each row
/// worse than this machine's baseline for runs of `requests` requests a row.
@MainActor func ratiosAndTargets(requests: Int) {
    print("")
    let ratios = requestRows.map { row in "row \(row) " + String(format: "%.2f×", figure(row) / figure("1")) }
    print("ratios to row 1: " + ratios.joined(separator: ", "))
    print(String(format: "row 3 / row 2: %.2f×", figure("3") / figure("2")))
    print(
        String(
            format: "over URLSession's own cost (row 1n): row 2 %.2f×, row 2a %.2f×", figure("2") / figure("1n"),
            figure("2a") / figure("1n")))
    print(
        String(
            format: "async handler / handler: row 2c / row 2 %.2f×; stream / one piece: row 2s / row 2d %.2f×",
            figure("2c") / figure("2"), figure("2s") / figure("2d")))
    print(
        String(
            format: "patterns / row 2: 3p %.2f×, 3q %.2f×, 3r %.2f×; templates / row 2: 3t %.2f×",
            figure("3p") / figure("2"), figure("3q") / figure("2"), figure("3r") / figure("2"),
            figure("3t") / figure("2")))
    serverRatios()
    // The targets at URLSession's own cost, each row beside its floor (ratios from this run).
    func mark(_ name: String, _ ratio: Double, _ target: Double, atMost: Bool = true) {
        let met = atMost ? ratio <= target : ratio >= target
        print(
            pad("  " + name)
                + String(
                    format: "%5.2f× (target %@ %.2f×) %@", ratio, atMost ? "≤" : "≥", target, met ? "met" : "MISSED"))
    }
    print("targets:")
    mark("2a sequence / 1n", figure("2a") / figure("1n"), 1.05)
    mark("2k constant answer / 1n", figure("2k") / figure("1n"), 1.05)
    mark("2k constant answer / 1q (the same delegate queue)", figure("2k") / figure("1q"), 1.05)
    mark("2 handler / 1n", figure("2") / figure("1n"), 1.15)
    mark("2c async handler / 2", figure("2c") / figure("2"), 1.15)
    mark("2b trait's path / 2", figure("2b") / figure("2"), 1.10)
    mark("3g GraphQL operation among 1,000 / 3h exact URL", figure("3g") / figure("3h"), 1.15)
    mark("4o 1 registry, 8 tasks / 4n (req/s)", figure("4o") / figure("4n"), 0.95, atMost: false)
    mark("4m 8 registries / 4n (req/s)", figure("4m") / figure("4n"), 0.95, atMost: false)
    registrationTargets()
    serverTargets()
    regressions(requests: requests)
    figuresForBaseline(requests: requests)
}

/// Rows 5e, 5u and 5m beside the time each should take at most.
@MainActor func registrationTargets() {
    for form in RegistrationForm.allCases {
        let value = figure(form.rawValue)
        print(
            pad("  " + form.name)
                + String(
                    format: "%5.2f ms (target ≤ %.0f ms) %@", value, form.target,
                    value <= form.target ? "met" : "MISSED"))
    }
}
