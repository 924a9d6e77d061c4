extension SHA256 {
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: what the guard's webhook signs its body with
    /// (`Livery-Signature-HMAC: sha256=<hex>`). A key longer than the 64-byte block is hashed first.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
