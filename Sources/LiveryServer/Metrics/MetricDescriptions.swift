import SkinServing

/// The `# HELP` text and `# TYPE` of every series `/metrics` exposes, keyed by series name: the one table they are
/// written in, applied when the exposition is rendered (`annotate`).
///
/// Why not the registry's own help texts: swift-prometheus takes them only through its registry's `make…`
/// methods, and its swift-metrics factory passes none; a registry that meets one name with a second help text stops
/// the process (`fatalError`). Rendering from this table keeps every series created through swift-metrics (as
/// `LiveryMetrics` requires) and gives `promtool check metrics` the HELP line of each family.
enum MetricDescriptions {
    /// A family's type keyword (`counter`, `gauge`, `histogram`) and its help text (one line, no backslash).
    struct Description: Sendable, Equatable {
        let type: String
        let help: String
    }

    /// Every series Livery exports. A name missing here still gets a HELP line (`fallbackHelp`), and a test fails
    /// until it is added.
    static let table: [String: Description] = [
        HTTPMetricsObserver.requestsName: Description(
            type: "counter", help: "HTTP requests answered, by method, route pattern (unmatched for none) and status."),
        HTTPMetricsObserver.durationName: Description(
            type: "histogram",
            help: "Seconds from a request's complete head to its response handed to the connection, by route."),
        HTTPMetricsObserver.bytesName: Description(
            type: "counter", help: "Response bytes sent (head plus body), by route."),
        HTTPMetricsObserver.openConnectionsName: Description(type: "gauge", help: "HTTP connections open now."),
        HTTPMetricsObserver.connectionsName: Description(type: "counter", help: "HTTP connections accepted."),
        HTTPMetricsObserver.refusedName: Description(
            type: "counter", help: "HTTP connections refused with 503 at the connection limit."),
        PackageCacheMetrics.buildsName: Description(type: "counter", help: "Package archives written."),
        PackageCacheMetrics.buildFailuresName: Description(type: "counter", help: "Package builds that failed."),
        PackageCacheMetrics.buildDurationName: Description(
            type: "histogram", help: "Seconds to write one package archive."),
        PackageCacheMetrics.buildBytesName: Description(type: "counter", help: "Bytes of package archives written."),
        PackageCacheMetrics.hitsName: Description(
            type: "counter", help: "Package lookups answered from a package file this process already knew."),
        PackageCacheMetrics.missesName: Description(
            type: "counter", help: "Package lookups that waited for a build or read a file left by an earlier run."),
        ClientMetrics.answersName: Description(
            type: "counter", help: "Poll answers, by the skin answered (empty when no skin applies)."),
        ClientMetrics.upToDateName: Description(
            type: "counter", help: "Polls whose app already had the answered skin's package."),
        ReportIntake.reportsName: Description(
            type: "counter",
            help:
                "Phones' reports counted for the first time by this replica (one per device, package and outcome), by skin, outcome and failed stage (none when applied)."
        ),
        ReportRetention.expiredMetric: Description(
            type: "counter", help: "Phones' reports removed by this replica because they passed their retention."),
        Changes.guardTripsMetric: Description(
            type: "counter",
            help: "Release guards tripped by a write this replica committed, by action (pause, rollback)."),
        GuardNotifier.failuresMetric: Description(
            type: "counter", help: "Guard webhook tries that failed (no answer, or not a 2xx)."),
        AdminChangeCounter.name: Description(
            type: "counter", help: "Changes committed through the admin API, by action."),
        CatalogPublisher.damagedVersionsName: Description(
            type: "gauge", help: "Stored versions found damaged and left out of what is served."),
        LiveryMetrics.processStartTimeName: Description(
            type: "gauge", help: "Start time of the process since unix epoch in seconds."),
        // `serve --scrub-interval` (made in the livery executable, which this target does not see).
        // Request lines `serve` could not write (a standard output that cannot keep up; see RequestLog).
        "livery_log_lines_dropped_total": Description(
            type: "counter", help: "Request log lines dropped because standard output could not keep up."),
        "livery_scrub_runs_total": Description(
            type: "counter", help: "Scrubs of the store and package cache finished."),
        "livery_scrub_damaged": Description(
            type: "gauge", help: "Damage the last scrub found, by kind (blob, version, package)."),
        "livery_scrub_damage_found_total": Description(
            type: "counter",
            help: "Damage found by scrubs, by kind (blob, version, package), counted at every scrub that finds it.")
    ]

    /// The HELP text of a series missing from `table`.
    static func fallbackHelp(_ name: String) -> String { "Livery series \(name)." }

    /// `exposition` (Prometheus text format 0.0.4, as the registry renders it) with, before each family's
    /// `# TYPE` line, its `# HELP` line, and the type from `table`; any HELP line the registry wrote is dropped, so
    /// each family has exactly one. Every other line is kept as it is.
    static func annotate(_ exposition: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(exposition.count + table.count * 96)
        let typePrefix = Array("# TYPE ".utf8)
        let helpPrefix = Array("# HELP ".utf8)
        var start = exposition.startIndex
        while start < exposition.endIndex {
            let end = exposition[start...].firstIndex(of: UInt8(ascii: "\n")) ?? exposition.endIndex
            let line = exposition[start..<end]
            start = end < exposition.endIndex ? end + 1 : end
            if line.starts(with: helpPrefix) { continue }
            guard line.starts(with: typePrefix) else {
                output.append(contentsOf: line)
                output.append(UInt8(ascii: "\n"))
                continue
            }
            let rest = line.dropFirst(typePrefix.count)
            let nameBytes = rest.prefix { $0 != UInt8(ascii: " ") }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let kind = String(decoding: rest.dropFirst(nameBytes.count + 1), as: UTF8.self)
            let description = table[name]
            output.append(contentsOf: helpPrefix)
            output.append(contentsOf: nameBytes)
            output.append(UInt8(ascii: " "))
            appendEscaped(description?.help ?? fallbackHelp(name), to: &output)
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: typePrefix)
            output.append(contentsOf: nameBytes)
            output.append(UInt8(ascii: " "))
            output.append(contentsOf: (description?.type ?? kind).utf8)
            output.append(UInt8(ascii: "\n"))
        }
        return output
    }

    /// A help text as the text format wants it: `\` as `\\` and a line feed as `\n`.
    private static func appendEscaped(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): output.append(contentsOf: Array(#"\\"#.utf8))
            case UInt8(ascii: "\n"): output.append(contentsOf: Array(#"\n"#.utf8))
            default: output.append(byte)
            }
        }
    }
}
