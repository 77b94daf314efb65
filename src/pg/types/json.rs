//! `json` / `jsonb` (`json_in`/`jsonb_in`): simd-json first, a rejection confirmed by a grammar-
//! only scan; what jsonb refuses beyond json (numbers numeric cannot hold, `\u0000`).

use super::numeric::check_numeric;
use super::syntax;

thread_local! {
    /// The copy simd-json parses in place and its buffers, reused from value to value: a
    /// copy, a value tree and buffers per value were a third of checking a jsonb column
    /// (issue 36). Validation needs the tape only, never the tree.
    static SCRATCH: std::cell::RefCell<(Vec<u8>, simd_json::Buffers)> =
        std::cell::RefCell::new((Vec::new(), simd_json::Buffers::default()));
}

pub(super) fn check_json(v: &[u8], binary: bool) -> Result<(), String> {
    let t = if binary { "jsonb" } else { "json" };
    let simd_ok = SCRATCH.with(|s| {
        let (buf, buffers) = &mut *s.borrow_mut();
        buf.clear();
        buf.extend_from_slice(v);
        simd_json::Deserializer::from_slice_with_buffers(buf, buffers).is_ok()
    });
    // simd-json is stricter than PostgreSQL's json in two corners (lone surrogate escapes,
    // numbers beyond f64), so a rejection is confirmed by a grammar-only scan.
    if !simd_ok && !json_grammar_ok(v) {
        return Err(syntax(t));
    }
    if binary {
        jsonb_extra(v)?;
    }
    Ok(())
}

pub(super) fn jsonb_extra(v: &[u8]) -> Result<(), String> {
    let mut i = 0;
    let mut in_str = false;
    while i < v.len() {
        if in_str {
            // The plain run of a string up to its next quote or backslash.
            match quote_or_backslash(&v[i..]) {
                Some(n) => i += n,
                None => break,
            }
        }
        let b = v[i];
        if in_str {
            if b == b'\\' {
                if v.get(i + 1) == Some(&b'u') {
                    let hex = v.get(i + 2..i + 6).unwrap_or(b"");
                    if hex == b"0000" {
                        return Err("unsupported Unicode escape sequence \\u0000 in jsonb".into());
                    }
                    if let Ok(h) = u16::from_str_radix(std::str::from_utf8(hex).unwrap_or(""), 16)
                        && (0xD800..0xE000).contains(&h)
                    {
                        let lo = v.get(i + 8..i + 12).unwrap_or(b"");
                        let pair = (0xD800..0xDC00).contains(&h)
                            && v.get(i + 6..i + 8) == Some(b"\\u")
                            && u16::from_str_radix(std::str::from_utf8(lo).unwrap_or(""), 16)
                                .is_ok_and(|l| (0xDC00..0xE000).contains(&l));
                        if !pair {
                            return Err(syntax("jsonb"));
                        }
                        i += 12;
                        continue;
                    }
                }
                i += 2;
                continue;
            }
            if b == b'"' {
                in_str = false;
            }
        } else if b == b'"' {
            in_str = true;
        } else if b.is_ascii_digit() || b == b'-' {
            // A number: it becomes numeric, which has limits.
            let st = i;
            while i < v.len() && matches!(v[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                i += 1;
            }
            check_numeric(&v[st..i], None).map_err(|e| format!("{e} (in jsonb)"))?;
            continue;
        }
        i += 1;
    }
    Ok(())
}

/// The first `"` or `\` in `v`: sixteen bytes at a time, inline. A document's strings are
/// a few bytes each, where a `memchr2` call per string cost more than its search (the
/// `memchr` family was about a sixth of checking the jsonb corpus).
#[inline]
fn quote_or_backslash(v: &[u8]) -> Option<usize> {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; each load reads `v[i..i + 16]`, inside `v`,
        // unaligned loads being allowed.
        unsafe {
            let (q, b) = (_mm_set1_epi8(b'"' as i8), _mm_set1_epi8(b'\\' as i8));
            while i + 16 <= v.len() {
                let x = _mm_loadu_si128(v.as_ptr().add(i).cast::<__m128i>());
                let m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)));
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
    }
    v[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\')
        .map(|k| i + k)
}

/// JSON grammar (RFC 8259) without value limits, as PostgreSQL's json lexer checks it.
pub(super) fn json_grammar_ok(v: &[u8]) -> bool {
    let mut p = JsonP { s: v, i: 0 };
    p.ws();
    if !p.value(0) {
        return false;
    }
    p.ws();
    p.i == v.len()
}

pub(super) struct JsonP<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
}

impl JsonP<'_> {
    pub(super) fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }
    pub(super) fn lit(&mut self, w: &[u8]) -> bool {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }
    pub(super) fn value(&mut self, depth: usize) -> bool {
        if depth > 6400 {
            return false;
        }
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                self.ws();
                if self.lit(b"}") {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.string() {
                        return false;
                    }
                    self.ws();
                    if !self.lit(b":") {
                        return false;
                    }
                    self.ws();
                    if !self.value(depth + 1) {
                        return false;
                    }
                    self.ws();
                    if self.lit(b"}") {
                        return true;
                    }
                    if !self.lit(b",") {
                        return false;
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                self.ws();
                if self.lit(b"]") {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.value(depth + 1) {
                        return false;
                    }
                    self.ws();
                    if self.lit(b"]") {
                        return true;
                    }
                    if !self.lit(b",") {
                        return false;
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(b't') => self.lit(b"true"),
            Some(b'f') => self.lit(b"false"),
            Some(b'n') => self.lit(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }
    pub(super) fn string(&mut self) -> bool {
        if !self.lit(b"\"") {
            return false;
        }
        while let Some(&b) = self.s.get(self.i) {
            self.i += 1;
            match b {
                b'"' => return true,
                b'\\' => match self.s.get(self.i) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                    Some(b'u') => {
                        let h = self.s.get(self.i + 1..self.i + 5);
                        if !h.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return false;
                        }
                        self.i += 5;
                    }
                    _ => return false,
                },
                0..=0x1f => return false,
                _ => {}
            }
        }
        false
    }
    pub(super) fn number(&mut self) -> bool {
        self.lit(b"-");
        let st = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        let n = self.i - st;
        if n == 0 || (n > 1 && self.s[st] == b'0') {
            return false;
        }
        if self.lit(b".") {
            let f = self.i;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            if self.i == f {
                return false;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let f = self.i;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            if self.i == f {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The block search against a byte-at-a-time one, with quotes and backslashes at every
        /// place in and across sixteen-byte blocks.
        #[test]
        fn quote_or_backslash_agrees_with_position(v in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'a', b'a', b'a', b'"', b'\\', 0xff]), 0..60)) {
            proptest::prop_assert_eq!(
                quote_or_backslash(&v),
                v.iter().position(|&c| c == b'"' || c == b'\\')
            );
        }
    }
}
