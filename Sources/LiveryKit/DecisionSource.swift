/// What decided the holiday skin a client applies.
public enum DecisionSource: String, Sendable, Equatable {
    /// The signed catalog of the app and platform (`GET /api/v1/catalog`), decided on the device, offline until the
    /// catalog's `horizonEndsAt`.
    case catalog
    /// The per-device answer (`GET /api/v1/skin`): a server without the catalog, a catalog cut at the server's entry
    /// cap (`"complete": false`), or nothing decided yet.
    case poll
}
