import Foundation
import Testing

@testable import SystemCalls

/// The descriptors a process holds back for the runtime beneath it (libdispatch aborts the process when it cannot
/// open one): held on `/dev/null`, given up whole when the process runs out, taken back only whole.
@Suite struct DescriptorReserveTests {
    /// Whether every one of `descriptors` is open on `/dev/null`.
    private static func onDevNull(_ descriptors: [Int32]) -> Bool {
        descriptors.allSatisfy { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == "/dev/null"
        }
    }

    @Test func aReserveHoldsItsDescriptorsGivesThemUpAndTakesThemBackWhole() throws {
        let reserve = DescriptorReserve(count: 5)
        #expect(reserve.heldCount == 0 && !reserve.isReleased, "nothing held before the first fill")
        #expect(!reserve.release(), "nothing to give up yet")

        #expect(reserve.fill())
        let held = reserve.heldDescriptors
        #expect(held.count == 5 && Set(held).count == 5 && !reserve.isReleased)
        #expect(Self.onDevNull(held))
        #expect(reserve.fill() && reserve.heldDescriptors == held, "a whole reserve stays as it is")

        #expect(reserve.release())
        #expect(reserve.heldCount == 0 && reserve.isReleased, "released until it is whole again")
        #expect(!reserve.release())

        #expect(reserve.fill())
        #expect(reserve.heldCount == 5 && !reserve.isReleased && Self.onDevNull(reserve.heldDescriptors))
        #expect(reserve.release())
    }
}
