import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP on `URLSession`, streamed: every body reaches a sink chunk by chunk on one serial queue (never held whole
/// unless the caller collects it), and a sink that throws cancels the transfer at once.
///
/// No cache (`If-None-Match` is the SDK's own), no cookies, no credentials.
final class HTTPTransport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Invariant: `handlers` is the only mutable state; delegate callbacks arrive on `queue` (serial), one handler per
    // task, so a handler's own fields are only touched there.
    private let handlers = LockedBox<[Int: TransferHandler]>([:])
    private let sessionBox = LockedBox<URLSession?>(nil)
    private let queue: OperationQueue
    private let timeout: TimeInterval

    init(timeout: TimeInterval) {
        self.timeout = timeout
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "LiveryKit.HTTPTransport"
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        sessionBox.withLock { $0 = session }
    }

    /// Ends the session; transfers in flight fail with `network`.
    func invalidate() { sessionBox.withLock { $0?.invalidateAndCancel() } }

    /// A response's status and header fields (names compared ignoring case).
    struct Head: Sendable {
        var status: Int
        var fields: [String: String]

        func field(_ name: String) -> String? {
            let lowered = name.lowercased()
            return fields.first { $0.key.lowercased() == lowered }?.value
        }
    }

    /// Sends `request`; `onHead` sees the status and fields first (throw to refuse), then `onChunk` every body chunk
    /// in order on the transport's serial queue. Returns once the body has ended.
    ///
    /// - Throws: `network` when the connection fails or is cut, or the error a callback threw.
    func send(
        _ request: URLRequest, onHead: @escaping @Sendable (Head) throws(LiveryError) -> Void,
        onChunk: @escaping @Sendable (Data) throws(LiveryError) -> Void
    ) async throws(LiveryError) -> Head {
        guard let session = sessionBox.withLock({ $0 }) else { throw LiveryError(.network, "the client was closed") }
        var request = request
        request.timeoutInterval = timeout
        let task = session.dataTask(with: request)
        let result: Result<Head, LiveryError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let handler = TransferHandler(onHead: onHead, onChunk: onChunk, continuation: continuation)
                handlers.withLock { $0[task.taskIdentifier] = handler }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }

    /// Sends `request` and collects a body of at most `limit` bytes.
    func get(_ request: URLRequest, limit: Int) async throws(LiveryError) -> (Head, [UInt8]) {
        let body = LockedBox<[UInt8]>([])
        let head = try await send(request, onHead: { _ in }) { (chunk: Data) throws(LiveryError) in
            try body.withLock { (bytes: inout [UInt8]) throws(LiveryError) in
                guard bytes.count + chunk.count <= limit else {
                    throw LiveryError(.server, "the answer is longer than \(limit) bytes")
                }
                bytes.append(contentsOf: chunk)
            }
        }
        return (head, body.withLock { $0 })
    }

    // MARK: URLSessionDataDelegate (on `queue`)

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let handler = handlers.withLock({ $0[dataTask.taskIdentifier] }) else {
            return completionHandler(.cancel)
        }
        guard let http = response as? HTTPURLResponse else {
            handler.fail(LiveryError(.server, "not an HTTP response"))
            return completionHandler(.cancel)
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        let head = Head(status: http.statusCode, fields: fields)
        handler.head = head
        do {
            try handler.onHead(head)
            completionHandler(.allow)
        } catch {
            handler.fail(error)
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let handler = handlers.withLock({ $0[dataTask.taskIdentifier] }), handler.failure == nil else { return }
        do {
            try handler.onChunk(data)
        } catch {
            handler.fail(error)
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let handler = handlers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = handler.failure {
            handler.continuation.resume(returning: .failure(failure))
        } else if let error {
            handler.continuation.resume(returning: .failure(LiveryError(.network, LiveryError.reason(error))))
        } else if let head = handler.head {
            handler.continuation.resume(returning: .success(head))
        } else {
            handler.continuation.resume(
                returning: .failure(LiveryError(.network, "the connection ended without a response")))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Redirects are followed only to the same scheme, never from https down to http.
        let downgrade = task.originalRequest?.url?.scheme == "https" && request.url?.scheme != "https"
        completionHandler(downgrade ? nil : request)
    }
}

/// One transfer's callbacks and outcome. Touched only on the transport's serial queue after registration.
private final class TransferHandler: @unchecked Sendable {
    let onHead: @Sendable (HTTPTransport.Head) throws(LiveryError) -> Void
    let onChunk: @Sendable (Data) throws(LiveryError) -> Void
    let continuation: CheckedContinuation<Result<HTTPTransport.Head, LiveryError>, Never>
    var head: HTTPTransport.Head?
    var failure: LiveryError?

    init(
        onHead: @escaping @Sendable (HTTPTransport.Head) throws(LiveryError) -> Void,
        onChunk: @escaping @Sendable (Data) throws(LiveryError) -> Void,
        continuation: CheckedContinuation<Result<HTTPTransport.Head, LiveryError>, Never>
    ) {
        self.onHead = onHead
        self.onChunk = onChunk
        self.continuation = continuation
    }

    func fail(_ error: LiveryError) { if failure == nil { failure = error } }
}
