//! The password file (`~/.pgpass`, `passfile`, PGPASSFILE), read as libpq reads it.

use std::path::Path;

/// The socket directory libpq is built with on Debian-family systems; a password-file lookup
/// for this directory uses `localhost` as libpq's `passwordFromFile` does (any other socket
/// directory is matched by its path).
pub(super) const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// The password for this host, port, database and user from the password file, matched as
/// libpq's `passwordFromFile` does: first matching line wins, `*` matches anything; an empty
/// host and the default socket directory are looked up as `localhost`, any other socket
/// directory by its path; a file that is not a plain file or is readable by group or others
/// is ignored with a warning.
pub(super) fn pgpass_lookup(
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
                "csvload: warning: password file {} is not a plain file; ignored",
                path.display()
            );
            return None;
        }
        if meta.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "csvload: warning: password file {} has group or world access; ignored \
                 (permissions should be u=rw (0600) or less)",
                path.display()
            );
            return None;
        }
    }
    let text = std::fs::read_to_string(path).ok()?;
    pgpass_match(&text, [pgpass_host(host), port, db, user])
}

/// The host field libpq looks up for a host entry.
pub(super) fn pgpass_host(host: &str) -> &str {
    if host.is_empty() || host == DEFAULT_SOCKET_DIR {
        "localhost"
    } else {
        host
    }
}

/// The password of the first line of `text` whose four fields match `want`.
pub(crate) fn pgpass_match(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() < 5 {
            continue;
        }
        if (0..4).all(|i| fields[i] == "*" || fields[i] == want[i]) {
            return Some(fields[4..].join(":"));
        }
    }
    None
}

/// Splits a password-file line at unescaped `:` (`\:` and `\\` are escapes).
fn split_pgpass(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().unwrap().push(n);
                }
            }
            ':' if out.len() < 5 => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines() {
        let text = "# c\nother:5432:*:*:no\nlocalhost:5432:db:u\\:x:p\\:w:rest\n*:*:*:*:any\n";
        assert_eq!(
            pgpass_match(text, ["localhost", "5432", "db", "u:x"]).as_deref(),
            Some("p:w:rest")
        );
        assert_eq!(
            pgpass_match(text, ["h", "1", "d", "u"]).as_deref(),
            Some("any")
        );
        assert_eq!(pgpass_match("a:b:c:d\n", ["a", "b", "c", "d"]), None);
    }
}
