import Logging
import TestSupport
import Testing

/// The one log-capture helper every test target shares (issue 13 point 7).
@Suite struct LogCaptureTests {
    @Test("records keep level, message and merged metadata; lines render the event's metadata sorted by key")
    func capturesRecordsAndLines() {
        let capture = LogCapture()
        var logger = capture.logger
        logger[metadataKey: "connection"] = "7"
        logger.warning("refused", metadata: ["b": "2", "a": "1"])
        logger.info("done")
        let records = capture.records
        #expect(records.map(\.level) == [.warning, .info])
        #expect(records.first?.message == "refused")
        #expect(records.first?.metadata == ["connection": "7", "a": "1", "b": "2"])
        #expect(capture.lines == ["warning refused a=1 b=2", "info done"])
    }
}
