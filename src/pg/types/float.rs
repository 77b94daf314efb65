//! Real / double precision: strtod/strtof syntax; overflow and underflow to zero are errors.

use super::{syntax, trim};

pub(super) fn check_float(v: &[u8], single: bool) -> Result<(), String> {
    let t = if single { "real" } else { "double precision" };
    let s = trim(v);
    let Ok(st) = std::str::from_utf8(s) else {
        return Err(syntax(t));
    };
    let body = st.trim_start_matches(['+', '-']);
    if st.len() - body.len() > 1 {
        return Err(syntax(t));
    }
    let lower = body.to_ascii_lowercase();
    if lower == "nan" || lower == "inf" || lower == "infinity" {
        return Ok(());
    }
    if let Some(rest) = lower.strip_prefix("nan(")
        && let Some(inner) = rest.strip_suffix(')')
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Ok(());
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        return check_hex_float(hex).map_err(|_| syntax(t));
    }
    // Rust's grammar is strtod's decimal grammar minus the forms handled above.
    let ok_chars = body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok_chars || body.is_empty() {
        return Err(syntax(t));
    }
    let (inf, zero) = if single {
        match st.parse::<f32>() {
            Ok(x) => (x.is_infinite(), x == 0.0),
            Err(_) => return Err(syntax(t)),
        }
    } else {
        match st.parse::<f64>() {
            Ok(x) => (x.is_infinite(), x == 0.0),
            Err(_) => return Err(syntax(t)),
        }
    };
    let mantissa = body.split(['e', 'E']).next().unwrap_or("");
    let nonzero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if inf || (zero && nonzero) {
        return Err(format!("value out of range for type {t}"));
    }
    Ok(())
}

pub(super) fn check_hex_float(h: &str) -> Result<(), ()> {
    let (m, e) = match h.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (h, None),
    };
    let (a, b) = m.split_once('.').unwrap_or((m, ""));
    if a.is_empty() && b.is_empty() {
        return Err(());
    }
    if !a.bytes().chain(b.bytes()).all(|c| c.is_ascii_hexdigit()) {
        return Err(());
    }
    if let Some(e) = e {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !e.bytes().all(|c| c.is_ascii_digit()) {
            return Err(());
        }
    }
    Ok(())
}
