//! The CSV contract every dumpshard tool writes and reads (see docs/csv-contract.md):
//! RFC 4180 with `,` and `"`, `\n` record ends, bytes passed through unchanged; NULL is an
//! unquoted empty field (or the `--null` token), an empty string is `""`. A value is quoted
//! when it is empty, equals the NULL token, contains `,` `"` CR or LF, or is exactly `\.`.
//! PostgreSQL `COPY ... CSV` and CockroachDB `IMPORT INTO ... CSV DATA` read this back exactly.

/// Bytes that force quoting anywhere in a value.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b',' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\r' as usize] = true;
    t[b'\n' as usize] = true;
    t
};

/// True if `v` contains a byte that forces quoting (`,` `"` CR LF).
#[inline]
pub fn has_special(v: &[u8]) -> bool {
    v.iter().any(|&b| SPECIAL[b as usize])
}

/// Writes CSV fields following the contract, with a chosen NULL token.
#[derive(Debug, Clone, Default)]
pub struct FieldWriter {
    null: Vec<u8>,
}

impl FieldWriter {
    /// A writer whose NULL token is `null` (empty = unquoted empty field).
    pub fn new(null: &[u8]) -> FieldWriter {
        FieldWriter {
            null: null.to_vec(),
        }
    }

    /// The NULL token.
    pub fn null(&self) -> &[u8] {
        &self.null
    }

    /// Appends one field: `None` is NULL.
    #[inline]
    pub fn field(&self, out: &mut Vec<u8>, v: Option<&[u8]>) {
        match v {
            None => out.extend_from_slice(&self.null),
            Some(v) => {
                if self.needs_quote(v) {
                    write_quoted(out, v);
                } else {
                    out.extend_from_slice(v);
                }
            }
        }
    }

    /// Whether a (non-NULL) value must be quoted.
    #[inline]
    pub fn needs_quote(&self, v: &[u8]) -> bool {
        v.is_empty() || has_special(v) || v == b"\\." || (v == self.null.as_slice())
    }
}

/// Appends `v` in double quotes, doubling embedded quotes.
pub fn write_quoted(out: &mut Vec<u8>, v: &[u8]) {
    out.reserve(v.len() + 2);
    out.push(b'"');
    let mut rest = v;
    while let Some(i) = memchr::memchr(b'"', rest) {
        out.extend_from_slice(&rest[..=i]);
        out.push(b'"');
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(w: &FieldWriter, v: Option<&[u8]>) -> Vec<u8> {
        let mut o = Vec::new();
        w.field(&mut o, v);
        o
    }

    #[test]
    fn contract() {
        let w = FieldWriter::default();
        assert_eq!(enc(&w, None), b"");
        assert_eq!(enc(&w, Some(b"")), b"\"\"");
        assert_eq!(enc(&w, Some(b"abc")), b"abc");
        assert_eq!(enc(&w, Some(b"a,b")), b"\"a,b\"");
        assert_eq!(enc(&w, Some(b"a\"b")), b"\"a\"\"b\"");
        assert_eq!(enc(&w, Some(b"a\nb")), b"\"a\nb\"");
        assert_eq!(enc(&w, Some(b"a\rb")), b"\"a\rb\"");
        assert_eq!(enc(&w, Some(b"\\.")), b"\"\\.\"");
        assert_eq!(enc(&w, Some(b"\\N")), b"\\N");
        let w = FieldWriter::new(b"\\N");
        assert_eq!(enc(&w, None), b"\\N");
        assert_eq!(enc(&w, Some(b"\\N")), b"\"\\N\"");
        assert_eq!(enc(&w, Some(b"")), b"\"\"");
    }
}
