//! Arrays (array_in): braces, quoting, NULL, rectangular dimensions, optional `[l:u]=`.

use super::datetime::{Cursor, num};
use super::{PgType, excerpt, is_space, trim_start};

pub(super) const MAXDIM: usize = 6;

pub(super) fn check_array(v: &[u8], elem: &PgType) -> Result<(), String> {
    let bad = |why: &str| format!("malformed array literal: {why}");
    let s = trim_start(v);
    let mut c = Cursor { s, i: 0 };
    let mut declared: Vec<i64> = Vec::new();
    while c.peek() == Some(b'[') {
        c.i += 1;
        c.spaces();
        let neg = c.eat(b'-');
        let a = c.digits();
        if a.is_empty() {
            return Err(bad("bad dimension"));
        }
        let mut lo = num(a) * if neg { -1 } else { 1 };
        let mut hi = lo;
        if c.eat(b':') {
            let neg = c.eat(b'-');
            let b = c.digits();
            if b.is_empty() {
                return Err(bad("bad dimension"));
            }
            hi = num(b) * if neg { -1 } else { 1 };
        } else {
            lo = 1;
        }
        if !c.eat(b']') {
            return Err(bad("missing \"]\""));
        }
        if hi < lo {
            return Err("upper bound cannot be less than lower bound".into());
        }
        declared.push(hi - lo + 1);
    }
    if !declared.is_empty() {
        c.spaces();
        if !c.eat(b'=') {
            return Err(bad("missing \"=\" after dimensions"));
        }
        c.spaces();
    }
    if c.peek() != Some(b'{') {
        return Err(bad("must start with \"{\""));
    }
    let mut sizes: Vec<Option<i64>> = vec![None; MAXDIM + 1];
    let mut leaf_depth: Option<usize> = None;
    parse_level(&mut c, 1, &mut sizes, &mut leaf_depth, elem)?;
    c.spaces();
    if !c.done() {
        return Err(bad("junk after closing right brace"));
    }
    if !declared.is_empty() {
        let ndim = leaf_depth.unwrap_or(0);
        let actual: Vec<i64> = sizes[1..=ndim.min(MAXDIM)]
            .iter()
            .map(|x| x.unwrap_or(0))
            .collect();
        if actual != declared {
            return Err(bad(
                "specified array dimensions do not match array contents",
            ));
        }
    }
    Ok(())
}

/// A backslash-escaped byte of an element (the cursor at the backslash), quoted or not:
/// the byte after it is taken as it is.
fn escaped_byte(c: &mut Cursor, val: &mut Vec<u8>) -> Result<(), String> {
    c.i += 1;
    let b = c
        .peek()
        .ok_or_else(|| "malformed array literal: unexpected end of input".to_string())?;
    val.push(b);
    c.i += 1;
    Ok(())
}

pub(super) fn parse_level(
    c: &mut Cursor,
    depth: usize,
    sizes: &mut [Option<i64>],
    leaf: &mut Option<usize>,
    elem: &PgType,
) -> Result<(), String> {
    let bad = |why: &str| format!("malformed array literal: {why}");
    if depth > MAXDIM {
        return Err("number of array dimensions exceeds the maximum allowed (6)".into());
    }
    c.i += 1; // '{'
    c.spaces();
    let mut count: i64 = 0;
    if c.eat(b'}') {
        // `{}` is only valid as the whole (empty) array.
        if depth != 1 {
            return Err(bad("empty sub-array"));
        }
        *leaf = Some(0);
        return Ok(());
    }
    loop {
        c.spaces();
        match c.peek() {
            Some(b'{') => {
                if *leaf == Some(depth) {
                    return Err(bad("unexpected \"{\""));
                }
                parse_level(c, depth + 1, sizes, leaf, elem)?;
            }
            Some(b'"') => {
                if leaf.is_some_and(|l| l != depth) {
                    return Err(bad("unexpected array element"));
                }
                *leaf = Some(depth);
                c.i += 1;
                let mut val = Vec::new();
                loop {
                    match c.peek() {
                        None => return Err(bad("unexpected end of input")),
                        Some(b'"') => {
                            c.i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            escaped_byte(c, &mut val)?;
                        }
                        Some(b) => {
                            val.push(b);
                            c.i += 1;
                        }
                    }
                }
                elem.check(&val)
                    .map_err(|e| format!("array element \"{}\": {e}", excerpt(&val)))?;
            }
            Some(b',') | Some(b'}') | None => return Err(bad("unexpected \",\" or \"}\"")),
            Some(_) => {
                if leaf.is_some_and(|l| l != depth) {
                    return Err(bad("unexpected array element"));
                }
                *leaf = Some(depth);
                let mut val = Vec::new();
                let mut last_escaped = 0usize; // length of val that must not be trimmed
                let mut escaped = false;
                loop {
                    match c.peek() {
                        None => return Err(bad("unexpected end of input")),
                        Some(b',') | Some(b'}') => break,
                        Some(b'"') | Some(b'{') => return Err(bad("unexpected character")),
                        Some(b'\\') => {
                            escaped_byte(c, &mut val)?;
                            escaped = true;
                            last_escaped = val.len();
                        }
                        Some(b) => {
                            val.push(b);
                            c.i += 1;
                        }
                    }
                }
                while val.len() > last_escaped && val.last().is_some_and(|&b| is_space(b)) {
                    val.pop();
                }
                let is_null = !escaped && val.eq_ignore_ascii_case(b"null");
                if !is_null {
                    elem.check(&val)
                        .map_err(|e| format!("array element \"{}\": {e}", excerpt(&val)))?;
                }
            }
        }
        count += 1;
        c.spaces();
        if c.eat(b',') {
            continue;
        }
        if c.eat(b'}') {
            break;
        }
        return Err(bad("expected \",\" or \"}\""));
    }
    match sizes[depth] {
        None => sizes[depth] = Some(count),
        Some(n) if n == count => {}
        Some(_) => {
            return Err(bad(
                "multidimensional arrays must have sub-arrays with matching dimensions",
            ));
        }
    }
    Ok(())
}
