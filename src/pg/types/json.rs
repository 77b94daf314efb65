//! `json` / `jsonb` (`json_in`/`jsonb_in`): the JSON grammar as PostgreSQL's lexer reads it;
//! what jsonb refuses beyond json (numbers numeric cannot hold, `\u0000`, lone surrogates).

use super::numeric::check_numeric;
use super::syntax;

/// The grammar is checked by hand, not by simd-json: simd-json builds a tape of every value
/// (strings unescaped, numbers parsed) that a check never reads, and is stricter than
/// PostgreSQL in two corners (lone surrogate escapes, numbers beyond f64), so each refusal
/// had to be confirmed by the grammar anyway. The grammar alone, its strings' plain runs
/// taken sixteen bytes at a time, checked the jsonb corpus in 17% less CPU (issue 36).
pub(super) fn check_json(v: &[u8], binary: bool) -> Result<(), String> {
    if !json_grammar_ok(v) {
        return Err(syntax(if binary { "jsonb" } else { "json" }));
    }
    // jsonb's own rules, by the exact scan only where the quick one sees they could fail
    // (the exact scan, byte by byte over every document, was a sixth of checking jsonb).
    if binary && jsonb_may_refuse(v) {
        jsonb_extra(v)?;
    }
    Ok(())
}

/// Past this length a number without an exponent could have more digits after its point
/// than numeric's scale holds (`NUMERIC_MAX_DSCALE`); up to it, every JSON number without
/// one is a numeric.
const PLAIN_NUMBERS_FIT: usize = 16383;

/// Whether a document the grammar took could hold what jsonb refuses beyond json: a number
/// with an exponent (a digit before an `e` or `E`: numeric has limits), or a long one; a
/// `\u` escape of a NUL or a surrogate (a lone one is refused, a pair is not: the exact
/// scan decides). True also for text in strings that looks so, so it only says when
/// [`jsonb_extra`] must look: sixteen bytes at a time, a few operations each.
#[inline]
fn jsonb_may_refuse(v: &[u8]) -> bool {
    if v.len() > PLAIN_NUMBERS_FIT {
        return true;
    }
    // A `\u` whose four hex digits are a NUL or a surrogate (`d800`-`dfff`); truncated
    // ones too. `u` is the position of the `u`.
    let suspect = |u: usize| match v.get(u + 1..u + 5) {
        Some(h) => h == b"0000" || matches!(h[0], b'd' | b'D'),
        None => true,
    };
    let mut i = 0;
    // The byte before block `i` was a digit, a backslash.
    let (mut digit_before, mut slash_before) = (false, false);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_min_epu8,
            _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; each load reads `v[i..i + 16]`, inside `v`,
        // unaligned loads being allowed.
        unsafe {
            let (zero, nine) = (_mm_set1_epi8(b'0' as i8), _mm_set1_epi8(b'9' as i8));
            let (lower, e) = (_mm_set1_epi8(0x20), _mm_set1_epi8(b'e' as i8));
            let (slash, u) = (_mm_set1_epi8(b'\\' as i8), _mm_set1_epi8(b'u' as i8));
            while i + 16 <= v.len() {
                let x = _mm_loadu_si128(v.as_ptr().add(i).cast::<__m128i>());
                let d = _mm_movemask_epi8(_mm_and_si128(
                    _mm_cmpeq_epi8(_mm_max_epu8(x, zero), x),
                    _mm_cmpeq_epi8(_mm_min_epu8(x, nine), x),
                )) as u32;
                let es = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(x, lower), e)) as u32;
                let b = _mm_movemask_epi8(_mm_cmpeq_epi8(x, slash)) as u32;
                let us = _mm_movemask_epi8(_mm_cmpeq_epi8(x, u)) as u32;
                if es & (d << 1 | u32::from(digit_before)) != 0 {
                    return true;
                }
                let mut escapes = us & (b << 1 | u32::from(slash_before));
                while escapes != 0 {
                    if suspect(i + escapes.trailing_zeros() as usize) {
                        return true;
                    }
                    escapes &= escapes - 1;
                }
                digit_before = d >> 15 != 0;
                slash_before = b >> 15 != 0;
                i += 16;
            }
        }
    }
    for (k, &c) in v.iter().enumerate().skip(i) {
        if (c | 0x20) == b'e' && digit_before || c == b'u' && slash_before && suspect(k) {
            return true;
        }
        digit_before = c.is_ascii_digit();
        slash_before = c == b'\\';
    }
    false
}

