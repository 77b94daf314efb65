//! Uuid: 32 hex digits, an optional `-` after any group of four, optional braces.

use super::syntax;

pub(super) fn check_uuid(v: &[u8]) -> Result<(), String> {
    uuid_bytes(v).map(|_| ()).ok_or_else(|| syntax("uuid"))
}

/// The one uuid parser of the toolkit (`uuid_in`'s rule: no surrounding space, optional
/// braces, a `-` allowed after any group of four digits): the 16 bytes, or `None` where
/// PostgreSQL refuses the value.
pub fn uuid_bytes(v: &[u8]) -> Option<[u8; 16]> {
    fn hex(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let braces = v.first() == Some(&b'{');
    let s = if braces { &v[1..] } else { v };
    let mut out = [0u8; 16];
    let mut i = 0;
    for (byte, o) in out.iter_mut().enumerate() {
        *o = hex(*s.get(i)?)? << 4 | hex(*s.get(i + 1)?)?;
        i += 2;
        if s.get(i) == Some(&b'-') && byte % 2 == 1 && byte < 15 {
            i += 1;
        }
    }
    if braces {
        if s.get(i) != Some(&b'}') {
            return None;
        }
        i += 1;
    }
    (i == s.len()).then_some(out)
}
