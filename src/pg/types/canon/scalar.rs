//! The canonical forms of scalar types read by hand: floats, booleans, `numeric` (also jsonb's
//! numbers) and `bytea`. Apart from the dispatch as the value-level parsers it calls.

use crate::pg::types::trim;

pub(super) fn parse_float<F: std::str::FromStr>(v: &[u8]) -> Option<F> {
    let s = std::str::from_utf8(trim(v)).ok()?;
    // Rust reads `inf`, `infinity` and `nan` in any case, as float8in does.
    s.parse().ok()
}

pub(super) fn boolean(v: &[u8]) -> Option<bool> {
    let s = trim(v);
    let pre =
        |w: &[u8]| !s.is_empty() && s.len() <= w.len() && w[..s.len()].eq_ignore_ascii_case(s);
    if pre(b"true") || pre(b"yes") || s.eq_ignore_ascii_case(b"on") || s == b"1" {
        Some(true)
    } else if pre(b"false") || pre(b"no") || (s.len() >= 2 && pre(b"off")) || s == b"0" {
        Some(false)
    } else {
        None
    }
}

/// `numeric`: sign, significant digits, decimal exponent and the display scale, as
/// `numeric_in` keeps them: the scale is part of the value's text (`1.0` and `1.00` print
/// differently, and `scale()` tells them apart), so it is part of the canonical form. The
/// scale is the digits after the point less the exponent (`1.50e1` is `15.0`), or the
/// column's typmod scale (`typmod`), to which the input is rounded. `NaN` and the infinities
/// by name. Written straight into `out` (no allocation per value: this runs for every
/// numeric field).
pub(super) fn numeric(v: &[u8], typmod: Option<u32>, out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    let (neg, rest) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest.first().is_some_and(|b| b.is_ascii_alphabetic()) {
        let name = if rest.eq_ignore_ascii_case(b"nan") && s.len() == 3 {
            &b"NaN"[..]
        } else if rest.eq_ignore_ascii_case(b"infinity") || rest.eq_ignore_ascii_case(b"inf") {
            if neg { b"-Inf" } else { b"+Inf" }
        } else {
            return false;
        };
        out.extend_from_slice(name);
        return true;
    }
    let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int, mut tail) = rest.split_at(int_len);
    let mut frac: &[u8] = &[];
    if tail.first() == Some(&b'.') {
        let n = tail[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        frac = &tail[1..1 + n];
        tail = &tail[1 + n..];
    }
    if int.is_empty() && frac.is_empty() {
        return false;
    }
    let mut e10: i64 = 0;
    if let Some((&e, t)) = tail.split_first()
        && matches!(e, b'e' | b'E')
    {
        let (eneg, t) = match t.first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        if t.is_empty() || t.len() > 7 || !t.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let e = t.iter().fold(0i64, |a, &d| a * 10 + (d - b'0') as i64);
        e10 = if eneg { -e } else { e };
        tail = &[];
    }
    if !tail.is_empty() {
        return false;
    }
    let scale = match typmod {
        Some(s) => s as i64,
        None => (frac.len() as i64 - e10).max(0),
    };
    let mut exp = e10 - frac.len() as i64;
    // The digits are int then frac; drop leading and trailing zeros. Indexes run over the
    // two slices as one (`n` = int's length), without a chained iterator per value.
    let n = int.len();
    let nz = |d: &u8| *d != b'0';
    let Some(lead) = int
        .iter()
        .position(nz)
        .or_else(|| frac.iter().position(nz).map(|p| n + p))
    else {
        // Zero has no sign (`-0.000` prints `0.000`).
        out.push(b'0');
        out.extend_from_slice(&(scale as i32).to_le_bytes());
        return true;
    };
    let trail = frac
        .iter()
        .rposition(nz)
        .map(|p| n + p)
        .or_else(|| int.iter().rposition(nz))
        .expect("a non-zero digit");
    exp += (n + frac.len() - 1 - trail) as i64;
    out.push(if neg { b'-' } else { b'+' });
    out.extend_from_slice(&(scale as i32).to_le_bytes());
    out.extend_from_slice(&(exp as i32).to_le_bytes());
    if lead < n {
        out.extend_from_slice(&int[lead..n.min(trail + 1)]);
    }
    if trail >= n {
        out.extend_from_slice(&frac[lead.max(n) - n..=trail - n]);
    }
    true
}

