import Foundation

/// Which stored package applies at an instant, decided without the network (Expo's "which update to launch" as a
/// separate policy): the holiday skin of the last answer while its window holds, else the answer's `next` once its
/// window has started, else the theme the user chose, else none. A blocked sign or a package not in storage never
/// applies. While a holiday skin applies, keys resolve in it alone.
enum SkinSelection {
    static func choose(
        _ state: StoredState, at instant: Date, isStored: (String) -> Bool
    ) -> (entry: PackageEntry, kind: Skin.Kind)? {
        let usable = { (entry: PackageEntry) in !state.blocked.contains(entry.sign) && isStored(entry.sign) }
        for candidate in [state.holiday, state.next] {
            if let entry = candidate, entry.applies(at: instant), usable(entry) { return (entry, .holiday) }
        }
        if let theme = state.theme, usable(theme) { return (theme, .theme) }
        return nil
    }
}
