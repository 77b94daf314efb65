//! The canonical forms of structured literals, element by element: arrays (`array_in`),
//! ranges (`range_in`), multiranges and composites (`record_in`). Apart because they read
//! nested literals (quotes, backslashes, delimiters) and call back into the dispatch for each
//! element.

use super::{Form, element};
use crate::pg::types::{is_space, trim};

/// An array literal, element by element: the optional `[l:u]=` dimensions as written, then
/// `{`, each element (NULL, or its canonical form with its length), `}` per level.
pub(super) fn array(elem: &Form, v: &[u8], out: &mut Vec<u8>) -> bool {
    let mut s = trim(v);
    if s.first() == Some(&b'[') {
        let Some(eq) = s.iter().position(|&b| b == b'=') else {
            return false;
        };
        out.extend(s[..eq].iter().filter(|&&b| !is_space(b)));
        s = trim(&s[eq + 1..]);
    }
    let mut i = 0;
    let mut val = Vec::new();
    if !array_level(elem, s, &mut i, out, &mut val, 0) {
        return false;
    }
    i == s.len()
}

fn array_level(
    elem: &Form,
    s: &[u8],
    i: &mut usize,
    out: &mut Vec<u8>,
    val: &mut Vec<u8>,
    depth: usize,
) -> bool {
    if depth > 6 || s.get(*i) != Some(&b'{') {
        return false;
    }
    *i += 1;
    out.push(b'{');
    let skip = |i: &mut usize| {
        while s.get(*i).is_some_and(|&b| is_space(b)) {
            *i += 1;
        }
    };
    skip(i);
    if s.get(*i) == Some(&b'}') {
        *i += 1;
        out.push(b'}');
        return true;
    }
    loop {
        skip(i);
        match s.get(*i) {
            Some(b'{') => {
                if !array_level(elem, s, i, out, val, depth + 1) {
                    return false;
                }
            }
            Some(b'"') => {
                *i += 1;
                let start = *i;
                // Most quoted elements hold no backslash: hand the slice on as it is.
                let Some(n) = memchr::memchr2(b'"', b'\\', &s[start..]) else {
                    return false;
                };
                if s[start + n] == b'"' {
                    *i = start + n + 1;
                    element(elem, &s[start..start + n], out);
                } else {
                    val.clear();
                    loop {
                        match s.get(*i) {
                            None => return false,
                            Some(b'"') => {
                                *i += 1;
                                break;
                            }
                            Some(b'\\') => {
                                let Some(&b) = s.get(*i + 1) else {
                                    return false;
                                };
                                val.push(b);
                                *i += 2;
                            }
                            Some(&b) => {
                                val.push(b);
                                *i += 1;
                            }
                        }
                    }
                    element(elem, val, out);
                }
            }
            Some(b',' | b'}') | None => return false,
            Some(_) => {
                let start = *i;
                let mut escaped = false;
                loop {
                    match s.get(*i) {
                        None | Some(b'"' | b'{') => return false,
                        Some(b',' | b'}') => break,
                        Some(b'\\') => {
                            escaped = true;
                            *i += 2;
                        }
                        Some(_) => *i += 1,
                    }
                }
                if *i > s.len() {
                    return false;
                }
                if !escaped {
                    // Trailing spaces are not part of an unquoted element.
                    let raw = &s[start..*i];
                    let n = raw.iter().rposition(|&b| !is_space(b)).map_or(0, |j| j + 1);
                    let raw = &raw[..n];
                    if raw.eq_ignore_ascii_case(b"null") {
                        out.push(b'N');
                    } else {
                        element(elem, raw, out);
                    }
                } else {
                    val.clear();
                    let mut keep = 0;
                    let mut j = start;
                    while j < *i {
                        if s[j] == b'\\' {
                            val.push(s[j + 1]);
                            j += 2;
                            keep = val.len();
                        } else {
                            val.push(s[j]);
                            j += 1;
                        }
                    }
                    while val.len() > keep && val.last().is_some_and(|&b| is_space(b)) {
                        val.pop();
                    }
                    element(elem, val, out);
                }
            }
        }
        skip(i);
        match s.get(*i) {
            Some(b',') => *i += 1,
            Some(b'}') => {
                *i += 1;
                out.push(b'}');
                return true;
            }
            _ => return false,
        }
    }
}

