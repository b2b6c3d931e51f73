import Testing

/// The suites that measure time, or keep every core busy on purpose: they run one after another,
/// never beside each other (the rest of the run goes on beside them). Beside `FireAndForgetTests`,
/// whose spinning threads take both cores here, the stress test's ordinary requests were measured at
/// a p99 of 70-80 ms instead of under 50.
@Suite(.serialized) enum TimingSensitive {}