pub(super) fn bytea(v: &[u8], out: &mut Vec<u8>) -> bool {
    if let Some(h) = v.strip_prefix(b"\\x") {
        let mut hi: Option<u8> = None;
        for &b in h {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                b' ' | b'\t' | b'\n' | b'\r' if hi.is_none() => continue,
                _ => return false,
            };
            match hi.take() {
                None => hi = Some(d),
                Some(x) => out.push(x << 4 | d),
            }
        }
        return hi.is_none();
    }
    let mut i = 0;
    while i < v.len() {
        if v[i] != b'\\' {
            out.push(v[i]);
            i += 1;
            continue;
        }
        match v.get(i + 1..i + 4) {
            _ if v.get(i + 1) == Some(&b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            Some([a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) => {
                out.push((a - b'0') << 6 | (b - b'0') << 3 | (c - b'0'));
                i += 4;
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numeric form as it was written before its fast rewrite (a chained iterator over
    /// the digits): the reference the rewrite must equal.
    fn numeric_reference(v: &[u8], typmod: Option<u32>) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let s = trim(v);
        let (neg, rest) = match s.first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        if rest.first().is_some_and(|b| b.is_ascii_alphabetic()) {
            let mut o = Vec::new();
            return numeric(v, typmod, &mut o).then_some(o);
        }
        let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (int, mut tail) = rest.split_at(int_len);
        let mut frac: &[u8] = &[];
        if tail.first() == Some(&b'.') {
            let n = tail[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            frac = &tail[1..1 + n];
            tail = &tail[1 + n..];
        }
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut e10: i64 = 0;
        if let Some((&e, t)) = tail.split_first()
            && matches!(e, b'e' | b'E')
        {
            let (eneg, t) = match t.first() {
                Some(b'-') => (true, &t[1..]),
                Some(b'+') => (false, &t[1..]),
                _ => (false, t),
            };
            if t.is_empty() || t.len() > 7 || !t.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let e = t.iter().fold(0i64, |a, &d| a * 10 + (d - b'0') as i64);
            e10 = if eneg { -e } else { e };
            tail = &[];
        }
        if !tail.is_empty() {
            return None;
        }
        let scale = match typmod {
            Some(s) => s as i64,
            None => (frac.len() as i64 - e10).max(0),
        };
        let mut exp = e10 - frac.len() as i64;
        let all = || int.iter().chain(frac.iter());
        let Some(lead) = all().position(|&d| d != b'0') else {
            out.push(b'0');
            out.extend_from_slice(&(scale as i32).to_le_bytes());
            return Some(out);
        };
        let total = int.len() + frac.len();
        let trail = total - 1 - all().rev().position(|&d| d != b'0').unwrap();
        exp += (total - 1 - trail) as i64;
        out.push(if neg { b'-' } else { b'+' });
        out.extend_from_slice(&(scale as i32).to_le_bytes());
        out.extend_from_slice(&(exp as i32).to_le_bytes());
        out.extend(all().skip(lead).take(trail + 1 - lead));
        Some(out)
    }

    proptest::proptest! {
        #[test]
        fn numeric_rewrite_agrees_with_the_reference(
            v in "[ ]?[+-]?0{0,3}[0-9]{0,5}0{0,3}(\\.0{0,3}[0-9]{0,5}0{0,3})?([eE][+-]?[0-9]{1,3})?[ ]?",
            typmod in proptest::option::of(0u32..8),
        ) {
            let mut o = Vec::new();
            let ok = numeric(v.as_bytes(), typmod, &mut o);
            proptest::prop_assert_eq!(ok.then_some(o), numeric_reference(v.as_bytes(), typmod), "{:?}", v);
        }
    }
}
