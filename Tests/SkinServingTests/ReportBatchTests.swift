import Foundation
import SkinServing
import SkinStore
import Testing

/// The body of `POST /api/v1/reports`, read hostile-first: every refusal names the member and says why.
@Suite struct ReportBatchTests {
    static let good =
        #"{"app":"demo","platform":"iOS","appVersion":"7.2.0","deviceId":"d-1","extra":true,"reports":[{"skinSign":"abc","outcome":"applied","stage":"nonsense","at":"2026-12-24T18:00:00Z"},{"skinSign":"def","outcome":"failed","stage":"crash","at":"2026-12-24T18:00:00.250Z"}]}"#

    @Test func aGoodBatchReadsEveryMemberAndIgnoresTheRest() throws {
        let batch = try ReportBatch.parse(Array(Self.good.utf8))
        #expect(batch.app == "demo" && batch.platform == .ios && batch.appVersion == "7.2.0" && batch.deviceID == "d-1")
        #expect(batch.reports.map(\.outcome) == [.applied, .failed])
        #expect(batch.reports.map(\.stage) == [nil, .crash], "a stage sent with applied is ignored")
        #expect(batch.reports[1].at == Date(timeIntervalSince1970: 1_798_135_200.25))
    }

    /// (a change to the good body, the member named, 400 or 422)
    static let refusals: [(String, String, ReportBatchError.Kind)] = [
        (#"{"app":"#, "body", .syntax),
        (#"{"app":"demo","app":"demo"}"#, "body", .syntax),
        (#"[]"#, "body", .invalid),
        (good.replacingOccurrences(of: #""app":"demo""#, with: #""app":"de mo""#), "app", .invalid),
        (good.replacingOccurrences(of: #""platform":"iOS""#, with: #""platform":7"#), "platform", .invalid),
        (
            good.replacingOccurrences(of: #""appVersion":"7.2.0""#, with: #""appVersion":"seven""#), "appVersion",
            .invalid
        ),
        (good.replacingOccurrences(of: #""deviceId":"d-1""#, with: #""deviceId":"""#), "deviceId", .invalid),
        (good.replacingOccurrences(of: #","deviceId":"d-1""#, with: ""), "deviceId", .invalid),
        (
            good.replacingOccurrences(of: #""outcome":"failed""#, with: #""outcome":"broken""#), "reports[1].outcome",
            .invalid
        ),
        (good.replacingOccurrences(of: #""stage":"crash""#, with: #""stage":"boot""#), "reports[1].stage", .invalid),
        (good.replacingOccurrences(of: #","stage":"crash""#, with: ""), "reports[1].stage", .invalid),
        (good.replacingOccurrences(of: #"18:00:00.250Z"#, with: "18:00:00+01:00"), "reports[1].at", .invalid),
        (good.replacingOccurrences(of: #""skinSign":"abc","#, with: ""), "reports[0].skinSign", .invalid),
        (good.replacingOccurrences(of: #"{"skinSign":"abc""#, with: #"7,{"skinSign":"abc""#), "reports[0]", .invalid),
        (#"{"app":"demo","platform":"ios","appVersion":"1","deviceId":"d","reports":[]}"#, "reports", .invalid),
        (#"{"app":"demo","platform":"ios","appVersion":"1","deviceId":"d","reports":{}}"#, "reports", .invalid)
    ]

    @Test(arguments: 0..<refusals.count)
    func aBadMemberIsRefusedByName(_ index: Int) {
        let (body, field, kind) = Self.refusals[index]
        #expect {
            _ = try ReportBatch.parse(Array(body.utf8))
        } throws: { error in
            guard let refusal = error as? ReportBatchError else { return false }
            return refusal.field == field && refusal.kind == kind && !refusal.reason.isEmpty
        }
    }

    @Test func moreThanSixtyFourReportsAreRefused() {
        let item = #"{"skinSign":"abc","outcome":"applied","at":"2026-12-24T18:00:00Z"}"#
        let body =
            #"{"app":"demo","platform":"ios","appVersion":"1","deviceId":"d","reports":["#
            + Array(repeating: item, count: 65).joined(separator: ",") + "]}"
        #expect(throws: ReportBatchError(.invalid, "reports", "must hold 1–64 reports, not 65")) {
            _ = try ReportBatch.parse(Array(body.utf8))
        }
    }
}
