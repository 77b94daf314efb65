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
    let mut i = 0;
    // Sixteen bytes at a time with SSE2 (x86_64's baseline): a jsonb document or a note of a
    // few KB was a table lookup per byte, the largest part of its conversion.
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; each load reads `v[i..i + 16]`, inside the
        // slice, unaligned loads being allowed.
        unsafe {
            let (c, q, r, n) = (
                _mm_set1_epi8(b',' as i8),
                _mm_set1_epi8(b'"' as i8),
                _mm_set1_epi8(b'\r' as i8),
                _mm_set1_epi8(b'\n' as i8),
            );
            while i + 16 <= v.len() {
                let x = _mm_loadu_si128(v.as_ptr().add(i).cast::<__m128i>());
                let hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(x, c), _mm_cmpeq_epi8(x, q)),
                    _mm_or_si128(_mm_cmpeq_epi8(x, r), _mm_cmpeq_epi8(x, n)),
                );
                if _mm_movemask_epi8(hit) != 0 {
                    return true;
                }
                i += 16;
            }
        }
    }
    v[i..].iter().any(|&b| SPECIAL[b as usize])
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
#[inline]
pub fn write_quoted(out: &mut Vec<u8>, v: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if v.len() >= 16 {
        write_quoted_sse2(out, v);
        return;
    }
    write_quoted_scalar(out, v);
}

/// [`write_quoted`] sixteen bytes at a time: a block without a quote is stored whole, a block
/// with quotes is stored in pieces that each end at a quote, which is written again. A
/// jsonb document has a quote every few bytes, where a search per quote cost a call each.
#[cfg(target_arch = "x86_64")]
fn write_quoted_sse2(out: &mut Vec<u8>, v: &[u8]) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        _mm_storeu_si128,
    };
    // The worst case (every byte a quote) and a block of slack: pieces are stored as whole
    // blocks, up to 15 bytes past what they add.
    out.reserve(2 * v.len() + 2 + 16);
    // SAFETY: SSE2 is in x86_64's baseline. Loads read `v[i..i + 16]` (inside `v`),
    // `v[i + from..i + from + 16]` when `i + 32 <= v.len()` (`from <= 16`, inside `v`) or
    // `tmp[from..from + 16]` (inside `tmp`). Every store starts at `dst`, which
    // stays within the `2 * v.len() + 2` bytes reserved past the length (each input byte
    // adds at most two), and writes at most 16 bytes, inside the 16 bytes of slack beyond
    // that; the length grows by exactly the bytes written as output, all initialised.
    unsafe {
        let base = out.as_mut_ptr().add(out.len());
        let mut dst = base;
        *dst = b'"';
        dst = dst.add(1);
        let quote = _mm_set1_epi8(b'"' as i8);
        let mut tmp = [0u8; 32];
        let mut i = 0;
        while i + 16 <= v.len() {
            let x = _mm_loadu_si128(v.as_ptr().add(i).cast::<__m128i>());
            let mut m = _mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)) as u32;
            if m == 0 {
                _mm_storeu_si128(dst.cast::<__m128i>(), x);
                dst = dst.add(16);
            } else {
                // Pieces come from `v` itself where sixteen bytes past the block are there:
                // a load from `tmp` right after the store to it cannot be forwarded and waits
                // for it (the hottest instruction of a jsonb document's conversion).
                let at = if i + 32 <= v.len() {
                    v.as_ptr().add(i)
                } else {
                    _mm_storeu_si128(tmp.as_mut_ptr().cast::<__m128i>(), x);
                    tmp.as_ptr()
                };
                let mut from = 0usize;
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    let piece = _mm_loadu_si128(at.add(from).cast::<__m128i>());
                    _mm_storeu_si128(dst.cast::<__m128i>(), piece);
                    dst = dst.add(k + 1 - from);
                    *dst = b'"';
                    dst = dst.add(1);
                    from = k + 1;
                    m &= m - 1;
                }
                let piece = _mm_loadu_si128(at.add(from).cast::<__m128i>());
                _mm_storeu_si128(dst.cast::<__m128i>(), piece);
                dst = dst.add(16 - from);
            }
            i += 16;
        }
        for &b in &v[i..] {
            *dst = b;
            dst = dst.add(1);
            if b == b'"' {
                *dst = b'"';
                dst = dst.add(1);
            }
        }
        *dst = b'"';
        dst = dst.add(1);
        let written = usize::try_from(dst.offset_from(base)).unwrap_or(0);
        out.set_len(out.len() + written);
    }
}

/// [`write_quoted`] with one search per quote: short values, other CPUs, and the reference
/// the block version is tested against.
fn write_quoted_scalar(out: &mut Vec<u8>, v: &[u8]) {
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The block quoting and the block search against the byte-at-a-time ones, on values
        /// whose quotes, commas, CR, LF and 0xff bytes fall at every place in and across the
        /// sixteen-byte blocks.
        #[test]
        fn block_paths_agree_with_scalar(v in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'"', b'"', b',', b'\r', b'\n', 0xff, b' ']), 0..70)) {
            let (mut a, mut b) = (b"x".to_vec(), b"x".to_vec());
            write_quoted(&mut a, &v);
            write_quoted_scalar(&mut b, &v);
            proptest::prop_assert_eq!(&a, &b);
            proptest::prop_assert_eq!(has_special(&v), v.iter().any(|&b| SPECIAL[b as usize]));
        }
    }
}
