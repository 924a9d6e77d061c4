// syscalls-probe: a child process for SystemCallsTests' EBADF checks (a precondition failure stops the process,
// so it cannot run inside the test process). Not part of the product.
//
// Usage: syscalls-probe ebadf-close | ebadf-receive | valid
// The ebadf-* modes use a descriptor that was just closed and must die of a precondition failure; `valid` uses an
// open one and exits 0.

import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

var fds: [Int32] = [-1, -1]
guard pipe(&fds) == 0 else { exit(2) }
let mode = CommandLine.arguments.dropFirst().first ?? ""
if mode.hasPrefix("ebadf-") {
    Syscall.close(fds[0])
}
var buffer = [UInt8](repeating: 0, count: 8)
switch mode {
case "ebadf-close":
    Syscall.close(fds[0])
case "ebadf-receive", "valid":
    // A pipe is not a socket: recv on it fails with ENOTSOCK, a plain error, when the descriptor is open.
    _ = buffer.withUnsafeMutableBytes { try? Syscall.receive(fds[0], into: $0) }
default:
    exit(2)
}
exit(0)
