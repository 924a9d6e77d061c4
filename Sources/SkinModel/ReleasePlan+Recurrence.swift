import Foundation

/// What replaces one year's occurrence of a recurring release (`release.occurrences["2027"]`).
public enum OccurrenceOverride: Sendable, Equatable {
    /// That year has no occurrence.
    case skip
    /// That year's window is these instants (texts as written, read like `startsAt`/`endsAt`).
    case window(startsAt: Date, endsAt: Date, startsAtText: String, endsAtText: String)
}

/// One year's window of a recurring release, as concrete instants.
public struct ScheduledOccurrence: Sendable, Equatable {
    /// Where the window comes from.
    public enum Source: String, Sendable, Equatable {
        /// Computed from the rule.
        case rule
        /// Written in `occurrences` for that year.
        case override
        /// The rule's window, skipped by `occurrences` (never in force).
        case skip
    }

    /// The Gregorian year of the anchor day.
    public var year: Int
    public var startsAt: Date
    public var endsAt: Date
    public var source: Source
}

extension ReleasePlan {
    /// The zone a recurring plan's rule is read in (its `timeZone`; UTC only for a plan built without one).
    var recurrenceZone: TimeZone {
        timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(secondsFromGMT: 0) ?? .current
    }

    /// The first `count` occurrences of a recurring plan that have not ended at `instant`, in time order, skipped
    /// years included (marked `.skip`); empty for a plan without a rule. At most 400 years are searched.
    public func occurrences(notEndedAt instant: Date, count: Int) -> [ScheduledOccurrence] {
        guard let rule = recurrence, count > 0 else { return [] }
        let zone = recurrenceZone
        let firstYear =
            RecurrenceRule.CivilDate(
                daysSinceEpoch: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down))
            ).year - 1
        var found: [ScheduledOccurrence] = []
        for year in firstYear..<(firstYear + 400) {
            let next: ScheduledOccurrence?
            switch occurrenceOverrides[year] {
            case .window(let start, let end, _, _)?:
                next = ScheduledOccurrence(year: year, startsAt: start, endsAt: end, source: .override)
            case .skip?:
                next = rule.occurrence(inYear: year, timeZone: zone).map {
                    ScheduledOccurrence(year: year, startsAt: $0.startsAt, endsAt: $0.endsAt, source: .skip)
                }
            case nil:
                next = rule.occurrence(inYear: year, timeZone: zone).map {
                    ScheduledOccurrence(year: year, startsAt: $0.startsAt, endsAt: $0.endsAt, source: .rule)
                }
            }
            guard let next, next.endsAt > instant else { continue }
            found.append(next)
            if found.count == count { break }
        }
        return found.sorted { $0.startsAt < $1.startsAt }
    }

    /// The occurrence in force at `instant`: the open one, else the next one (skipped years passed over); `nil`
    /// for a plan without a rule or a rule with no occurrence ahead.
    public func occurrence(inForceAt instant: Date) -> ScheduledOccurrence? {
        guard recurrence != nil else { return nil }
        return occurrences(notEndedAt: instant, count: 8).first { $0.source != .skip }
    }

    /// This plan as concrete windows: itself for a plan without a rule, else one plan per occurrence in force from
    /// `instant` on (skipped years left out), at most `count`, each with `startsAt`/`endsAt` set and no rule.
    /// What a catalog serves, so everything that reads a window reads instants.
    public func concreteWindows(from instant: Date, count: Int) -> [ReleasePlan] {
        guard recurrence != nil else { return [self] }
        return occurrences(notEndedAt: instant, count: count + occurrenceOverrides.count)
            .filter { $0.source != .skip }.prefix(count).map { occurrence in
                var plan = self
                plan.recurrence = nil
                plan.occurrenceOverrides = [:]
                plan.startsAt = occurrence.startsAt
                plan.endsAt = occurrence.endsAt
                plan.startsAtText = ISO8601DateTime.utcText(occurrence.startsAt)
                plan.endsAtText = ISO8601DateTime.utcText(occurrence.endsAt)
                return plan
            }
    }
}

extension ReleasePlan {
    /// This plan as `parse` reads it at `instant`: a recurring plan's `startsAt`/`endsAt` (and their texts) become
    /// those of the occurrence in force at `instant`; a plan without a rule is itself. nil when a recurring plan has
    /// no occurrence ahead of `instant` (every one skipped), which `parse` refuses. So a plan parsed once (when
    /// stored) serves every later instant without being parsed again.
    public func resolved(at instant: Date) -> ReleasePlan? {
        guard recurrence != nil else { return self }
        guard let current = occurrence(inForceAt: instant) else { return nil }
        var plan = self
        plan.startsAt = current.startsAt
        plan.endsAt = current.endsAt
        plan.startsAtText = ISO8601DateTime.utcText(current.startsAt)
        plan.endsAtText = ISO8601DateTime.utcText(current.endsAt)
        return plan
    }
}
