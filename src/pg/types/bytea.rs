//! `bytea` (`byteain`): the hex form and the escape form.

use super::syntax;

pub(super) fn check_bytea(v: &[u8]) -> Result<(), String> {
    if v.len() >= 2 && v[0] == b'\\' && v[1] == b'x' {
        let mut digits = 0usize;
        for &b in &v[2..] {
            if b.is_ascii_hexdigit() {
                digits += 1;
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') && digits.is_multiple_of(2) {
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Err("invalid hexadecimal data: odd number of digits".into());
            } else {
                return Err(format!(
                    "invalid hexadecimal digit: \"{}\"",
                    String::from_utf8_lossy(&[b])
                ));
            }
        }
        if digits % 2 == 1 {
            return Err("invalid hexadecimal data: odd number of digits".into());
        }
        return Ok(());
    }
    let mut i = 0;
    while let Some(j) = memchr::memchr(b'\\', &v[i..]) {
        let k = i + j;
        match v.get(k + 1) {
            Some(b'\\') => i = k + 2,
            Some(b'0'..=b'3')
                if v.get(k + 2).is_some_and(|b| (b'0'..=b'7').contains(b))
                    && v.get(k + 3).is_some_and(|b| (b'0'..=b'7').contains(b)) =>
            {
                i = k + 4
            }
            _ => return Err(syntax("bytea")),
        }
    }
    Ok(())
}
