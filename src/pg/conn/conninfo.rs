//! libpq connection strings parsed the way libpq's `conninfo_parse` and `conninfo_uri_parse`
//! parse them (`key=value` strings, `postgres://` and `postgresql://` URLs, a bare database
//! name), into an ordered list of keywords.
//!
//! The `postgres` crate has its own parser, but it refuses libpq keywords it does not know
//! (`sslmode=verify-full`, `sslrootcert`, `passfile`, ...) and splits on any Unicode white
//! space, so the string is read here; a tool takes out what it handles and hands the rest on.
//! As in libpq: white space is ASCII's (C `isspace`: space, tab, LF, VT, FF, CR; a no-break
//! space is part of a value), `requiressl=V` is stored as `sslmode` (`require` when V starts
//! with `1`, else `prefer`) at its place among the keywords, and a keyword libpq does not know
//! is refused.

/// Every keyword libpq 17 knows (`PQconninfoOptions`), in its order. `requiressl` is not one:
/// libpq reads it as `sslmode` (see [`Params::store`]).
pub const KEYWORDS: &[&str] = &[
    "service",
    "user",
    "password",
    "passfile",
    "channel_binding",
    "connect_timeout",
    "dbname",
    "host",
    "hostaddr",
    "port",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "sslmode",
    "sslnegotiation",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslcertmode",
    "sslpassword",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "require_auth",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "gssencmode",
    "krbsrvname",
    "gsslib",
    "gssdelegation",
    "replication",
    "target_session_attrs",
    "load_balance_hosts",
];

/// C's `isspace` in the C locale (what libpq's parsers test): ASCII white space including the
/// vertical tab, which Rust's `is_ascii_whitespace` leaves out.
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// The keywords of a connection string in the order given; a later repetition of a keyword
/// replaces the earlier value, as in libpq.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// The value of `key`, if the string set it (even to an empty value).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `key` (replacing an earlier value in place).
    pub fn set(&mut self, key: &str, value: &str) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(kv) => kv.1 = value.to_string(),
            None => self.0.push((key.to_string(), value.to_string())),
        }
    }

    /// Removes `key` and returns its value.
    pub fn take(&mut self, key: &str) -> Option<String> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    /// libpq's `conninfo_storeval`: a known keyword set (`requiressl` becomes `sslmode`);
    /// an unknown one refused in libpq's words.
    pub fn store(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key == "requiressl" {
            let mode = if value.starts_with('1') {
                "require"
            } else {
                "prefer"
            };
            self.set("sslmode", mode);
            return Ok(());
        }
        if !KEYWORDS.contains(&key) {
            return Err(format!("invalid connection option \"{key}\""));
        }
        self.set(key, value);
        Ok(())
    }

    /// Every keyword and value, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// libpq's `parse_int_param`: a decimal integer that fits 32 bits, with optional sign and
/// surrounding whitespace; anything else (empty, `10s`, `1.5`) is refused in libpq's words.
pub fn parse_int_param(key: &str, value: &str) -> Result<i32, String> {
    value
        .trim_matches(is_space)
        .parse::<i32>()
        .map_err(|_| format!("invalid integer value \"{value}\" for connection option \"{key}\""))
}

/// Whether `s` starts with a URL prefix libpq recognizes.
fn url_rest(s: &str) -> Option<&str> {
    s.strip_prefix("postgresql://")
        .or_else(|| s.strip_prefix("postgres://"))
}

/// Parses DATABASE as psql's `-d` takes it: a URL, a `key=value` string (it contains `=`),
/// or else a bare database name.
pub fn parse(s: &str) -> Result<Params, String> {
    if let Some(rest) = url_rest(s) {
        parse_url(s, rest)
    } else if s.contains('=') {
        parse_kv(s)
    } else {
        let mut p = Params::default();
        if !s.is_empty() {
            p.set("dbname", s);
        }
        Ok(p)
    }
}

/// libpq's `conninfo_parse`: `key = value` pairs separated by whitespace; a value is either
/// single-quoted or ends at whitespace; a backslash takes the next character literally.
fn parse_kv(s: &str) -> Result<Params, String> {
    let mut p = Params::default();
    let mut it = s.chars().peekable();
    loop {
        while it.next_if(|c| is_space(*c)).is_some() {}
        if it.peek().is_none() {
            return Ok(p);
        }
        let mut key = String::new();
        while let Some(c) = it.next_if(|c| !is_space(*c) && *c != '=') {
            key.push(c);
        }
        while it.next_if(|c| is_space(*c)).is_some() {}
        if it.next() != Some('=') {
            return Err(format!(
                "missing \"=\" after \"{key}\" in connection info string"
            ));
        }
        while it.next_if(|c| is_space(*c)).is_some() {}
        let mut value = String::new();
        if it.next_if_eq(&'\'').is_some() {
            loop {
                match it.next() {
                    None => {
                        return Err("unterminated quoted string in connection info string".into());
                    }
                    Some('\\') => {
                        if let Some(c) = it.next() {
                            value.push(c);
                        }
                    }
                    Some('\'') => break,
                    Some(c) => value.push(c),
                }
            }
        } else {
            while let Some(c) = it.next_if(|c| !is_space(*c)) {
                if c == '\\' {
                    if let Some(n) = it.next() {
                        value.push(n);
                    }
                } else {
                    value.push(c);
                }
            }
        }
        p.store(&key, &value)?;
    }
}

