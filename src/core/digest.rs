//! The digest of what is saved and compared later: 64-bit FNV-1a. A file's
//! content in a version and a request in a call journal are recognised by
//! it after a reload, so it must be the same in every build and on every
//! platform, which the standard library's hashers do not promise. It is
//! not meant to resist a crafted collision, only accidental ones.

/// FNV-1a's offset basis: the digest of nothing.
pub const EMPTY: u64 = 0xcbf2_9ce4_8422_2325;

/// `hash` with `bytes` mixed in.
pub fn fold(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The digest of `text`.
pub fn digest(text: &str) -> u64 {
    fold(EMPTY, text.as_bytes())
}
