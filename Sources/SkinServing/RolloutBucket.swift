import LiveryCrypto
import SkinModel

/// Sticky percentage rollout.
///
/// A device's bucket for a skin is `SHA-256(skinID ":" deviceID)` read as a big-endian integer modulo 100, so it is
/// uniform, independent across skins, and stable across calls, restarts and machines. A device is included iff
/// its bucket is below the rollout percentage, so raising the percentage only ever adds devices.
public enum RolloutBucket {
    /// The device's bucket in `0..<100`.
    public static func bucket(deviceID: String, skinID: SkinID) -> Int {
        let digest = SHA256.hash(Array("\(skinID.rawValue):\(deviceID)".utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % 100)
    }

    /// Whether a client is inside a rollout. Without a device id only a 100 % rollout includes it.
    public static func includes(deviceID: String?, skinID: SkinID, rollout: Int) -> Bool {
        if rollout >= 100 { return true }
        if rollout <= 0 { return false }
        guard let deviceID, !deviceID.isEmpty else { return false }
        return bucket(deviceID: deviceID, skinID: skinID) < rollout
    }
}
