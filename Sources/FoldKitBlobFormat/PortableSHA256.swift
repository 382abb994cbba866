/// SHA-256 (FIPS 180-4) in plain Swift, for platforms without CryptoKit: Linux's Foundation has no
/// digest, and an app reading blobs should not link a crypto library for one checksum. Apple platforms
/// use CryptoKit instead (`BlobChecksum`); Docs/Library.md "Checksums" says why.
///
/// The message is padded with 0x80, zeros and its bit length as a big-endian UInt64 to a multiple of
/// 64 bytes; each 64-byte block is expanded to 64 words
///     W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16]   (t >= 16)
///     sigma0(x) = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3),  sigma1(x) = rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10)
/// and mixed into the eight working words by 64 rounds
///     T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t],  T2 = Sigma0(a) + Maj(a, b, c)
///     Sigma0(a) = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22),  Sigma1(e) = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
///     Ch(e, f, g) = (e & f) ^ (~e & g),  Maj(a, b, c) = (a & b) ^ (a & c) ^ (b & c)
/// all modulo 2^32. Feed bytes with `update` (any split gives the same digest), then `finalize()`.
public struct PortableSHA256: Sendable {
    /// H(0): the first 32 bits of the fractional parts of the square roots of the first 8 primes.
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
    /// Bytes not yet making a whole 64-byte block.
    private var pending: [UInt8] = []
    /// Bytes fed so far.
    private var length: UInt64 = 0

    /// K: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// A digest of no bytes yet.
    public init() {}

    /// Feeds `bytes` to the digest.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        length &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            start = take
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - start >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + 64)]))
            start += 64
        }
        if start < bytes.count { pending.append(contentsOf: bytes[start...]) }
    }

    /// Feeds the bytes of `data` (an array, `Data`, any contiguous byte collection).
    public mutating func update<Bytes: Sequence>(_ data: Bytes) where Bytes.Element == UInt8 {
        if let done: Void = data.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        let copy = Array(data)
        copy.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything fed (the padding and length block are added to a copy).
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        let padded = (copy.pending.count + 1 + 8 + 63) / 64 * 64
        tail += [UInt8](repeating: 0, count: padded - copy.pending.count - 1 - 8)
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let block = copy.pending + tail
        copy.pending = []
        block.withUnsafeBytes { all in
            for start in stride(from: 0, to: all.count, by: 64) { copy.compress(UnsafeRawBufferPointer(rebasing: all[start..<(start + 64)])) }
        }
        let words = [copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4, copy.state.5, copy.state.6, copy.state.7]
        return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = PortableSHA256()
        hasher.update(bytes)
        return hexString(hasher.finalize())
    }

    /// `bytes` as lowercase hex, two digits a byte.
    static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 0x0f)]) }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    /// One 64-byte block into `state` (the rounds written out above).
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        state = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
            }
            for t in 16..<64 {
                let s0 = Self.rotr(w[t - 15], 7) ^ Self.rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = Self.rotr(w[t - 2], 17) ^ Self.rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = s1 &+ w[t - 7] &+ s0 &+ w[t - 16]
            }
            var (a, b, c, d, e, f, g, h) = state
            for t in 0..<64 {
                let sigma1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                let choose = (e & f) ^ (~e & g)
                let t1 = h &+ sigma1 &+ choose &+ Self.roundConstants[t] &+ w[t]
                let sigma0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = sigma0 &+ majority
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            return (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}
