//! The password file (`~/.pgpass`, `passfile`, PGPASSFILE), read as libpq's `passwordFromFile`
//! and `pwdfMatchesString` read it.

use std::path::Path;

/// The socket directory libpq is built with on Debian-family systems; a password-file lookup
/// for this directory uses `localhost` as libpq's `passwordFromFile` does (any other socket
/// directory is matched by its path).
pub const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// The password for this host, port, database and user from the password file, matched as
/// libpq's `passwordFromFile` does: first matching line wins; an empty host and the default
/// socket directory are looked up as `localhost`, any other socket directory by its path, an
/// empty port as 5432; a file that is not a plain file or is readable by group or others is
/// ignored with a warning (`tool` names the program in it).
pub fn lookup(
    tool: &str,
    path: &Path,
    host: &str,
    port: &str,
    db: &str,
    user: &str,
) -> Option<String> {
    if db.is_empty() || user.is_empty() {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    {
        use std::os::unix::fs::PermissionsExt;
        if !meta.is_file() {
            eprintln!(
                "{tool}: warning: password file {} is not a plain file; ignored",
                path.display()
            );
            return None;
        }
        if meta.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "{tool}: warning: password file {} has group or world access; ignored \
                 (permissions should be u=rw (0600) or less)",
                path.display()
            );
            return None;
        }
    }
    // Bytes, not text: libpq compares bytes and a file need not be UTF-8.
    let text = std::fs::read(path).ok()?;
    let port = if port.is_empty() { "5432" } else { port };
    let pw = find(&text, [host_key(host), port, db, user])?;
    Some(String::from_utf8_lossy(&pw).into_owned())
}

/// The host field libpq looks up for a host entry.
pub fn host_key(host: &str) -> &str {
    if host.is_empty() || host == DEFAULT_SOCKET_DIR {
        "localhost"
    } else {
        host
    }
}

/// The password of the first line of `text` whose four fields match `want`: lines starting
/// with `#` are comments; a trailing CR/LF is not part of a line.
pub fn find(text: &[u8], want: [&str; 4]) -> Option<Vec<u8>> {
    for line in text.split(|&b| b == b'\n') {
        let mut end = line.len();
        while end > 0 && matches!(line[end - 1], b'\r' | b'\n') {
            end -= 1;
        }
        let line = &line[..end];
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let mut rest = line;
        let mut ok = true;
        for w in want {
            match field_matches(rest, w.as_bytes()) {
                Some(r) => rest = r,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Some(password(rest));
        }
    }
    None
}

/// libpq's `pwdfMatchesString`: whether the field at the start of `buf` matches `token`, and
/// the text after its `:`. `*` matches anything only as a whole, unescaped field (`*:`); a
/// backslash makes the next byte literal (`\*` is a star, `\:` a colon, `\\` a backslash).
fn field_matches<'a>(buf: &'a [u8], token: &[u8]) -> Option<&'a [u8]> {
    if buf.starts_with(b"*:") {
        return Some(&buf[2..]);
    }
    let mut i = 0;
    let mut t = 0;
    while i < buf.len() {
        let mut escaped = false;
        if buf[i] == b'\\' {
            i += 1;
            escaped = true;
            if i == buf.len() {
                return None;
            }
        }
        if buf[i] == b':' && t == token.len() && !escaped {
            return Some(&buf[i + 1..]);
        }
        if t == token.len() || buf[i] != token[t] {
            return None;
        }
        i += 1;
        t += 1;
    }
    None
}

/// The password field: up to the next unescaped `:` (or the end), backslashes removed.
fn password(rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rest.len() && rest[i] != b':' {
        if rest[i] == b'\\' && i + 1 < rest.len() {
            i += 1;
        }
        out.push(rest[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pw(text: &str, want: [&str; 4]) -> Option<String> {
        find(text.as_bytes(), want).map(|p| String::from_utf8(p).unwrap())
    }

    #[test]
    fn lines_as_libpq_matches_them() {
        let text = "# c\nother:5432:*:*:no\nlocalhost:5432:db:u\\:x:p\\:w:rest\n*:*:*:*:any\n";
        // The password ends at the next unescaped ':' (issue 32 item 5; was "p:w:rest").
        assert_eq!(
            pw(text, ["localhost", "5432", "db", "u:x"]).as_deref(),
            Some("p:w")
        );
        assert_eq!(pw(text, ["h", "1", "d", "u"]).as_deref(), Some("any"));
        assert_eq!(pw("a:b:c:d\n", ["a", "b", "c", "d"]), None);
        // An escaped star is a star, not a wildcard (issue 32 item 5).
        let text = "\\*:5432:*:u:literal\n*:5432:*:u:wild\n";
        assert_eq!(pw(text, ["h", "5432", "d", "u"]).as_deref(), Some("wild"));
        assert_eq!(
            pw(text, ["*", "5432", "d", "u"]).as_deref(),
            Some("literal")
        );
        // A star inside a field is a plain character.
        assert_eq!(pw("h*:5432:d:u:x\n", ["hx", "5432", "d", "u"]), None);
        assert_eq!(
            pw("h*:5432:d:u:x\n", ["h*", "5432", "d", "u"]).as_deref(),
            Some("x")
        );
        // CRLF line ends; a backslash before any byte makes it literal.
        assert_eq!(
            pw("h:1:d:u:a\\\\b\\:c\r\n", ["h", "1", "d", "u"]).as_deref(),
            Some("a\\b:c")
        );
        // A comment is a line starting with '#', nothing else.
        assert_eq!(
            pw(" #h:1:d:u:x\n", [" #h", "1", "d", "u"]).as_deref(),
            Some("x")
        );
        assert_eq!(pw("h:1:d:u:\n", ["h", "1", "d", "u"]).as_deref(), Some(""));
    }
}
