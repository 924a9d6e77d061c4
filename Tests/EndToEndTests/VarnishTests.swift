import Foundation
import HTTPTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Varnish's wall clock, moved by the test: a small preloaded library (compiled here with `cc`, which Debian's
/// varnish depends on to compile VCL) adds the whole seconds written in a file to `CLOCK_REALTIME`,
/// `gettimeofday` and `time`, reading the file at every call. The monotonic clock is left alone, so timeouts
/// behave; the wall clock is what Varnish's TTLs, grace and `Age` use. (libfaketime cannot be preloaded into
/// varnishd: it recurses through jemalloc's start-up and gives up.)
struct FakeWallClock {
    /// The library's source: raw system calls only, so it never allocates nor reads a clock through libc.
    static let source = #"""
        #define _GNU_SOURCE
        #include <fcntl.h>
        #include <stdlib.h>
        #include <sys/syscall.h>
        #include <sys/time.h>
        #include <time.h>
        #include <unistd.h>

        /* Seconds to add to the wall clock: the signed decimal in the file named by WALLCLOCK_OFFSET_FILE, read at every
           call with raw system calls (no allocation, no libc call that could read the clock). */
        static long wallclock_offset(void) {
            const char *path = getenv("WALLCLOCK_OFFSET_FILE");
            if (path == NULL) return 0;
            long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) return 0;
            char text[32];
            long count = syscall(SYS_read, fd, text, sizeof text - 1);
            syscall(SYS_close, fd);
            long value = 0, sign = 1, i = 0;
            if (count > 0 && (text[0] == '-' || text[0] == '+')) { sign = text[0] == '-' ? -1 : 1; i = 1; }
            for (; i < count && text[i] >= '0' && text[i] <= '9'; i++) value = value * 10 + (text[i] - '0');
            return sign * value;
        }

        int clock_gettime(clockid_t clock, struct timespec *time) {
            long result = syscall(SYS_clock_gettime, clock, time);
            if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) time->tv_sec += wallclock_offset();
            return (int)result;
        }

        int gettimeofday(struct timeval *restrict value, void *restrict zone) {
            (void)zone;
            struct timespec now;
            int result = clock_gettime(CLOCK_REALTIME, &now);
            if (result == 0 && value != NULL) { value->tv_sec = now.tv_sec; value->tv_usec = now.tv_nsec / 1000; }
            return result;
        }

        time_t time(time_t *out) {
            struct timespec now;
            if (clock_gettime(CLOCK_REALTIME, &now) != 0) return (time_t)-1;
            if (out != NULL) *out = now.tv_sec;
            return now.tv_sec;
        }
        """#

    let library: String
    let file: String

    /// The environment that makes a child read this clock.
    var environment: [String: String] { ["LD_PRELOAD": library, "WALLCLOCK_OFFSET_FILE": file] }

    init(in scratch: ScratchDirectory) async throws {
        file = scratch.path("wallclock-offset")
        library = scratch.path("wallclock.so")
        let code = try scratch.write("wallclock.c", Array(Self.source.utf8))
        let compiled = try await ExternalProcess.run("cc", ["-shared", "-fPIC", "-O2", "-o", library, code])
        try #require(compiled.status == 0, "\(compiled.transcript)")
        try set(offset: 0)
    }

    /// Puts the clock `offset` whole seconds ahead of the real one (replaced atomically: a reader never sees half
    /// a file).
    func set(offset: Int) throws {
        let temporary = file + ".new"
        try Data("\(offset)\n".utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, file) == 0 else { throw E2EError(description: "rename \(temporary): \(errno)") }
    }
}

/// Debian's Varnish in front of a server on 127.0.0.1, with the built-in VCL (`-b`): what a CDN or an operator's
/// cache does with Livery's `Cache-Control`. Stopped (SIGKILL) when the value goes away.
final class VarnishCache: @unchecked Sendable {
    // Invariant: set once in `init`, never changed.
    /// Killed and reaped when this value goes away.
    private let process: SpawnedProcess
    let port: Int

    init(backend: Int, in scratch: ScratchDirectory, environment: [String: String]) throws {
        port = try Replicas.freeLoopbackPort()
        // -F: in the foreground; -j none: no privilege separation (the tests may run as root or not); -n: its
        // working folder in the scratch folder, never the system's.
        process = try SpawnedProcess.launch(
            "/usr/sbin/varnishd",
            [
                "-F", "-j", "none", "-n", scratch.path("varnish"), "-a", "127.0.0.1:\(port)",
                "-b", "127.0.0.1:\(backend)", "-s", "malloc,16m"
            ],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        guard
            AdminServeTests.eventually(
                seconds: 30,
                {
                    (try? TestClient(port: self.port, timeout: 2).get("/healthz").status) == 200
                })
        else {
            throw E2EError(description: "varnishd did not come up on 127.0.0.1:\(port)")
        }
    }
}

/// Signed answers behind Varnish: a cache never hands out an answer whose `expiresAt` has passed, whatever its
/// default grace, because each signed answer bounds stale use itself (`stale-while-revalidate`).
@Suite struct VarnishTests {
    static let poll = "/api/v1/skin?app=cached&platform=ios&appVersion=1.0"

    static func expiresAt(_ response: TestResponse) throws -> Date {
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let text = try #require(object?["expiresAt"] as? String, "\(response.text)")
        return try #require(ISO8601DateFormatter().date(from: text), "\(text)")
    }

    /// When an answer was made (its `Date`, which Varnish keeps from the server) plus how long Varnish has held it
    /// (`Age`, on Varnish's clock): by RFC 9111 the instant the client gets it, on the server's clock.
    static func deliveredAt(_ response: TestResponse) throws -> Date {
        let date = try #require(response.header("Date"), "no Date")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let made = try #require(formatter.date(from: date), "\(date)")
        let age = Double(response.header("Age") ?? "0") ?? 0
        return made.addingTimeInterval(age)
    }

    /// A `--cache-max-age` (600 s or more) whose current step is in its second half with a minute or more left:
    /// an answer made now expires (step end + 300 s) sooner than its max-age, so it is fresh right up to its
    /// `expiresAt`, and Varnish's default grace (10 s) would serve it past that.
    static func maxAgeLateInItsStep(at now: Double) -> Int {
        for maxAge in 600...1800 {
            let position = now.truncatingRemainder(dividingBy: Double(maxAge))
            if position >= Double(maxAge) / 2 && position <= Double(maxAge - 90) { return maxAge }
        }
        return 600
    }

    /// The test moves Varnish's clock just past the first answer's `expiresAt` (as if that much time had passed)
    /// and asks again: every answer Varnish gives was made and aged so that it is delivered no later than its
    /// `expiresAt`; the expired copy is fetched anew, never served stale.
    @Test(.hangGuard)
    func varnishNeverServesASignedAnswerPastItsExpiry() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/sbin/varnishd"), "install Debian's varnish")
        let scratch = try ScratchDirectory(prefix: "livery-varnish")
        try await SigningCLITests.makeKey("k1", in: scratch)
        try FileManager.default.createDirectory(atPath: scratch.path("skins"), withIntermediateDirectories: true)
        let clock = try await FakeWallClock(in: scratch)
        let maxAge = Self.maxAgeLateInItsStep(at: Date().timeIntervalSince1970)
        let arguments = [
            "--signing-key", scratch.path("k1.pem"), "--skins-dir", scratch.path("skins"),
            "--cache-max-age", "\(maxAge)", "--log-level", "warning"
        ]
        let livery = try await SignedServeTests.serve(arguments)
        // What Varnish answered: the first answer, then those after its clock moved past the first's expiresAt.
        let (first, later) = try await blocking { () throws -> (TestResponse, [TestResponse]) in
            let varnish = try VarnishCache(backend: livery.port, in: scratch, environment: clock.environment)
            let client = try TestClient(port: varnish.port, timeout: 10)
            let first = try client.get(Self.poll)
            let expiry = try Self.expiresAt(first)
            // Varnish's clock 2 s past the first answer's expiresAt (its Date is whole seconds, at most 1 s early).
            try clock.set(offset: Int(expiry.timeIntervalSince(try Self.deliveredAt(first)).rounded(.up)) + 2)
            let later = try (0..<3).map { _ in try client.get(Self.poll) }
            withExtendedLifetime(varnish) {}
            return (first, later)
        }
        #expect(first.status == 200, "\(first.text)")
        let control = try #require(first.header("Cache-Control"))
        #expect(control.contains("stale-while-revalidate=") && control.contains("stale-if-error="), "\(control)")
        let made = try Self.deliveredAt(first)
        let expiry = try Self.expiresAt(first)
        #expect(expiry.timeIntervalSince(made) <= Double(maxAge), "fresh up to its expiresAt: \(control)")
        for answer in [first] + later {
            #expect(answer.status == 200, "\(answer.text)")
            #expect(
                try Self.deliveredAt(answer) <= (try Self.expiresAt(answer)),
                "Varnish served an expired answer (Age \(answer.header("Age") ?? "-")): \(answer.text)")
        }
        #expect(try await livery.stop(signal: SIGTERM) == 0)
    }
}
