/// The ops console's static files (`www/`), compiled into the binary by SwiftPM (`resources: [.embedInCode("www")]`
/// in Package.swift), so the binary needs nothing next to it and no generated file is kept in the repository.
///
/// SwiftPM turns each file of `www/` into a byte array of `PackageResources` named after the file (`console.js` →
/// `console_js`); this table gives each its URL name and media type. A test fails when a file of `www/` is missing
/// from it.
public enum ConsoleAssets {
    /// One file of the console.
    public struct Asset: Sendable {
        /// The file name under `/admin/`, such as `console.js`.
        public let name: String
        /// Its `Content-Type`.
        public let contentType: String
        /// Its bytes, exactly as in `www/`.
        public let bytes: [UInt8]

        /// Its text (every console file is UTF-8).
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    private static let javaScript = "text/javascript; charset=utf-8"

    /// Every file, sorted by name.
    public static let all: [Asset] = [
        Asset(name: "colors.js", contentType: javaScript, bytes: PackageResources.colors_js),
        Asset(name: "console.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.console_css),
        Asset(name: "console.js", contentType: javaScript, bytes: PackageResources.console_js),
        Asset(name: "icon.svg", contentType: "image/svg+xml", bytes: PackageResources.icon_svg),
        Asset(name: "index.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html)
    ]
}
