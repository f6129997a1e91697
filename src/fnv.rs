//! FNV-1a, the 64-bit hash that names runs and checks files (checkpoints, the disk store's
//! directory, strong tables): not for hash tables, only for telling two runs or two files apart.

/// The hash of no bytes.
pub(crate) const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

const PRIME: u64 = 0x0000_0100_0000_01b3;

/// `h` (from [`OFFSET`] or an earlier call) continued over `bytes`.
#[must_use]
pub(crate) fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // The published FNV-1a 64-bit test vectors.
        assert_eq!(fnv1a(OFFSET, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            fnv1a(fnv1a(OFFSET, b"foo"), b"bar"),
            fnv1a(OFFSET, b"foobar")
        );
    }
}