/// libpq's `conninfo_uri_parse_options`:
/// `postgresql://[user[:password]@][host[:port][,host[:port]...]][/dbname][?key=value&...]`,
/// every part percent-decoded; `[v6addr]` for IPv6 hosts.
fn parse_url(whole: &str, rest: &str) -> Result<Params, String> {
    let bad = |why: &str| format!("invalid URI \"{}\": {why}", redact(whole));
    let mut p = Params::default();
    let mut rest = rest;
    // The credentials end at an '@' met before the first '/' (libpq's look-ahead).
    let cred_end = rest.find(['@', '/']);
    if let Some(i) = cred_end
        && rest.as_bytes()[i] == b'@'
    {
        let cred = &rest[..i];
        let (user, pass) = match cred.split_once(':') {
            Some((u, pw)) => (u, Some(pw)),
            None => (cred, None),
        };
        if !user.is_empty() {
            p.set("user", &decode(user).map_err(|e| bad(&e))?);
        }
        if let Some(pw) = pass {
            p.set("password", &decode(pw).map_err(|e| bad(&e))?);
        }
        rest = &rest[i + 1..];
    }
    let mut hosts = Vec::new();
    let mut ports = Vec::new();
    loop {
        let host;
        if let Some(r) = rest.strip_prefix('[') {
            let end = r
                .find(']')
                .ok_or_else(|| bad("missing \"]\" in IPv6 host address"))?;
            if end == 0 {
                return Err(bad("empty IPv6 host address"));
            }
            host = &r[..end];
            rest = &r[end + 1..];
            if !(rest.is_empty() || rest.starts_with([':', '/', '?', ','])) {
                return Err(bad("unexpected character after IPv6 host address"));
            }
        } else {
            let end = rest.find([':', '/', '?', ',']).unwrap_or(rest.len());
            host = &rest[..end];
            rest = &rest[end..];
        }
        hosts.push(decode(host).map_err(|e| bad(&e))?);
        let mut port = "";
        if let Some(r) = rest.strip_prefix(':') {
            let end = r.find(['/', '?', ',']).unwrap_or(r.len());
            port = &r[..end];
            rest = &r[end..];
        }
        ports.push(decode(port).map_err(|e| bad(&e))?);
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None => break,
        }
    }
    if hosts.iter().any(|h| !h.is_empty()) {
        p.set("host", &hosts.join(","));
    }
    if ports.iter().any(|h| !h.is_empty()) {
        p.set("port", &ports.join(","));
    }
    if let Some(r) = rest.strip_prefix('/') {
        let end = r.find('?').unwrap_or(r.len());
        let db = &r[..end];
        if !db.is_empty() {
            p.set("dbname", &decode(db).map_err(|e| bad(&e))?);
        }
        rest = &r[end..];
    }
    if let Some(q) = rest.strip_prefix('?') {
        for pair in q.split('&').filter(|s| !s.is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| bad(&format!("missing key/value separator \"=\" in \"{pair}\"")))?;
            let k = decode(k).map_err(|e| bad(&e))?;
            let v = decode(v).map_err(|e| bad(&e))?;
            // libpq's JDBC compatibility: ssl=true is sslmode=require.
            if k == "ssl" && v == "true" {
                p.set("sslmode", "require");
            } else if k != "requiressl" && !KEYWORDS.contains(&k.as_str()) {
                return Err(format!("invalid URI query parameter: \"{k}\""));
            } else {
                p.store(&k, &v)?;
            }
        }
    } else if !rest.is_empty() {
        return Err(bad("unexpected characters after the host list"));
    }
    Ok(p)
}

/// Percent-decoding as libpq's `conninfo_uri_decode`: `%XX` hex, `%00` refused.
fn decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "invalid percent-encoded token".to_string())?;
            if hex == 0 {
                return Err("forbidden value %00 in percent-encoded value".into());
            }
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "a percent-encoded value is not UTF-8".into())
}

