import Foundation
import LiveryCatalog

/// What a stored catalog says at an instant, for this install: the holiday skin's package (nil: none applies), and
/// whether the chosen theme may apply (not while the catalog says `killed`).
struct CatalogVerdict: Sendable, Equatable {
    var skin: PackageEntry?
    var themesAllowed: Bool
}

/// This install's side of a catalog decision: its device id, app version and package variant. The decision itself
/// is `LiveryCatalog`'s `CatalogDecision`, the one the server's answers are checked against; nothing here restates it.
struct CatalogQuestion: Sendable {
    let deviceID: String
    let appVersion: CatalogAppVersion
    let variant: CatalogVariant

    /// nil when the app version or the variant cannot be compared as the protocol compares them (the install then
    /// polls per device, and the server judges the question).
    init?(deviceID: String, appVersion: String, scale: Int, appearance: String) {
        guard let version = CatalogAppVersion(appVersion), let look = CatalogAppearance(rawValue: appearance),
            let variant = CatalogVariant(scale: scale, appearance: look)
        else { return nil }
        self.deviceID = deviceID
        self.appVersion = version
        self.variant = variant
    }

    /// What `document` gives this install at `instant`: nothing at or past `horizonEndsAt` (the document no longer
    /// knows) or from a document cut at the server's cap, nothing and no theme while `killed`, otherwise
    /// `CatalogDecision`'s current skin.
    func verdict(_ document: CatalogDocument, at instant: Date) -> CatalogVerdict {
        guard document.complete, instant < document.horizonEndsAt else {
            return CatalogVerdict(skin: nil, themesAllowed: true)
        }
        if document.killed { return CatalogVerdict(skin: nil, themesAllowed: false) }
        return CatalogVerdict(
            skin: decide(document, at: instant).current.flatMap(PackageEntry.init), themesAllowed: true)
    }

    /// The packages this install needs from `instant` until the horizon, in the order they apply: the current
    /// skin's, then the winner's at each later window boundary before `horizonEndsAt`. Prefetching them lets each
    /// switch on at its start without the network.
    func packages(_ document: CatalogDocument, from instant: Date) -> [PackageEntry] {
        guard document.complete, !document.killed else { return [] }
        var result: [PackageEntry] = []
        var moment = instant
        while moment < document.horizonEndsAt {
            let answer = decide(document, at: moment)
            if let entry = answer.current.flatMap(PackageEntry.init), !result.contains(where: { $0.sign == entry.sign })
            {
                result.append(entry)
            }
            guard let boundary = answer.nextBoundary, boundary > moment else { break }
            moment = boundary
        }
        return result
    }

    private func decide(_ document: CatalogDocument, at instant: Date) -> CatalogAnswer {
        CatalogDecision.decide(
            document, deviceId: deviceID, appVersion: appVersion, at: instant, variant: variant, nextHorizon: 0)
    }
}
