/// HMAC-SHA256 (RFC 2104) on `SHA256`: a keyed hash, so a value can be recognised again without being kept.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key` (keys longer than the 64-byte block are hashed
    /// first, as RFC 2104 says).
    public static func code<Message: Sequence>(key: [UInt8], message: Message) -> [UInt8]
    where Message.Element == UInt8 {
        var block = key.count > 64 ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
