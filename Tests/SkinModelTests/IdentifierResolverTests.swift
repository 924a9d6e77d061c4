import LiveryJSON
import SkinModel
import Testing

@Suite struct IdentifierResolverTests {
    static let document: JSONValue = {
        let text = ##"""
            {"home": {"colors": {"__default__": "#FF5000", "color": "333333", "color.background": "#FFF7F2",
                                 "color.background.tableview": "0xFFFFFF"},
                      "images": {"image.tab": "tab"}},
             "other": {"colors": {"color.text": "#000"}}}
            """##
        return (try? JSONValue.parse(text)) ?? .null
    }()

    static func key(_ text: String) -> ConfigKey? { ConfigKey(parsing: text) }

    @Test(
        arguments: [
            // (key, chain walked, key that supplied the value, value)
            (
                "home/colors/color.background.tableview",
                ["home/colors/color.background.tableview"], "home/colors/color.background.tableview", "0xFFFFFF"
            ),
            (
                "home/colors/color.background.tableview.cell",
                ["home/colors/color.background.tableview.cell", "home/colors/color.background.tableview"],
                "home/colors/color.background.tableview", "0xFFFFFF"
            ),
            (
                "home/colors/color.background.viewcontroll",
                ["home/colors/color.background.viewcontroll", "home/colors/color.background"],
                "home/colors/color.background", "#FFF7F2"
            ),
            (
                "home/colors/color.text.title",
                ["home/colors/color.text.title", "home/colors/color.text", "home/colors/color"], "home/colors/color",
                "333333"
            ),
            (
                "home/colors/tint.accent",
                ["home/colors/tint.accent", "home/colors/tint", "home/colors/__default__"], "home/colors/__default__",
                "#FF5000"
            ),
            ("home/colors/__default__", ["home/colors/__default__"], "home/colors/__default__", "#FF5000"),
            (
                "/home/images/image.tab.home", ["home/images/image.tab.home", "home/images/image.tab"],
                "home/images/image.tab", "tab"
            )
        ] as [(String, [String], String, String)])
    func walksParentsThenDefault(_ key: String, _ chain: [String], _ resolvedBy: String, _ value: String) throws {
        let resolution = IdentifierResolver.resolve(key: try #require(Self.key(key)), in: Self.document)
        #expect(resolution.chain.map(\.description) == chain)
        #expect(resolution.resolvedKey?.description == resolvedBy)
        #expect(resolution.value == .string(value))
        #expect(resolution.isFallback == (chain.count > 1))
    }

    @Test(arguments: ["other/colors/tint.accent.big", "home/values/x", "missing/colors/a.b"])
    func walksTheWholeChainWhenNothingIsSet(_ key: String) throws {
        let configKey = try #require(Self.key(key))
        let resolution = IdentifierResolver.resolve(key: configKey, in: Self.document)
        #expect(resolution.value == nil && resolution.resolvedKey == nil)
        #expect(resolution.chain == IdentifierResolver.fallbackChain(for: configKey))
        #expect(resolution.chain.last?.identifier == "__default__")
    }

    @Test func fallbackChainListsEveryDottedParent() throws {
        let chain = IdentifierResolver.fallbackChain(for: try #require(Self.key("m/colors/a.b.c")))
        #expect(chain.map(\.identifier) == ["a.b.c", "a.b", "a", "__default__"])
    }

    @Test(arguments: [
        "m/colors", "m/colours/a", "/colors/a", "m/colors/", "m/colors/a..b", "m/colors/.a", "m/colors/a."
    ])
    func rejectsMalformedKeys(_ text: String) { #expect(ConfigKey(parsing: text) == nil) }

    @Test func identifiersMayContainSlashes() throws {
        let key = try #require(ConfigKey(parsing: "m/values/a/b"))
        #expect(key.identifier == "a/b")
        #expect(key.pointer.description == "/m/values/a~1b")
    }
}

@Suite struct DarkModeTests {
    static let config = ##"""
        {
          "home": {
            "colors": {"bg": "#FFFFFF", "text": "#333333"},
            "images": {"banner": "banner", "icon": "icon"},
            "values": {"title": "Hello"}
          },
          "tab": {"colors": {"bg": "#F9F9F9"}},
          "dark": {
            "home": {"colors": {"bg": "#000000"}, "images": {"banner": "banner_dark"}},
            "tab": {"colors": {"bg": "rgba<28,28,30,0.9>"}}
          }
        }
        """##

    static let files: [String: [UInt8]] = [
        "banner@2x.png": Bytes.png, "banner@3x.png": Bytes.png, "banner_dark@2x.png": Bytes.png,
        "banner_dark@3x.png": Bytes.png,
        "icon.png": Bytes.png, "icon@2x.png": Bytes.png, "icon@3x.png": Bytes.png
    ]

    static func skin() throws -> ValidatedSkin {
        let report = validate(Fixture.make(config: config, files: files))
        #expect(report.issues.isEmpty, "\(report.issues)")
        return try #require(report.skin)
    }

    @Test func lightConfigDropsTheDarkSection() throws {
        let expected =
            ##"{"home":{"colors":{"bg":"#FFFFFF","text":"#333333"},"images":{"banner":"banner","icon":"icon"},"values":{"title":"Hello"}},"tab":{"colors":{"bg":"#F9F9F9"}}}"##
        #expect(try Self.skin().config.effectiveDocument(for: .light).compactText == expected)
    }

    @Test func darkConfigReplacesOverriddenValuesInPlace() throws {
        let expected =
            ##"{"home":{"colors":{"bg":"#000000","text":"#333333"},"images":{"banner":"banner_dark","icon":"icon"},"values":{"title":"Hello"}},"tab":{"colors":{"bg":"rgba<28,28,30,0.9>"}}}"##
        #expect(try Self.skin().config.effectiveDocument(for: .dark).compactText == expected)
    }

    @Test func parsedModulesFollowTheAppearance() throws {
        let skin = try Self.skin()
        #expect(skin.config.hasDarkOverrides)
        #expect(
            skin.config.modules(for: .light)[1].colors[0].value == .fixed(SkinColor(red: 0xF9, green: 0xF9, blue: 0xF9))
        )
        #expect(
            skin.config.modules(for: .dark)[1].colors[0].value
                == .fixed(SkinColor(red: 28, green: 28, blue: 30, alpha: 0.9)))
        #expect(skin.config.modules(for: .dark)[0].colors.map(\.identifier) == ["bg", "text"])
    }

    @Test func resolveSeesTheDarkValue() throws {
        let key = try #require(ConfigKey(parsing: "tab/colors/bg.selected"))
        let dark = IdentifierResolver.resolve(key: key, in: try Self.skin().config.effectiveDocument(for: .dark))
        #expect(dark.value == "rgba<28,28,30,0.9>")
        #expect(dark.resolvedKey?.identifier == "bg")
    }

    @Test func aConfigWithoutDarkGivesTheSameConfigForBothAppearances() throws {
        let report = validate(Fixture.make(config: #"{"m": {"values": {"a": 1}}}"#))
        let skin = try #require(report.skin)
        #expect(!skin.config.hasDarkOverrides)
        #expect(skin.config.effectiveConfigBytes(for: .light) == skin.config.effectiveConfigBytes(for: .dark))
    }
}