/// A URL with its password part replaced, for error messages.
fn redact(url: &str) -> String {
    let Some(rest) = url_rest(url) else {
        return url.to_string();
    };
    let prefix = &url[..url.len() - rest.len()];
    match rest.find(['@', '/']) {
        Some(i) if rest.as_bytes()[i] == b'@' => match rest[..i].split_once(':') {
            Some((u, _)) => format!("{prefix}{u}:***{}", &rest[i..]),
            None => url.to_string(),
        },
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(p: &Params) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn key_value_quoting() {
        let p = parse(r"host=a,b port = 1,2  dbname='my db' password='it\'s \\x' user=u\ v sslmode=verify-full").unwrap();
        assert_eq!(
            kv(&p),
            pairs(&[
                ("host", "a,b"),
                ("port", "1,2"),
                ("dbname", "my db"),
                ("password", r"it's \x"),
                ("user", "u v"),
                ("sslmode", "verify-full"),
            ])
        );
        // A later keyword replaces an earlier one.
        assert_eq!(parse("dbname=a dbname=b").unwrap().get("dbname"), Some("b"));
        assert_eq!(parse("dbname=''").unwrap().get("dbname"), Some(""));
        assert!(parse("dbname").is_ok()); // no '=': a bare name
        assert!(parse("dbname= 'x").unwrap_err().contains("unterminated"));
        assert!(
            parse("dbname=1 b")
                .unwrap_err()
                .contains("missing \"=\" after \"b\"")
        );
        // Keywords libpq does not know are refused in its words.
        assert_eq!(parse("a=1").unwrap_err(), "invalid connection option \"a\"");
        assert!(
            parse("postgresql://h/d?frob=1")
                .unwrap_err()
                .contains("frob")
        );
    }

    /// Issue 32 items 1 and 3: white space is ASCII's (a no-break space is part of a value;
    /// a vertical tab separates), and requiressl is sslmode at its place in the string.
    #[test]
    fn ascii_space_and_requiressl() {
        let p = parse("dbname=app\u{a0}sslmode=disable").unwrap();
        assert_eq!(kv(&p), pairs(&[("dbname", "app\u{a0}sslmode=disable")]));
        let p = parse("dbname=app\x0bsslmode=require").unwrap();
        assert_eq!(p.get("sslmode"), Some("require"));
        let mode = |s: &str| parse(s).unwrap().get("sslmode").map(str::to_string);
        assert_eq!(mode("requiressl=1").as_deref(), Some("require"));
        assert_eq!(mode("requiressl=10").as_deref(), Some("require"));
        assert_eq!(mode("requiressl=0").as_deref(), Some("prefer"));
        assert_eq!(mode("requiressl=yes").as_deref(), Some("prefer"));
        assert_eq!(
            mode("requiressl=1 sslmode=disable").as_deref(),
            Some("disable")
        );
        assert_eq!(
            mode("sslmode=disable requiressl=1").as_deref(),
            Some("require")
        );
        assert_eq!(
            mode("postgresql://h/d?requiressl=1").as_deref(),
            Some("require")
        );
        // An empty sslmode stays empty (and is refused later, as libpq refuses it).
        assert_eq!(mode("sslmode=").as_deref(), Some(""));
        assert_eq!(mode("sslmode=''").as_deref(), Some(""));
        assert_eq!(mode("postgresql://h/d?sslmode=").as_deref(), Some(""));
    }

    #[test]
    fn bare_database_name() {
        assert_eq!(kv(&parse("app").unwrap()), pairs(&[("dbname", "app")]));
        // The text "sslmode" inside a name is just a name (issue 19 item 3).
        assert_eq!(
            kv(&parse("app_sslmode_test").unwrap()),
            pairs(&[("dbname", "app_sslmode_test")])
        );
        assert_eq!(
            parse("dbname=app_sslmode_test").unwrap().get("sslmode"),
            None
        );
        assert_eq!(kv(&parse("").unwrap()), vec![]);
    }

    #[test]
    fn urls() {
        let p = parse("postgresql://u%40x:p%3Aw@h1:5433,h2:5434/d%20b?sslmode=verify-ca&sslrootcert=%2Ftmp%2Fca.pem&application_name=x").unwrap();
        assert_eq!(
            kv(&p),
            pairs(&[
                ("user", "u@x"),
                ("password", "p:w"),
                ("host", "h1,h2"),
                ("port", "5433,5434"),
                ("dbname", "d b"),
                ("sslmode", "verify-ca"),
                ("sslrootcert", "/tmp/ca.pem"),
                ("application_name", "x"),
            ])
        );
        let p = parse("postgres://[::1]:5432,127.0.0.1/db").unwrap();
        assert_eq!(p.get("host"), Some("::1,127.0.0.1"));
        assert_eq!(p.get("port"), Some("5432,"));
        let p = parse("postgresql:///db?host=%2Fvar%2Frun%2Fpostgresql").unwrap();
        assert_eq!(
            kv(&p),
            pairs(&[("dbname", "db"), ("host", "/var/run/postgresql")])
        );
        assert_eq!(kv(&parse("postgresql://").unwrap()), vec![]);
        assert_eq!(
            parse("postgresql://h/db?ssl=true").unwrap().get("sslmode"),
            Some("require")
        );
        assert!(parse("postgresql://h/db?x").is_err());
        assert!(parse("postgresql://h/%zz").is_err());
        assert!(parse("postgresql://h/a%00").is_err());
        assert!(parse("postgresql://[::1/db").is_err());
        // A password is never repeated in a message.
        let e = parse("postgresql://u:secret@h/%zz").unwrap_err();
        assert!(!e.contains("secret"), "{e}");
    }
}
