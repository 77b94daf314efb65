//! Character varying(n) / character(n): length in characters; excess must be spaces.

pub(super) fn check_len(v: &[u8], n: usize, t: &str) -> Result<(), String> {
    if v.len() <= n {
        return Ok(()); // never more characters than bytes
    }
    let mut chars = 0;
    for (i, &b) in v.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if chars == n {
                return if v[i..].iter().all(|&b| b == b' ') {
                    Ok(())
                } else {
                    Err(format!("value too long for type {t}({n})"))
                };
            }
            chars += 1;
        }
    }
    Ok(())
}
