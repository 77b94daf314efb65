//! `numeric(p,s)` (`numeric_in`): the syntax, the special values, and precision and scale after
//! rounding.

use super::{is_space, syntax, trim_start};

pub(super) const NUMERIC_MAX_INT_DIGITS: i64 = 131072;
pub(super) const NUMERIC_MAX_DSCALE: i64 = 16383;

pub(super) fn starts_ci(s: &[u8], p: &[u8]) -> bool {
    s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p)
}

pub(super) fn check_numeric(v: &[u8], typmod: Option<(i32, i32)>) -> Result<(), String> {
    let s = trim_start(v);
    if let Some(r) = numeric_fast(s, typmod) {
        return r;
    }
    check_numeric_full(v, typmod)
}

/// numeric_in's rules in full: specials, exponents, whitespace, rounding to the scale.
pub(super) fn check_numeric_full(v: &[u8], typmod: Option<(i32, i32)>) -> Result<(), String> {
    let s = trim_start(v);
    // Same order as numeric_in: NaN and the infinities, matched by prefix (skipped for the
    // usual value that starts with a digit).
    let plain = s.first().is_some_and(|b| b.is_ascii_digit());
    let special: Option<(usize, bool)> = [
        (&b"NaN"[..], false),
        (b"Infinity", true),
        (b"+Infinity", true),
        (b"-Infinity", true),
        (b"inf", true),
        (b"+inf", true),
        (b"-inf", true),
    ]
    .iter()
    .find(|(p, _)| !plain && starts_ci(s, p))
    .map(|(p, inf)| (p.len(), *inf));
    if let Some((len, inf)) = special {
        if !s[len..].iter().all(|&b| is_space(b)) {
            return Err(syntax("numeric"));
        }
        if inf && typmod.is_some() {
            return Err("numeric field overflow (an infinity cannot fit a numeric(p,s))".into());
        }
        return Ok(());
    }
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let mant_start = i;
    let mut int_len: i64 = 0;
    let mut frac_len: i64 = 0;
    let mut seen_dp = false;
    let mut any = false;
    while i < s.len() {
        match s[i] {
            b'0'..=b'9' => {
                any = true;
                if seen_dp {
                    frac_len += 1;
                } else {
                    int_len += 1;
                }
            }
            b'.' if !seen_dp => seen_dp = true,
            _ => break,
        }
        i += 1;
    }
    if !any {
        return Err(syntax("numeric"));
    }
    let mant_end = i;
    let mut exp: i64 = 0;
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        // strtol: whitespace, sign, digits.
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        let mut neg = false;
        if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
            neg = s[i] == b'-';
            i += 1;
        }
        let st = i;
        while i < s.len() && s[i].is_ascii_digit() {
            exp = exp.saturating_mul(10).saturating_add((s[i] - b'0') as i64);
            i += 1;
        }
        if i == st {
            return Err(syntax("numeric"));
        }
        if neg {
            exp = -exp;
        }
        if exp.abs() > i32::MAX as i64 / 2 {
            return Err("value overflows numeric format".into());
        }
    }
    if !s[i..].iter().all(|&b| is_space(b)) {
        return Err(syntax("numeric"));
    }
    // The digits D (without the point); the decimal point sits after `point` digits of D.
    let digit_at = |k: i64| -> u8 {
        // k-th digit of D, skipping the '.'; 0 outside.
        if k < 0 {
            return 0;
        }
        let mut idx = mant_start + k as usize;
        if seen_dp && k >= int_len {
            idx += 1;
        }
        if idx < mant_end {
            s[idx].wrapping_sub(b'0')
        } else {
            0
        }
    };
    let ndig = int_len + frac_len;
    let point = int_len + exp;
    let first = (0..ndig).find(|&k| digit_at(k) != 0);
    let dscale = (frac_len - exp).max(0);
    if dscale > NUMERIC_MAX_DSCALE {
        return Err("value overflows numeric format".into());
    }
    let Some(f) = first else {
        return Ok(()); // zero
    };
    // Magnitude: value is in [10^(e-1), 10^e).
    let e = point - f;
    if e > NUMERIC_MAX_INT_DIGITS {
        return Err("value overflows numeric format".into());
    }
    let Some((p, sc)) = typmod else {
        return Ok(());
    };
    let (p, sc) = (p as i64, sc as i64);
    let cut = point + sc; // digits with index < cut survive rounding
    let e_rounded = if cut > f {
        let round_up = digit_at(cut) >= 5 && cut < ndig;
        if round_up && (f..cut).all(|k| digit_at(k) == 9) {
            Some(e + 1)
        } else {
            Some(e)
        }
    } else if cut == f && digit_at(f) >= 5 {
        Some(e + 1)
    } else {
        None
    };
    match e_rounded {
        Some(er) if er > p - sc => Err(format!(
            "numeric field overflow (numeric({p},{sc}) must round to an absolute value < 10^{})",
            p - sc
        )),
        _ => Ok(()),
    }
}

/// The common shape `[-+]digits[.digits]` with no rounding to do, decided in one pass;
/// `None` sends everything else (exponents, specials, spaces, rounding) to the full check.
#[inline]
pub(super) fn numeric_fast(s: &[u8], typmod: Option<(i32, i32)>) -> Option<Result<(), String>> {
    let body = match s.first() {
        Some(b'-' | b'+') => &s[1..],
        _ => s,
    };
    let dot = body.iter().position(|&b| b == b'.').unwrap_or(body.len());
    let (int, frac) = (&body[..dot], body.get(dot + 1..).unwrap_or(&[]));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let sig_int = int.iter().skip_while(|&&b| b == b'0').count() as i64;
    let Some((p, sc)) = typmod else {
        return (sig_int <= NUMERIC_MAX_INT_DIGITS && frac.len() as i64 <= NUMERIC_MAX_DSCALE)
            .then_some(Ok(()));
    };
    let (p, sc) = (p as i64, sc as i64);
    if sc < 0 || frac.len() as i64 > sc {
        return None; // rounding: the full check handles carries
    }
    // Magnitude e: the value lies in [10^(e-1), 10^e).
    let e = if sig_int > 0 {
        sig_int
    } else {
        match frac.iter().position(|&b| b != b'0') {
            Some(z) => -(z as i64),
            None => return Some(Ok(())), // zero
        }
    };
    Some(if e > p - sc {
        Err(format!(
            "numeric field overflow (numeric({p},{sc}) must round to an absolute value < 10^{})",
            p - sc
        ))
    } else {
        Ok(())
    })
}
