//! Turning untrusted table names into file names, and matching `-t` patterns.
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

/// A `-t` pattern as pg_dump reads it: `table` or `schema.table`, where unquoted parts are
/// folded to lower case, `"..."` parts are taken literally, `*` matches any run of characters
/// and `?` any one character. A pattern without a schema matches tables in every schema.
#[derive(Debug, Clone)]
pub struct TablePattern {
    schema: Option<Vec<Tok>>,
    table: Vec<Tok>,
    text: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Lit(char),
    Star,
    One,
}

impl TablePattern {
    /// Parses a pattern.
    pub fn parse(p: &str) -> Result<TablePattern, String> {
        let mut parts: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut in_quote = false;
        let mut chars = p.chars().peekable();
        while let Some(c) = chars.next() {
            let cur = parts.last_mut().expect("at least one part");
            if in_quote {
                if c == '"' {
                    if chars.peek() == Some(&'"') {
                        chars.next();
                        cur.push(Tok::Lit('"'));
                    } else {
                        in_quote = false;
                    }
                } else {
                    cur.push(Tok::Lit(c));
                }
                continue;
            }
            match c {
                '"' => in_quote = true,
                '.' => parts.push(Vec::new()),
                '*' => cur.push(Tok::Star),
                '?' => cur.push(Tok::One),
                c => cur.extend(c.to_lowercase().map(Tok::Lit)),
            }
        }
        if in_quote {
            return Err(format!("unterminated quote in table pattern '{p}'"));
        }
        match parts.len() {
            1 => Ok(TablePattern {
                schema: None,
                table: parts.pop().unwrap_or_default(),
                text: p.into(),
            }),
            2 => {
                let table = parts.pop().unwrap_or_default();
                let schema = parts.pop();
                Ok(TablePattern {
                    schema,
                    table,
                    text: p.into(),
                })
            }
            _ => Err(format!(
                "table pattern '{p}' has too many dots (use schema.table; quote names with dots)"
            )),
        }
    }

    /// The pattern as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether a table matches.
    pub fn matches(&self, schema: &str, table: &str) -> bool {
        self.schema
            .as_ref()
            .is_none_or(|s| glob(s, &schema.chars().collect::<Vec<_>>()))
            && glob(&self.table, &table.chars().collect::<Vec<_>>())
    }
}

fn glob(p: &[Tok], s: &[char]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((Tok::Star, rest)) => (0..=s.len()).any(|i| glob(rest, &s[i..])),
        Some((Tok::One, rest)) => !s.is_empty() && glob(rest, &s[1..]),
        Some((Tok::Lit(c), rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
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

    #[test]
    fn patterns() {
        let p = TablePattern::parse("public.ord*").unwrap();
        assert!(p.matches("public", "orders"));
        assert!(!p.matches("sales", "orders"));
        let p = TablePattern::parse("Items").unwrap();
        assert!(p.matches("sales", "items"));
        assert!(!p.matches("sales", "Items"));
        let p = TablePattern::parse("\"Items\"").unwrap();
        assert!(p.matches("x", "Items"));
        let p = TablePattern::parse("\"my.table name\"").unwrap();
        assert!(p.matches("public", "my.table name"));
        let p = TablePattern::parse("t?").unwrap();
        assert!(p.matches("s", "t1") && !p.matches("s", "t12"));
        assert!(TablePattern::parse("a.b.c").is_err());
        assert!(TablePattern::parse("\"a").is_err());
    }
}
