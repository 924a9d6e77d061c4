import Foundation
import LiveryCatalog
import SkinModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The catalog side of `refresh()`: one signed document per app and platform, decided on the device.
extension LiveryClient {
    /// Most bytes a catalog may have (the server's entry cap keeps real ones far below).
    static let catalogLimit = 16 << 20
    /// How long a server without the catalog (404 `not_found`) is polled per device before the catalog is asked
    /// for again.
    static let pollFallbackPeriod: TimeInterval = 24 * 3600
    /// How long nothing is asked after a 404 `unknown_app`.
    static let unknownAppPeriod: TimeInterval = 3600

    /// Asks for the catalog (unless the stored one is still fresh) and decides from it, or falls back to polls as
    /// the server's answer says. Every failure leaves the stored catalog and the applied skin as they were.
    func refreshCatalog(now: Date) async throws(LiveryError) {
        let before = state.withLock { $0 }
        let stored = catalog.withLock { $0 }
        if let stored, let fresh = before.catalogFreshUntil, now < fresh, now < stored.document.horizonEndsAt {
            if stored.document.complete { return try await settle(stored, now: now) }
            return try await poll(now: now)
        }
        var request = URLRequest(url: try endpoint("/api/v1/catalog", query: catalogQuery))
        if let etag = stored?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let (head, body) = try await transport.get(request, limit: Self.catalogLimit)
        let fresh = Self.freshUntil(head.field("Cache-Control"), now: now)
        switch (head.status, stored) {
        case (304, let stored?):
            try commit {
                $0.catalogFreshUntil = fresh
                $0.retryAfter = nil
            }
            if stored.document.complete { try await settle(stored, now: now) } else { try await poll(now: now) }
        case (200, _):
            let arrived = StoredCatalog(
                body: body, etag: head.field("ETag"), document: try verifiedCatalog(body: body, head: head, now: now))
            if arrived.document.complete {
                try await adopt(arrived, fresh: fresh, now: now)
            } else {
                // Cut at the server's entry cap: the document cannot decide. Kept for its entity tag; polls decide.
                try storage.saveCatalog(arrived)
                catalog.withLock { $0 = arrived }
                try commit {
                    $0.source = .poll
                    $0.catalogFreshUntil = fresh
                    $0.retryAfter = nil
                }
                try await poll(now: now)
            }
        case (404, _) where Self.errorCode(body) == "not_found":
            // A server without the catalog: poll per device, and do not ask for the catalog again for a day.
            try forgetCatalog()
            try commit {
                $0.source = .poll
                $0.pollUntil = now.addingTimeInterval(Self.pollFallbackPeriod)
                $0.retryAfter = nil
            }
            try await poll(now: now)
        case (404, _) where Self.errorCode(body) == "unknown_app":
            // No skin is released for the app: none applies, and nothing is asked for an hour.
            try forgetCatalog()
            try commit { state in
                state.source = .catalog
                state.unknownAppUntil = now.addingTimeInterval(Self.unknownAppPeriod)
                state.holiday = nil
                state.previousHoliday = nil
                state.next = nil
                state.pollETag = nil
                state.retryAfter = nil
            }
            storage.prune(keep: keptSigns(now: now))
        case (503, _), (429, _):
            throw try busy(head, now: now)
        default:
            throw LiveryError(.server, "the catalog answered HTTP \(head.status)")
        }
    }

    /// Takes a verified, complete catalog: the package of the skin it applies now is downloaded first, and only
    /// then is the catalog stored (atomically) and applied, so a failure keeps the old catalog and its skin. The
    /// packages of later skins are prefetched afterwards (`settle`).
    private func adopt(_ arrived: StoredCatalog, fresh: Date, now: Date) async throws(LiveryError) {
        if let question, let current = question.verdict(arrived.document, at: now).skin,
            !state.withLock({ $0.blocked.contains(current.sign) })
        {
            try await ensurePackage(current)
        }
        try storage.saveCatalog(arrived)
        catalog.withLock { $0 = arrived }
        try commit { state in
            state.source = .catalog
            state.catalogFreshUntil = fresh
            state.pollUntil = nil
            state.unknownAppUntil = nil
            state.retryAfter = nil
            state.next = nil
            // The poll's entity tag named an answer these slots no longer hold: the next poll asks afresh.
            state.pollETag = nil
        }
        try await settle(arrived, now: now)
    }

    /// Makes sure the packages `stored` needs from now to its horizon are in storage (prefetching those of skins
    /// that start later), applies, and removes the packages nothing names any more.
    ///
    /// - Throws: the first download's failure (the others are still tried), or `blocked` when the skin the catalog
    ///   applies now crashed this app before.
    private func settle(_ stored: StoredCatalog, now: Date) async throws(LiveryError) {
        guard let question else { return }
        let blocked = Set(state.withLock { $0.blocked })
        var failure: LiveryError?
        for entry in question.packages(stored.document, from: now) where !blocked.contains(entry.sign) {
            do {
                try await ensurePackage(entry)
            } catch {
                if failure == nil { failure = error }
            }
        }
        try commit {
            $0.source = .catalog
            $0.retryAfter = nil
        }
        storage.prune(keep: keptSigns(now: now))
        if let current = question.verdict(stored.document, at: now).skin, blocked.contains(current.sign) {
            throw Self.blockedError(current)
        }
        if let failure { throw failure }
    }

    /// Checks a catalog that just arrived: the signature over the exact bytes first, then the document
    /// (hostile-first), that it names this app and platform, that a signed one has not expired, and that every
    /// package of this install's variant can be one.
    private func verifiedCatalog(
        body: [UInt8], head: HTTPTransport.Head, now: Date
    ) throws(LiveryError) -> CatalogDocument {
        let signed = try verifier.verify(body: body, headerValue: head.field("Livery-Signature"))
        let document: CatalogDocument
        do throws(CatalogDocumentError) {
            document = try CatalogDocument.parse(body)
        } catch {
            throw LiveryError(.server, "the answer is not a catalog: \(error.description)")
        }
        for (name, found, asked) in [
            ("app", document.app, configuration.appID), ("platform", document.platform, configuration.platform.rawValue)
        ] where found != asked {
            throw LiveryError(.wrongAnswer, "the catalog is for \(name) \"\(found)\", this app asked for \"\(asked)\"")
        }
        if signed {
            guard let expiresAt = document.expiresAt else {
                throw LiveryError(.expired, "the signed catalog has no expiresAt")
            }
            guard now < expiresAt else {
                throw LiveryError(
                    .expired,
                    "the signed catalog expired at \(ISO8601Instant.format(expiresAt)) (now \(ISO8601Instant.format(now)))"
                )
            }
        }
        if let key = question?.variant.key {
            for entry in document.skins {
                if let package = entry.packages[key] { _ = try PackageEntry(catalog: entry, package: package) }
            }
        }
        return document
    }

    /// Removes the stored catalog (a server without one, or an app it does not know).
    private func forgetCatalog() throws(LiveryError) {
        try storage.removeCatalog()
        catalog.withLock { $0 = nil }
        state.withLock { $0.catalogFreshUntil = nil }
    }

    /// The signs whose packages storage keeps: the state's slots, and while the catalog decides, every package it
    /// applies from `now` to its horizon; never a blocked one.
    func keptSigns(now: Date) -> Set<String> {
        let snapshot = state.withLock { $0 }
        var keep = snapshot.keptSigns
        if snapshot.source == .catalog, let question, let stored = catalog.withLock({ $0 }) {
            keep.formUnion(question.packages(stored.document, from: now).map(\.sign))
        }
        return keep.subtracting(snapshot.blocked)
    }
}