/// A field of a composite or a bound of a range as `record_in` and `range_in` read it:
/// unquoted bytes up to a delimiter in `ends`, `"..."` parts (`""` inside is one quote) and
/// backslash escapes anywhere; whitespace is kept (the field's input function decides).
/// Returns the unescaped text in `val` and whether anything was there at all (an empty
/// field is NULL in a composite, an absent bound in a range); `None` when the text ends
/// unterminated.
fn delimited<'a>(
    s: &'a [u8],
    i: &mut usize,
    ends: &[u8],
    val: &'a mut Vec<u8>,
) -> Option<(bool, &'a [u8])> {
    let start = *i;
    // Most fields and bounds (numbers, dates, words) have neither quotes nor backslashes:
    // hand on the slice as it is, without copying it byte by byte (issue 35, item 8).
    let mut j = start;
    loop {
        let &b = s.get(j)?;
        if b == b'"' || b == b'\\' {
            break;
        }
        if ends.contains(&b) {
            *i = j;
            return Some((j > start, &s[start..j]));
        }
        j += 1;
    }
    val.clear();
    let mut quoted = false;
    loop {
        let &b = s.get(*i)?;
        if !quoted && ends.contains(&b) {
            return Some((*i > start, val));
        }
        *i += 1;
        match b {
            b'\\' => {
                val.push(*s.get(*i)?);
                *i += 1;
            }
            b'"' if quoted && s.get(*i) == Some(&b'"') => {
                val.push(b'"');
                *i += 1;
            }
            b'"' => quoted = !quoted,
            _ => val.push(b),
        }
    }
}

/// A range literal (`range_in`): `empty`, or `[`/`(`, the lower bound, `,`, the upper
/// bound, `]`/`)`, each bound in its subtype's form (a `tstzrange` bound written under any
/// session time zone is its UTC instant). An absent bound is infinite and never inclusive.
pub(super) fn range(sub: &Form, v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    if s.eq_ignore_ascii_case(b"empty") {
        out.push(b'E');
        return true;
    }
    let mut i = 0;
    let mut val = Vec::new();
    range_at(sub, s, &mut i, out, &mut val) && i == s.len()
}

fn range_at(sub: &Form, s: &[u8], i: &mut usize, out: &mut Vec<u8>, val: &mut Vec<u8>) -> bool {
    if s.get(*i..*i + 5)
        .is_some_and(|w| w.eq_ignore_ascii_case(b"empty"))
    {
        *i += 5;
        out.push(b'E');
        return true;
    }
    let lower_inc = match s.get(*i) {
        Some(b'[') => true,
        Some(b'(') => false,
        _ => return false,
    };
    *i += 1;
    let Some((has_lower, lower)) = delimited(s, i, b",", val) else {
        return false;
    };
    let flag =
        |out: &mut Vec<u8>, has: bool, inc: bool| out.push(b'0' + has as u8 * (1 + inc as u8));
    flag(out, has_lower, lower_inc);
    if has_lower {
        element(sub, lower, out);
    }
    *i += 1; // the comma
    let Some((has_upper, upper)) = delimited(s, i, b")]", val) else {
        return false;
    };
    let upper_inc = s[*i] == b']';
    *i += 1;
    flag(out, has_upper, upper_inc);
    if has_upper {
        element(sub, upper, out);
    }
    true
}

/// A multirange literal (`multirange_in`): `{`, ranges separated by commas, `}`.
pub(super) fn multirange(sub: &Form, v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    let Some(inner) = s.strip_prefix(b"{").and_then(|x| x.strip_suffix(b"}")) else {
        return false;
    };
    out.push(b'{');
    let mut i = 0;
    let mut val = Vec::new();
    let skip = |i: &mut usize| {
        while inner.get(*i).is_some_and(|&b| is_space(b)) {
            *i += 1;
        }
    };
    skip(&mut i);
    if i == inner.len() {
        out.push(b'}');
        return true;
    }
    loop {
        skip(&mut i);
        if !range_at(sub, inner, &mut i, out, &mut val) {
            return false;
        }
        skip(&mut i);
        match inner.get(i) {
            None => break,
            Some(b',') => i += 1,
            _ => return false,
        }
    }
    out.push(b'}');
    true
}

/// A composite literal (`record_in`): `(`, fields separated by commas, `)`; an empty field
/// is NULL (`""` is the empty string); each field in its type's form (a `timestamptz` field
/// is its UTC instant).
pub(super) fn composite(fields: &[Form], v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    if s.first() != Some(&b'(') {
        return false;
    }
    let mut i = 1;
    let mut val = Vec::new();
    out.push(b'(');
    for (k, f) in fields.iter().enumerate() {
        let Some((any, v)) = delimited(s, &mut i, b",)", &mut val) else {
            return false;
        };
        if any {
            element(f, v, out);
        } else {
            out.push(b'N');
        }
        let want = if k + 1 == fields.len() { b')' } else { b',' };
        if s.get(i) != Some(&want) {
            return false;
        }
        i += 1;
    }
    if fields.is_empty() {
        if s.get(i) != Some(&b')') {
            return false;
        }
        i += 1;
    }
    out.push(b')');
    i == s.len()
}
