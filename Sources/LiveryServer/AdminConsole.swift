import LiveryConsole
import LiveryHTTP

/// The ops console: the static files of `ConsoleAssets` at `/admin/` on the admin API's port, registered only
/// when the admin API is on.
///
/// The files are public (they hold no data); everything the console shows or changes it fetches from
/// `/admin/v1` with the operator's bearer token, so there is no second code path. Every answer carries a strict
/// Content-Security-Policy: scripts and styles only from these files (no inline code), images also from `blob:`
/// (thumbnails fetched with the token) and `data:`, requests only to this origin, no framing, no forms posting
/// anywhere; nothing is loaded from the internet.
enum AdminConsole {
    /// The console's path; `/admin` redirects here.
    static let path = "/admin/"

    /// The policy every console answer carries.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Adds `GET /admin` (308 to `/admin/`), `GET /admin/` (the page) and `GET /admin/<file>` for each asset.
    static func register(on router: Router) {
        router.on(
            .get, "/admin",
            .sync { _ in
                var headers = HTTPHeaders()
                headers.add(name: "Location", value: path)
                headers.add(name: "Cache-Control", value: "no-store")
                return HTTPResponse(status: .permanentRedirect, headers: headers)
            })
        for asset in ConsoleAssets.all {
            let response = answer(asset)
            router.on(.get, path + asset.name, .sync { _ in response })
            if asset.name == "index.html" { router.on(.get, path, .sync { _ in response }) }
        }
    }

    /// The answer for one asset: its bytes with the security headers. `no-cache` makes browsers revalidate, so an
    /// upgraded server's console is never mixed with an old cached script.
    static func answer(_ asset: ConsoleAssets.Asset) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: asset.contentType)
        headers.add(name: "Content-Security-Policy", value: contentSecurityPolicy)
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "X-Frame-Options", value: "DENY")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Cache-Control", value: "no-cache")
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(asset.bytes))
    }
}
