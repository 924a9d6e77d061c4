import Foundation
import SkinModel
import TestSupport
import Testing

/// The exact entries of chosen variants, written out by hand, and the dark/light config each carries.
@Suite struct VariantContentTests {
    @Test func springFestivalAt2xLightHoldsExactlyItsFiles() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(
            of: Samples.folder("spring-festival-2027"), try variant(2, .light), in: scratch)
        #expect(
            package.contents.names == [
                "anim/fireworks.json",
                "anim/lantern.gif",
                "config.json",
                "images/banner@2x.png",
                "images/nav_logo@2x.png",
                "tab_discover@2x.png",
                "tab_discover_selected@2x.png",
                "tab_home@2x.png",
                "tab_home_selected@2x.png"
            ])
        let config = try parsedConfig(package.contents)
        #expect(config["dark"] == nil)
        #expect(string(in: config, "home_navi", "colors", "color_background") == "#D7000F")
    }

    @Test func springFestivalAt1xFallsBackToTheNearestScaleForImagesWithout1x() async throws {
        // banner and nav_logo exist only at @2x and @3x: the @1x package takes @2x, the nearest.
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(
            of: Samples.folder("spring-festival-2027"), try variant(1, .light), in: scratch)
        #expect(
            package.contents.names == [
                "anim/fireworks.json",
                "anim/lantern.gif",
                "config.json",
                "images/banner@2x.png",
                "images/nav_logo@2x.png",
                "tab_discover.png",
                "tab_discover_selected.png",
                "tab_home.png",
                "tab_home_selected.png"
            ])
    }

    @Test func christmasAt3xDarkHoldsTheDarkBannerAndOverriddenValues() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(of: Samples.folder("christmas-2026"), try variant(3, .dark), in: scratch)
        #expect(
            package.contents.names == [
                "config.json",
                "xmas/banner_dark@3x.png",
                "xmas/snow.gif",
                "xmas/star@3x.png",
                "xmas/tab_gift@3x.png",
                "xmas/tab_gift_selected@3x.png",
                "xmas/tab_tree@3x.png",
                "xmas/tab_tree_selected@3x.png"
            ])
        let config = try parsedConfig(package.contents)
        #expect(config["dark"] == nil, "the dark overrides are merged in, not shipped")
        #expect(string(in: config, "home_navi", "colors", "color_background") == "#0B2E1A")
        #expect(string(in: config, "home_navi", "colors", "color_title") == "hex<F8F8F8 0.9>")
        #expect(string(in: config, "home_navi", "images", "image_banner", "name") == "xmas/banner_dark.png")
        #expect(string(in: config, "home_tabbar", "colors", "color_background") == "#1C1C1E")
        #expect(string(in: config, "home_tabbar", "colors", "color_button_normal") == "rgba<120,180,140,0.9>")
        #expect(string(in: config, "home_tabbar", "images", "image_background", "color") == "1C1C1E")
        // Values the dark object does not override keep their light value.
        #expect(string(in: config, "home_navi", "colors", "color_snow") == "F8F8F8 0.8")
        #expect(string(in: config, "home_tabbar", "colors", "color_button_selected") == "#BB2528")
        #expect(string(in: config, "home_tabbar", "values", "value_two_button") == "Gifts")
    }

    @Test func christmasAt3xLightHoldsTheLightBannerAndNoDarkKey() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(of: Samples.folder("christmas-2026"), try variant(3, .light), in: scratch)
        #expect(
            package.contents.names == [
                "config.json",
                "xmas/banner@3x.png",
                "xmas/snow.gif",
                "xmas/star@3x.png",
                "xmas/tab_gift@3x.png",
                "xmas/tab_gift_selected@3x.png",
                "xmas/tab_tree@3x.png",
                "xmas/tab_tree_selected@3x.png"
            ])
        let config = try parsedConfig(package.contents)
        #expect(config["dark"] == nil)
        #expect(string(in: config, "home_navi", "colors", "color_background") == "#165B33FF")
        #expect(string(in: config, "home_navi", "images", "image_banner", "name") == "xmas/banner.png")
        #expect(string(in: config, "home_tabbar", "colors", "color_background") == "#F8F8F8")
    }

    @Test func double11At1xLightHoldsExactlyItsFiles() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        let package = try await buildPackage(of: Samples.folder("double-11-2026"), try variant(1, .light), in: scratch)
        #expect(
            package.contents.names == [
                "config.json",
                "promo/banner@2x.png",
                "promo/confetti.json",
                "promo/spinner.gif",
                "promo/tab_bag.png",
                "promo/tab_bag_selected.png",
                "promo/tab_coupon.png",
                "promo/tab_coupon_selected.png"
            ])
    }
}

/// Chameleon's `random` color survives packaging byte for byte, read back by independent zip readers.
@Suite struct RandomColorPackagingTests {
    @Test func aRandomColorIsPassedThroughToThePackage() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-package-tests")
        try scratch.write(
            [
                "skin.json": Array(#"{"id": "chameleon", "title": "Chameleon", "app": "demo"}"#.utf8),
                "config.json": Array(
                    #"{"background": {"colors": {"C103": "random"}, "images": {"no04": {"color": "random"}}}}"#.utf8)
            ], under: "skin")
        let package = try await buildPackage(of: scratch.path("skin"), try variant(3, .light), in: scratch)
        let config = try parsedConfig(package.contents)
        #expect(string(in: config, "background", "colors", "C103") == "random")
        #expect(string(in: config, "background", "images", "no04", "color") == "random")
    }
}
