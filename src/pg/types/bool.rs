//! `boolean` (`boolin`, PostgreSQL's parse_bool_with_len): `true`/`false`/`yes`/`no` and their
//! prefixes, `on`/`off`, `1`/`0`.

use super::numeric::starts_ci;
use super::{syntax, trim};

pub(super) fn check_bool(v: &[u8]) -> Result<(), String> {
    let s = trim(v);
    let ok = match s.first().map(|b| b.to_ascii_lowercase()) {
        Some(b't') => starts_ci(b"true", s),
        Some(b'f') => starts_ci(b"false", s),
        Some(b'y') => starts_ci(b"yes", s),
        Some(b'n') => starts_ci(b"no", s),
        Some(b'o') => s.len() >= 2 && (starts_ci(b"on", s) || starts_ci(b"off", s)),
        Some(b'1') | Some(b'0') => s.len() == 1,
        _ => false,
    };
    if ok { Ok(()) } else { Err(syntax("boolean")) }
}
