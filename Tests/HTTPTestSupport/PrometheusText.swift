import Foundation

/// A strict parser of the Prometheus text exposition format 0.0.4, written for the tests (independent of the
/// swift-prometheus code that emits it).
///
/// It rejects what a Prometheus server would: a sample line that does not parse, an invalid metric or label name,
/// a bad escape, a value that is not a float, a sample whose family has no `# TYPE` line before it, two `# TYPE`
/// lines for one family, the same series twice, and histograms whose buckets are not cumulative or whose `+Inf`
/// bucket differs from `_count`.
public struct PrometheusText: Sendable {
    /// One sample line.
    public struct Sample: Sendable, Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    /// Family name to type (`counter`, `gauge`, `histogram`, `summary`, `untyped`).
    public private(set) var types: [String: String] = [:]
    /// Every sample, in order.
    public private(set) var samples: [Sample] = []

    /// Parses `text`, throwing `TestClientError` with the line number on the first problem.
    public init(_ text: String) throws {
        var seen = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            func fail(_ problem: String) -> TestClientError {
                TestClientError("line \(index + 1): \(problem): \(line)")
            }
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 2, parts[0] == "#" else { continue }  // a plain comment
                if parts[1] == "TYPE" {
                    guard parts.count == 4, Self.isMetricName(parts[2]),
                        ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3])
                    else { throw fail("bad TYPE line") }
                    guard types[String(parts[2])] == nil else { throw fail("second TYPE line for the family") }
                    types[String(parts[2])] = String(parts[3])
                } else if parts[1] == "HELP" {
                    guard parts.count >= 3, Self.isMetricName(parts[2]) else { throw fail("bad HELP line") }
                }
                continue
            }
            let sample = try Self.parseSample(line).get(orThrow: fail)
            guard family(of: sample.name) != nil else { throw fail("sample before its family's TYPE line") }
            let identity =
                sample.name + "{"
                + sample.labels.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: ",") + "}"
            guard seen.insert(identity).inserted else { throw fail("duplicate series") }
            samples.append(sample)
        }
        try checkHistograms()
    }

    /// The family a sample name belongs to (`x_bucket` belongs to histogram `x`).
    public func family(of name: String) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_count", "_sum"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if let type = types[base], type == "histogram" || type == "summary" { return base }
        }
        return nil
    }

    /// The value of the one sample named `name` whose labels include `labels`; nil if none, error if several.
    public func value(_ name: String, _ labels: [String: String] = [:]) throws -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        guard matching.count <= 1 else { throw TestClientError("\(matching.count) samples match \(name) \(labels)") }
        return matching.first?.value
    }

    /// The value of `name` with `labels`, 0 when the series does not exist yet.
    public func count(_ name: String, _ labels: [String: String] = [:]) throws -> Double {
        try value(name, labels) ?? 0
    }

    private func checkHistograms() throws {
        for (family, type) in types where type == "histogram" {
            var series: [String: [(le: Double, count: Double)]] = [:]
            for sample in samples where sample.name == family + "_bucket" {
                guard let leText = sample.labels["le"], let le = Self.parseFloat(leText) else {
                    throw TestClientError("\(family): bucket without a valid le")
                }
                var rest = sample.labels
                rest["le"] = nil
                series[Self.key(rest), default: []].append((le, sample.value))
            }
            for (key, buckets) in series {
                let sorted = buckets.sorted { $0.le < $1.le }
                guard sorted.last?.le == .infinity else { throw TestClientError("\(family){\(key)}: no +Inf bucket") }
                for (earlier, later) in zip(sorted, sorted.dropFirst()) where later.count < earlier.count {
                    throw TestClientError("\(family){\(key)}: buckets are not cumulative")
                }
                let count = samples.first { $0.name == family + "_count" && Self.key($0.labels) == key }
                guard let count, count.value == sorted.last?.count else {
                    throw TestClientError("\(family){\(key)}: _count differs from the +Inf bucket")
                }
                guard samples.contains(where: { $0.name == family + "_sum" && Self.key($0.labels) == key }) else {
                    throw TestClientError("\(family){\(key)}: no _sum")
                }
            }
        }
    }

    private static func key(_ labels: [String: String]) -> String {
        labels.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: ",")
    }

    static func isMetricName<S: StringProtocol>(_ name: S) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first == ":" || isLetter(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0 == ":" || isLetter($0) || isDigit($0) }
    }

    static func isLabelName<S: StringProtocol>(_ name: S) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || isLetter($0) || isDigit($0) }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    static func parseFloat(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.isEmpty, text.allSatisfy({ "0123456789.eE+-".contains($0) }) else { return nil }
            return Double(text)
        }
    }

    /// `name{label="value",...} value [timestamp]`.
    static func parseSample(_ line: String) -> Result<Sample, SampleProblem> {
        let scalars = Array(line.unicodeScalars)
        var index = 0
        var name = ""
        while index < scalars.count, scalars[index] != "{", scalars[index] != " " {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard isMetricName(name) else { return .failure(SampleProblem("bad metric name")) }
        var labels: [String: String] = [:]
        if index < scalars.count, scalars[index] == "{" {
            index += 1
            while true {
                guard index < scalars.count else { return .failure(SampleProblem("unterminated labels")) }
                if scalars[index] == "}" {
                    index += 1
                    break
                }
                var label = ""
                while index < scalars.count, scalars[index] != "=" {
                    label.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard isLabelName(label), labels[label] == nil else {
                    return .failure(SampleProblem("bad or repeated label name"))
                }
                guard index + 1 < scalars.count, scalars[index + 1] == "\"" else {
                    return .failure(SampleProblem("label value not quoted"))
                }
                index += 2
                var value = ""
                while true {
                    guard index < scalars.count else { return .failure(SampleProblem("unterminated label value")) }
                    let scalar = scalars[index]
                    if scalar == "\"" { break }
                    if scalar == "\\" {
                        guard index + 1 < scalars.count else { return .failure(SampleProblem("dangling escape")) }
                        switch scalars[index + 1] {
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        case "n": value += "\n"
                        default: return .failure(SampleProblem("bad escape"))
                        }
                        index += 2
                        continue
                    }
                    guard scalar != "\n" else { return .failure(SampleProblem("raw newline in label value")) }
                    value.unicodeScalars.append(scalar)
                    index += 1
                }
                index += 1
                labels[label] = value
                if index < scalars.count, scalars[index] == "," { index += 1 }
            }
        }
        guard index < scalars.count, scalars[index] == " " else { return .failure(SampleProblem("no value")) }
        let rest = String(String.UnicodeScalarView(scalars[(index + 1)...])).split(separator: " ")
        guard rest.count == 1 || rest.count == 2, let value = parseFloat(String(rest[0])) else {
            return .failure(SampleProblem("bad value"))
        }
        if rest.count == 2, Int64(rest[1]) == nil { return .failure(SampleProblem("bad timestamp")) }
        return .success(Sample(name: name, labels: labels, value: value))
    }
}

/// Why a sample line was rejected.
struct SampleProblem: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

extension Result where Failure == SampleProblem {
    fileprivate func get(orThrow make: (String) -> TestClientError) throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let problem): throw make(problem.text)
        }
    }
}
