//! verify-full's host name check, as libpq does it (fe-secure-common.c and
//! pgtls_verify_peer_name_matches_certificate_guts in fe-secure-openssl.c): the `host`
//! string as given (never a resolved or normalised form), the subjectAltName dNSName and
//! iPAddress entries, and the first Common Name only when the certificate has no
//! subjectAltName entry of the host's kind.

use super::Refusal;
use super::cert::{Cert, printable};
use super::ext::AltName;

/// glibc's inet_aton (resolv/inet_addr.c): one to four parts, each starting with a digit,
/// read by strtoul base 0 (decimal, 0 octal, 0x hex); the last part fills the remaining bytes;
/// anything after the address must start with white space. libpq uses it to tell an IPv4
/// host and to compare it with an iPAddress entry.
pub fn inet_aton(s: &str) -> Option<[u8; 4]> {
    let b = s.as_bytes();
    let mut parts: Vec<u64> = vec![];
    let mut i = 0;
    loop {
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        // strtoul(cp, &end, 0) from a digit.
        let (radix, start) = if b[i] == b'0'
            && matches!(b.get(i + 1), Some(b'x' | b'X'))
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            (16, i + 2)
        } else if b[i] == b'0' {
            (8, i)
        } else {
            (10, i)
        };
        let mut j = start;
        let mut v: u64 = 0;
        while let Some(d) = b.get(j).and_then(|c| (*c as char).to_digit(radix)) {
            v = v.checked_mul(radix as u64)?.checked_add(d as u64)?;
            j += 1;
        }
        if v > 0xffff_ffff {
            return None;
        }
        i = j;
        if b.get(i) == Some(&b'.') {
            if parts.len() > 2 || v > 0xff {
                return None;
            }
            parts.push(v);
            i += 1;
        } else {
            parts.push(v);
            break;
        }
    }
    if let Some(&c) = b.get(i)
        && !(c.is_ascii() && (c as char).is_ascii_whitespace() || c == 0x0b)
    {
        return None;
    }
    let max = [0xffff_ffffu64, 0xff_ffff, 0xffff, 0xff];
    let last = *parts.last()?;
    if last > max[parts.len() - 1] {
        return None;
    }
    let mut v: u32 = last as u32;
    for (k, p) in parts[..parts.len() - 1].iter().enumerate() {
        v |= (*p as u32) << (24 - 8 * k);
    }
    Some(v.to_be_bytes())
}

/// inet_pton(AF_INET6).
fn ipv6(s: &str) -> Option<[u8; 16]> {
    s.parse::<std::net::Ipv6Addr>().ok().map(|a| a.octets())
}

/// libpq's wildcard_certificate_match: `*.` only at the start, matching one label, case-blind.
fn wildcard_match(pattern: &[u8], host: &[u8]) -> bool {
    if pattern.len() < 3 || pattern[0] != b'*' || pattern[1] != b'.' || pattern.len() > host.len() {
        return false;
    }
    let start = host.len() - pattern.len() + 1;
    if !pattern[1..].eq_ignore_ascii_case(&host[start..]) {
        return false;
    }
    // No dot left of where the pattern's suffix starts to match (strchr < ...).
    match host.iter().position(|&b| b == b'.') {
        Some(dot) => dot >= start - 1,
        None => false,
    }
}

/// pq_verify_peer_name_matches_certificate_name: a NUL in the name is an error.
fn name_matches(name: &[u8], host: &str) -> Result<bool, Refusal> {
    if name.contains(&0) {
        return Err(Refusal::BadName {
            why: "SSL certificate's name contains embedded null".into(),
        });
    }
    Ok(name.eq_ignore_ascii_case(host.as_bytes()) || wildcard_match(name, host.as_bytes()))
}

/// verify-full's check of `host` (the connection's `host` string) against `cert`.
pub fn check_host(cert: &Cert, host: &str) -> Result<(), Refusal> {
    if host.is_empty() {
        return Err(Refusal::BadName {
            why: "host name must be specified for a verified SSL connection".into(),
        });
    }
    let host_is_ip = inet_aton(host).is_some() || ipv6(host).is_some();
    let mut check_cn = true;
    let mut names = Vec::new();
    for n in cert.alt_names().unwrap_or(&[]) {
        let matched = match n {
            AltName::Dns(b) => {
                if !host_is_ip {
                    check_cn = false;
                }
                names.push(printable(&String::from_utf8_lossy(b)));
                name_matches(b, host)?
            }
            AltName::Ip(b) => {
                if host_is_ip {
                    check_cn = false;
                }
                let (text, m) = match b.len() {
                    4 => (
                        std::net::Ipv4Addr::from(<[u8; 4]>::try_from(&b[..]).unwrap()).to_string(),
                        inet_aton(host).is_some_and(|h| h == b[..]),
                    ),
                    16 => (
                        std::net::Ipv6Addr::from(<[u8; 16]>::try_from(&b[..]).unwrap()).to_string(),
                        ipv6(host).is_some_and(|h| h == b[..]),
                    ),
                    n => {
                        return Err(Refusal::BadName {
                            why: format!("certificate contains IP address with invalid length {n}"),
                        });
                    }
                };
                names.push(text);
                m
            }
            AltName::Other => continue,
        };
        if matched {
            return Ok(());
        }
    }
    if check_cn && let Some(cn) = cert.common_names().first() {
        names.push(printable(&String::from_utf8_lossy(cn)));
        if name_matches(cn, host)? {
            return Ok(());
        }
    }
    Err(Refusal::NameMismatch {
        host: printable(host),
        names,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_follow_libpq() {
        assert!(wildcard_match(b"*.b.c", b"a.b.c"));
        assert!(wildcard_match(b"*.B.c", b"xyz.b.C"));
        assert!(!wildcard_match(b"*.b.c", b"x.y.b.c"), "one label only");
        assert!(!wildcard_match(b"*.b.c", b"b.c"));
        assert!(!wildcard_match(b"a*.b.c", b"ab.b.c"), "only a leading *.");
        assert!(!wildcard_match(b"*.", b"a."));
    }

    #[test]
    fn inet_aton_as_glibc() {
        assert_eq!(inet_aton("127.0.0.1"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("127.1"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("0x7f.0.0.01"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("2130706433"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("127.0.0.1 trailing"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("localhost"), None);
        assert_eq!(inet_aton("256.0.0.1"), None);
        assert_eq!(inet_aton("1.2.3.4.5"), None);
        assert_eq!(inet_aton("1..2"), None);
        assert_eq!(inet_aton("08"), None);
        assert_eq!(inet_aton("1.2.3.4x"), None);
        assert_eq!(inet_aton("127.0.0.1."), None);
    }
}
