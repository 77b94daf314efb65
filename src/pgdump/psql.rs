//! Keeping the psql scripts the toolkit writes from running what a dump smuggles in: fresh
//! `\restrict` keys (pg_dump's guard against CVE-2025-8714) and the one reading of the
//! meta-command lines pg_dump itself writes (`\connect`, `\encoding` before a `\connect` to a
//! database with an unusual name, `\restrict`, `\unrestrict`), so that every other backslash
//! command from a dump is refused, never passed through.

use crate::error::{IoContext, Result};
use std::io::Read;

/// A fresh `\restrict` key: 32 characters of `[A-Za-z0-9]` (psql accepts only alphanumeric
/// keys) from the kernel's random source, so a dump cannot know it and cannot end restricted
/// mode early with its own `\unrestrict`.
pub fn restrict_key() -> Result<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut f = std::fs::File::open("/dev/urandom").at("/dev/urandom")?;
    let mut key = String::with_capacity(32);
    let mut buf = [0u8; 64];
    while key.len() < 32 {
        f.read_exact(&mut buf).at("/dev/urandom")?;
        // Rejection sampling keeps every character equally likely (248 = 4 * 62).
        for &b in buf.iter().filter(|&&b| b < 248) {
            if key.len() < 32 {
                key.push(ALPHABET[b as usize % 62] as char);
            }
        }
    }
    Ok(key)
}

/// A meta-command line of a dump, as far as pgdump2csv cares.
#[derive(Debug, PartialEq, Eq)]
pub enum Meta<'a> {
    /// `\restrict KEY`.
    Restrict(&'a [u8]),
    /// `\unrestrict KEY`.
    Unrestrict(&'a [u8]),
    /// `\connect` in one of the two forms pg_dump writes (`appendPsqlMetaConnect`): a plain
    /// name of `[A-Za-z0-9_.]`, or `-reuse-previous=on "dbname=..."` with `""` doubling; or
    /// `\encoding NAME`, which pg_dump writes before the second form. Both are harmless lines
    /// that psql must run outside restricted mode.
    Connect,
    /// Anything else: the command word (e.g. `\!`), to name it in the error.
    Other(String),
}

/// Reads one meta-command line (starting at its backslash; the line end may be included).
pub fn classify<'a>(line: &'a [u8]) -> Meta<'a> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let word_end = line[1.min(line.len())..]
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .map_or(line.len(), |k| k + 1);
    let (word, rest) = line.split_at(word_end);
    let alnum_arg = |rest: &'a [u8]| -> Option<&'a [u8]> {
        let arg = rest.strip_prefix(b" ")?;
        (!arg.is_empty() && arg.iter().all(u8::is_ascii_alphanumeric)).then_some(arg)
    };
    let other = || {
        let w = if word.len() > 1 {
            word
        } else {
            &line[..line.len().min(2)]
        };
        Meta::Other(String::from_utf8_lossy(w).into_owned())
    };
    match word {
        b"\\restrict" => alnum_arg(rest).map_or_else(other, Meta::Restrict),
        b"\\unrestrict" => alnum_arg(rest).map_or_else(other, Meta::Unrestrict),
        b"\\connect" | b"\\c" if connect_arg_ok(rest) => Meta::Connect,
        b"\\encoding"
            if rest.strip_prefix(b" ").is_some_and(|a| {
                !a.is_empty()
                    && a.iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }) =>
        {
            Meta::Connect
        }
        _ => other(),
    }
}

fn connect_arg_ok(rest: &[u8]) -> bool {
    let Some(arg) = rest.strip_prefix(b" ") else {
        return false;
    };
    if !arg.is_empty()
        && arg
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    {
        return true;
    }
    // psql reads a double-quoted argument literally up to its closing quote ("" is a quote),
    // so nothing inside can start another meta-command.
    let Some(q) = arg.strip_prefix(b"-reuse-previous=on \"") else {
        return false;
    };
    let Some(body) = q.strip_suffix(b"\"") else {
        return false;
    };
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'"' {
            if body.get(i + 1) != Some(&b'"') {
                return false;
            }
            i += 1;
        }
        i += 1;
    }
    true
}

/// Whether `s` can stand on a psql meta-command line: psql reads those lines up to the end of
/// the line, so a CR or LF would end the command there and start a new one.
pub fn line_safe(s: &str) -> bool {
    !s.contains(['\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fresh_and_alphanumeric() {
        let a = restrict_key().unwrap();
        let b = restrict_key().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn meta_commands() {
        assert_eq!(classify(b"\\restrict abc9\n"), Meta::Restrict(b"abc9"));
        assert_eq!(
            classify(b"\\unrestrict abc9\r\n"),
            Meta::Unrestrict(b"abc9")
        );
        assert_eq!(classify(b"\\connect db_1.x\n"), Meta::Connect);
        assert_eq!(classify(b"\\encoding SQL_ASCII\n"), Meta::Connect);
        assert_eq!(
            classify(b"\\encoding UTF8 \\! ls\n"),
            Meta::Other("\\encoding".into())
        );
        assert_eq!(
            classify(b"\\connect -reuse-previous=on \"dbname='a \"\"b\\\\c'\"\n"),
            Meta::Connect
        );
        assert_eq!(classify(b"\\! touch /tmp/x\n"), Meta::Other("\\!".into()));
        assert_eq!(classify(b"\\unrestric"), Meta::Other("\\unrestric".into()));
        assert_eq!(
            classify(b"\\restrict abc \\! ls"),
            Meta::Other("\\restrict".into())
        );
        assert_eq!(
            classify(b"\\connect db \\! ls\n"),
            Meta::Other("\\connect".into())
        );
        assert_eq!(
            classify(b"\\connect -reuse-previous=on \"a\" \\! ls\n"),
            Meta::Other("\\connect".into())
        );
        assert_eq!(classify(b"\\"), Meta::Other("\\".into()));
    }
}
