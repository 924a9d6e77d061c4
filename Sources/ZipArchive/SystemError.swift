#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call and its errno. Internal; callers map it to `ZipError`.
struct SystemError: Error {
    let call: String
    let errno: Int32

    init(_ call: String, errno: Int32 = currentErrno()) {
        self.call = call
        self.errno = errno
    }

    var detail: String { "\(call): errno=\(errno) (\(Self.text(errno)))" }

    /// `ELOOP`: an `O_NOFOLLOW` open met a symbolic link (or the path loops through links).
    var isSymbolicLinkRefusal: Bool { errno == ELOOP }

    static func text(_ errno: Int32) -> String {
        guard let text = strerror(errno) else { return "unknown error" }
        return String(cString: text)
    }

    static func currentErrno() -> Int32 {
        #if canImport(Darwin)
        return Darwin.errno
        #elseif canImport(Musl)
        return Musl.errno
        #else
        return Glibc.errno
        #endif
    }
}
