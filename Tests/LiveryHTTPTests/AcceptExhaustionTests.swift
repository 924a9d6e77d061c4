import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An `accept4` that fails for want of a resource pauses the accepting loop (the listening socket stays readable, so
/// retrying at once would spin) and is logged once per episode, never once per retry.
@Suite struct AcceptExhaustionTests {
    @Test func outOfSocketMemoryPausesAcceptingAsOutOfDescriptorsDoes() {
        #expect(DescriptorExhaustion.Resource(acceptFailure: ENOBUFS) == .memory)
        #expect(DescriptorExhaustion.Resource(acceptFailure: ENOMEM) == .memory)
        #expect(DescriptorExhaustion.Resource(acceptFailure: EMFILE) == .descriptors)
        #expect(DescriptorExhaustion.Resource(acceptFailure: ENFILE) == .descriptors)
        // Failures of one connection (aborted before it was taken, refused by a firewall rule) do not pause.
        for code in [ECONNABORTED, EPERM, EPROTO, EINTR, EAGAIN] {
            #expect(DescriptorExhaustion.Resource(acceptFailure: code) == nil, "errno \(code)")
        }
    }

    @Test func anOutOfSocketMemoryEpisodeIsLoggedOnceWhenItStartsAndOnceWhenItEnds() {
        let capture = LogCapture()
        let episodes = DescriptorExhaustion(logger: capture.logger, resource: .memory)
        for _ in 0..<1000 { episodes.failed("accepting a connection", errno: ENOBUFS) }
        #expect(episodes.currentFailures == 1000)
        #expect(capture.records.count == 1)
        #expect(capture.records.first?.level == .error)
        #expect(capture.records.first?.message.hasPrefix("out of memory for sockets (") == true)
        #expect(capture.records.first?.message.contains("accepting a connection") == true)
        episodes.obtained()
        episodes.obtained()
        #expect(capture.records.count == 2)
        #expect(capture.records.last?.level == .notice)
        #expect(
            capture.records.last?.message.hasPrefix("memory for sockets available again after 1000 failure(s)") == true)
        #expect(episodes.currentFailures == 0)
        // A new episode is logged again.
        episodes.failed("accepting a connection", errno: ENOMEM)
        #expect(capture.records.count == 3)
    }

    @Test func theDescriptorEpisodeKeepsItsMessages() {
        let capture = LogCapture()
        let episodes = DescriptorExhaustion(logger: capture.logger)
        episodes.failed("accepting a connection", errno: EMFILE)
        episodes.failed("accepting a connection", errno: EMFILE)
        episodes.obtained()
        #expect(capture.records.map(\.level) == [.error, .notice])
        #expect(capture.records.first?.message.hasPrefix("out of file descriptors (") == true)
        #expect(capture.records.last?.message.hasPrefix("file descriptors available again after 2 failure(s)") == true)
    }
}