/// What jsonb refuses in a document the grammar ([`json_grammar_ok`]) took: numbers beyond
/// numeric, `\u0000`, lone surrogate escapes. Byte by byte outside strings.
pub(super) fn jsonb_extra(v: &[u8]) -> Result<(), String> {
    let mut i = 0;
    let mut in_str = false;
    while i < v.len() {
        if in_str {
            // The plain run of a string up to its next quote or backslash (the grammar took
            // `v`, so its strings hold no control characters, where the run also stops).
            i += plain_run(&v[i..]);
            if i == v.len() {
                break;
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

/// The length of `v`'s prefix that a JSON string takes as it is: no `"`, `\\` or control
/// character (below 0x20). Sixteen bytes at a time, inline: a document's strings are most of
/// its bytes, and the byte-at-a-time loop was most of checking one.
#[inline]
fn plain_run(v: &[u8]) -> usize {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; each load reads `v[i..i + 16]`, inside `v`,
        // unaligned loads being allowed.
        unsafe {
            let (q, b, c) = (
                _mm_set1_epi8(b'"' as i8),
                _mm_set1_epi8(b'\\' as i8),
                _mm_set1_epi8(0x1f),
            );
            while i + 16 <= v.len() {
                let x = _mm_loadu_si128(v.as_ptr().add(i).cast::<__m128i>());
                // A byte at most 0x1f is its own minimum with 0x1f.
                let ctl = _mm_cmpeq_epi8(_mm_min_epu8(x, c), x);
                let m = _mm_movemask_epi8(_mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)),
                    ctl,
                ));
                if m != 0 {
                    return i + m.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
    }
    v[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map_or(v.len(), |k| i + k)
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
        loop {
            self.i += plain_run(&self.s[self.i..]);
            let Some(&b) = self.s.get(self.i) else {
                break;
            };
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
    use proptest::strategy::Strategy;

    /// [`check_json`] as it was before the quick scan: the exact scan on every jsonb value.
    fn check_jsonb_exact(v: &[u8]) -> Result<(), String> {
        if !json_grammar_ok(v) {
            return Err(syntax("jsonb"));
        }
        jsonb_extra(v)
    }

    /// A JSON text made of pieces jsonb may refuse: exponents small and past numeric's
    /// range, `\u` escapes of NULs, surrogates (paired, lone, truncated), escaped
    /// backslashes before `u0000`, digits before `e` in strings, a number longer than
    /// numeric's scale; at every place in and
    /// across sixteen-byte blocks.
    fn jsonb_text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        let piece = proptest::sample::select(
            vec![
                "1",
                "12",
                "-3",
                "0.5",
                "1e5",
                "1E400",
                "2e-20000",
                "1e1000000",
                "-7.25E+3",
                "\"ab\"",
                "\"5e\"",
                "\"x\\u0000\"",
                "\"\\u0000\"",
                "\"\\ud800\"",
                "\"\\udc00\"",
                "\"\\ud83d\\ude00\"",
                "\"\\u00e9\"",
                "\"\\uD83D\\uDE00\"",
                "\"\\\\u0000\"",
                "\"\\\\\"",
                "true",
                "false",
                "null",
                "\"\\ud800\\u0041\"",
                "\"\\u0\"",
                "\"aaaaaaaaaaaaaaa\"",
                "\"\"",
                "\"a\"",
                "\"aaa\"",
                "[]",
                "{}",
            ]
            .into_iter()
            .map(String::from)
            // One digit past numeric's scale, without an exponent.
            .chain([format!("0.{}1", "0".repeat(16383))])
            .collect::<Vec<_>>(),
        );
        proptest::collection::vec(piece, 1..12).prop_map(|ps| {
            let mut v = b"[".to_vec();
            for (k, p) in ps.iter().enumerate() {
                if k > 0 {
                    v.extend_from_slice(b", ");
                }
                v.extend_from_slice(p.as_bytes());
            }
            v.push(b']');
            v
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// jsonb's check with the quick scan against the exact scan on every value: the same
        /// answer, the same message.
        #[test]
        fn jsonb_quick_scan_agrees_with_the_exact_one(v in jsonb_text()) {
            proptest::prop_assert_eq!(check_json(&v, true), check_jsonb_exact(&v), "{}",
                String::from_utf8_lossy(&v));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// A string's plain run by blocks against a byte-at-a-time search, with quotes,
        /// backslashes and control characters (0x1f and 0x00 below the bound, 0x20 and 0x7f
        /// above it) at every place in and across sixteen-byte blocks.
        #[test]
        fn plain_run_agrees_with_position(v in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'a', b'a', b'a', b'"', b'\\', 0x1f, 0x00, 0x20,
                0x7f, 0xff]), 0..60)) {
            proptest::prop_assert_eq!(
                plain_run(&v),
                v.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20).unwrap_or(v.len())
            );
        }
    }
}
