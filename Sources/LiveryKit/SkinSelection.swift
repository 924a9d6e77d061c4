import Foundation

/// Which stored package applies at an instant, decided without the network (Expo's "which update to launch" as a
/// separate policy): the holiday skin of the last answer while its window holds, else the answer's `next` once its
/// window has started, else the theme the user chose, else none. A blocked sign or a package not in storage never
/// applies. While a holiday skin applies, keys resolve in it alone.
enum SkinSelection {
    static func choose(
        _ state: StoredState, at instant: Date, isStored: (String) -> Bool
    ) -> (entry: PackageEntry, kind: Skin.Kind)? {
        for candidate in [state.holiday, state.next] {
            if let entry = candidate, entry.applies(at: instant), !state.blocked.contains(entry.sign),
                isStored(entry.sign)
            {
                return (entry, .holiday)
            }
        }
        if let theme = state.theme, !state.blocked.contains(theme.sign), isStored(theme.sign) { return (theme, .theme) }
        return nil
    }

    /// The same policy when the stored catalog decides: the skin of `verdict` (the catalog's decision at `instant`);
    /// when that package cannot apply (blocked, or not in storage because its download failed), the holiday skin
    /// applied before, while its window holds, so a failure never removes a skin; when the catalog says no skin,
    /// none. Then the chosen theme, unless the catalog says `killed`.
    static func choose(
        _ state: StoredState, verdict: CatalogVerdict, at instant: Date, isStored: (String) -> Bool
    ) -> (entry: PackageEntry, kind: Skin.Kind)? {
        if let skin = verdict.skin {
            for candidate in [skin, state.holiday] {
                if let entry = candidate, entry.applies(at: instant), !state.blocked.contains(entry.sign),
                    isStored(entry.sign)
                {
                    return (entry, .holiday)
                }
            }
        }
        guard verdict.themesAllowed else { return nil }
        if let theme = state.theme, !state.blocked.contains(theme.sign), isStored(theme.sign) { return (theme, .theme) }
        return nil
    }
}
