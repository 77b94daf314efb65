//! Turning untrusted table names into file names (pg_dump's `-t` patterns: `pattern.rs`).
//!
//! File names: `<enc(schema)>.<enc(table)>.csv`, where `enc` keeps `[A-Za-z0-9_-]` and writes
//! every other byte as `%XX` (uppercase hex). The encoding is injective (`%` itself is encoded)
//! and never produces `.`, `/` or a leading dot, so no name can leave the output directory or
//! collide with another table's file.
//!
//! Identifiers are up to 63 bytes, so `%XX` names can reach about 380 bytes, past the 255-byte
//! limit of file systems. A name longer than [`MAX_NAME`] bytes is shortened: each part is
//! cut at a character boundary and `~` plus 16 hex digits of a hash of the full schema and
//! table name are appended. `enc` never writes `~`, so shortened names cannot equal full
//! ones, and two shortened names differ unless the 64-bit hashes collide. The full name is in
//! the manifest.

/// Encodes one identifier for use in a file name.
pub fn encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for &b in name.as_bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Longest file name written as is: leaves room under 255 bytes for the `.NAME.PID.tmp`
/// name the file has while it is written.
pub const MAX_NAME: usize = 200;

/// Longest encoded part (schema or table) of a shortened name.
const MAX_PART: usize = 80;

/// The CSV file name for a table (without directory), `ext` being `csv` or `csv.gz`.
pub fn file_name(schema: &str, table: &str, ext: &str) -> String {
    let full = format!("{}.{}.{ext}", encode(schema), encode(table));
    if full.len() <= MAX_NAME {
        return full;
    }
    let mut key = Vec::with_capacity(schema.len() + table.len() + 1);
    // No identifier holds a NUL, so this joins the two names unambiguously.
    key.extend_from_slice(schema.as_bytes());
    key.push(0);
    key.extend_from_slice(table.as_bytes());
    let hash = twox_hash::XxHash64::oneshot(0, &key);
    format!(
        "{}.{}~{hash:016x}.{ext}",
        encode_prefix(schema),
        encode_prefix(table)
    )
}

/// `encode` of the longest prefix of `name`, cut between characters, that fits in MAX_PART.
fn encode_prefix(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let mut buf = [0u8; 4];
        let e = encode(c.encode_utf8(&mut buf));
        if out.len() + e.len() > MAX_PART {
            break;
        }
        out.push_str(&e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding() {
        assert_eq!(encode("orders"), "orders");
        assert_eq!(encode("my.table name"), "my%2Etable%20name");
        assert_eq!(encode("../x"), "%2E%2E%2Fx");
        assert_eq!(encode("a%b"), "a%25b");
        assert_eq!(encode("é"), "%C3%A9");
        assert_eq!(file_name("public", "Order", "csv"), "public.Order.csv");
    }

    #[test]
    fn long_names_are_bounded_and_distinct() {
        // 63-byte names: 31 two-byte letters and one ASCII letter.
        let s = format!("{}s", "ж".repeat(31));
        let (a, b) = (
            format!("{}a", "ж".repeat(31)),
            format!("{}b", "ж".repeat(31)),
        );
        let fa = file_name(&s, &a, "csv.gz");
        let fb = file_name(&s, &b, "csv.gz");
        assert!(fa.len() <= MAX_NAME && fb.len() <= MAX_NAME, "{fa}");
        assert_ne!(fa, fb);
        assert!(fa.starts_with(&"%D0%B6".repeat(13)), "{fa}");
        assert!(fa.ends_with(".csv.gz") && fa.contains('~'), "{fa}");
        assert!(!fa.starts_with('.') && !fa.contains('/'));
        // Cut between characters: every %XX triple is whole and the UTF-8 is too.
        let stem = fa.split('~').next().unwrap();
        for part in stem.split('.') {
            assert_eq!(part.len() % 6, 0, "{part}");
        }
        // Short names are unchanged.
        assert_eq!(file_name(&s, "t", "csv"), format!("{}.t.csv", encode(&s)));
    }
}
