//! DATABASE to a [`Target`]: the string completed as libpq completes it (`pg::conn`: the
//! service file, the PG* environment, the host lists, the password file), then what csvload
//! handles itself taken out (TLS, TCP settings, `target_session_attrs`) and the rest handed to
//! `postgres::Config`. libpq keywords csvload does not support are refused by name.

use super::{Attrs, Target, chain, usage};
use crate::io::error::Result;
use crate::pg::conn::conninfo::{self, Params};
use crate::pg::conn::hosts::{self, Env};
use crate::pg::conn::tls::{SslParams, Tls};
use postgres::Config;

/// libpq's TCP keywords, with libpq's units and meaning (tokio-postgres reads
/// `tcp_user_timeout` in seconds where libpq means milliseconds, and calls `keepalives_count`
/// `keepalives_retries`, so they are taken out here and set on the `Config` directly).
#[derive(Debug, Default, PartialEq, Eq)]
struct NetParams {
    /// `keepalives`: 0 off, anything else on (the default).
    keepalives: bool,
    /// `keepalives_idle`, `keepalives_interval` (seconds) and `keepalives_count`; 0 or
    /// negative: the system's default.
    idle: u32,
    interval: u32,
    count: u32,
    /// `tcp_user_timeout` in milliseconds; 0 or negative: the system's default.
    user_timeout_ms: u32,
    /// `connect_timeout`: 0, negative or unset waits forever; under 2 s is 2 s (libpq).
    connect_timeout: Option<std::time::Duration>,
}

impl NetParams {
    fn take(p: &mut Params) -> Result<NetParams> {
        if p.get("keepalives_retries").is_some() {
            return Err(usage(
                "invalid connection option \"keepalives_retries\" (libpq's name is \
                 keepalives_count)",
            ));
        }
        let mut int = |key: &str| -> Result<Option<i32>> {
            p.take(key)
                .map(|v| conninfo::parse_int_param(key, &v).map_err(|e| usage(&e)))
                .transpose()
        };
        let keepalives = int("keepalives")?.is_none_or(|v| v != 0);
        let secs = |v: Option<i32>| v.unwrap_or(0).max(0) as u32;
        let idle = secs(int("keepalives_idle")?);
        let interval = secs(int("keepalives_interval")?);
        let count = secs(int("keepalives_count")?);
        let user_timeout_ms = secs(int("tcp_user_timeout")?);
        let connect_timeout = int("connect_timeout")?
            .filter(|&t| t > 0)
            .map(|t| std::time::Duration::from_secs(t.max(2) as u64));
        Ok(NetParams {
            keepalives,
            idle,
            interval,
            count,
            user_timeout_ms,
            connect_timeout,
        })
    }

    /// Sets them on `cfg`; tokio-postgres ignores them on Unix sockets, as libpq does.
    /// (tokio-postgres sets the keepalive idle time to 2 hours, the usual system default,
    /// when `keepalives_idle` is 0.)
    fn apply(&self, cfg: &mut Config) {
        use std::time::Duration;
        cfg.keepalives(self.keepalives);
        if self.idle > 0 {
            cfg.keepalives_idle(Duration::from_secs(self.idle.into()));
        }
        if self.interval > 0 {
            cfg.keepalives_interval(Duration::from_secs(self.interval.into()));
        }
        if self.count > 0 {
            cfg.keepalives_retries(self.count);
        }
        if self.user_timeout_ms > 0 {
            cfg.tcp_user_timeout(Duration::from_millis(self.user_timeout_ms.into()));
        }
        // Per TCP connect; the whole attempt is bounded in Target::connect (stall.rs).
        if let Some(t) = self.connect_timeout {
            cfg.connect_timeout(t);
        }
    }
}

/// A value quoted for tokio-postgres's `key='value'` parser.
fn quote(v: &str) -> String {
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// libpq keywords csvload does not support, refused by name when set (not empty): what each
/// would change in libpq, and what to do instead.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("sslpassword", "decrypt an encrypted key with openssl pkey"),
    ("sslcrl", "certificate revocation lists are not checked"),
    ("sslcrldir", "certificate revocation lists are not checked"),
    ("requirepeer", "peer credentials are not checked"),
    ("require_auth", "authentication methods are not restricted"),
    (
        "ssl_max_protocol_version",
        "TLS 1.2 and 1.3 are both offered",
    ),
    ("replication", "csvload opens no replication connections"),
];

impl Target {
    /// Parses DATABASE (empty: everything from the environment; a string without `=` that is
    /// not a URL: a database name) and completes it as libpq does: the service (`service=`,
    /// PGSERVICE, PGSERVICEFILE, ~/.pg_service.conf, PGSYSCONFDIR/pg_service.conf), then the
    /// PG* variables, the effective OS user, and the password file.
    pub fn parse(database: &str) -> Result<Target> {
        let params =
            conninfo::parse(database).map_err(|e| usage(&format!("invalid DATABASE: {e}")))?;
        Self::from_params(params, &Env::process())
    }

    fn from_params(p: Params, env: &Env) -> Result<Target> {
        let r = hosts::resolve(p, env, "csvload").map_err(|e| usage(&e))?;
        let mut p = r.params;
        for (key, why) in UNSUPPORTED {
            if p.take(key).is_some_and(|v| !v.is_empty()) {
                return Err(usage(&format!(
                    "{key} is not supported by csvload ({why}); leave it out"
                )));
            }
        }
        for (key, allowed) in [
            ("sslcertmode", &["allow"][..]),
            ("ssl_min_protocol_version", &["TLSv1.2"][..]),
            ("sslnegotiation", &["postgres"][..]),
            (
                "client_encoding",
                &["UTF8", "utf8", "UTF-8", "utf-8", "auto"][..],
            ),
        ] {
            if let Some(v) = p.take(key).filter(|v| !v.is_empty())
                && !allowed.contains(&v.as_str())
            {
                return Err(usage(&format!(
                    "{key}={v} is not supported by csvload (only {})",
                    allowed.join(", ")
                )));
            }
        }
        // libpq refuses an empty sslmode (from the string, a service or PGSSLMODE).
        if p.get("sslmode") == Some("") {
            return Err(usage(
                "invalid sslmode value: \"\" (use disable, allow, prefer, require, verify-ca \
                 or verify-full)",
            ));
        }
        let ssl = SslParams {
            mode: p.take("sslmode"),
            rootcert: p.take("sslrootcert"),
            cert: p.take("sslcert"),
            key: p.take("sslkey"),
            sni: p.take("sslsni"),
        };
        // libpq 17 ignores sslcompression (obsolete); the Kerberos settings matter only to
        // GSSAPI authentication, which csvload does not offer (such a login fails).
        for ignored in ["sslcompression", "krbsrvname", "gsslib", "gssdelegation"] {
            p.take(ignored);
        }
        if let Some(v) = p.take("fallback_application_name")
            && p.get("application_name").is_none_or(str::is_empty)
        {
            p.set("application_name", &v);
        }
        match p.take("gssencmode").as_deref() {
            None | Some("") | Some("disable") | Some("prefer") => {}
            Some(m) => {
                return Err(usage(&format!(
                    "gssencmode={m}: csvload has no GSSAPI encryption; use TLS (sslmode)"
                )));
            }
        }
        let random = match p.take("load_balance_hosts").as_deref() {
            None | Some("") | Some("disable") => false,
            Some("random") => true,
            Some(v) => {
                return Err(usage(&format!(
                    "invalid load_balance_hosts value: \"{v}\" (use disable or random)"
                )));
            }
        };
        let attrs = match p.take("target_session_attrs").as_deref() {
            None | Some("") | Some("any") => Attrs::Any,
            Some("read-write") => Attrs::ReadWrite,
            Some("read-only") => Attrs::ReadOnly,
            Some("primary") => Attrs::Primary,
            Some("standby") => Attrs::Standby,
            Some("prefer-standby") => Attrs::PreferStandby,
            Some(v) => {
                return Err(usage(&format!(
                    "invalid target_session_attrs value: \"{v}\" (use any, read-write, \
                     read-only, primary, standby or prefer-standby)"
                )));
            }
        };
        if p.get("application_name").is_none_or(str::is_empty) {
            p.set("application_name", "csvload");
        }
        let net = NetParams::take(&mut p)?;

        let mut text = String::new();
        for (k, v) in p.iter() {
            text.push_str(&format!("{k}={} ", quote(v)));
        }
        let mut base: Config = text
            .parse()
            .map_err(|e: postgres::Error| usage(&format!("invalid DATABASE: {}", chain(&e))))?;
        net.apply(&mut base);
        let sockets_only = r.hosts.iter().all(|h| h.unix());
        let tls = Tls::new(&ssl, env.home.as_deref(), sockets_only).map_err(|e| usage(&e))?;
        Ok(Target {
            base,
            hosts: r.hosts,
            tls,
            random,
            attrs,
            connect_timeout: net.connect_timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::conn::pgpass::{DEFAULT_SOCKET_DIR, host_key as pgpass_host};
    use crate::pg::conn::tls::SslMode;
    use std::path::Path;

    /// A target parsed with a fixed environment (never the test process's own).
    fn target(s: &str, vars: &[(&str, &str)], home: Option<&Path>) -> Result<Target> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let var = move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let env = Env {
            var: &var,
            home: home.map(Path::to_path_buf),
            os_user: Ok("osuser".into()),
        };
        Target::from_params(conninfo::parse(s).map_err(|e| usage(&e))?, &env)
    }

    /// Issue 16 of 19: libpq's passwordFromFile looks a socket directory up by its path, and
    /// uses `localhost` only for an empty host or its default socket directory. (Before the
    /// fix every socket was looked up as `localhost`.)
    #[test]
    fn pgpass_socket_directory_is_the_host_field() {
        let home = tempfile::tempdir().unwrap();
        let pass = home.path().join(".pgpass");
        std::fs::write(
            &pass,
            "/tmp/sock:5432:db:u:sockpw\nlocalhost:5432:db:u:localpw\n127.0.0.1:5433:*:u:tcppw\n",
        )
        .unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&pass, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let pw = |s: &str| {
            let t = target(s, &[], Some(home.path())).unwrap();
            t.hosts
                .iter()
                .map(|h| h.password.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pw("host=/tmp/sock dbname=db user=u"),
            [Some("sockpw".into())]
        );
        assert_eq!(
            pw("host=/var/run/postgresql dbname=db user=u"),
            [Some("localpw".into())]
        );
        assert_eq!(pw("host=/elsewhere dbname=db user=u"), [None]);
        assert_eq!(
            pw("host=localhost dbname=db user=u"),
            [Some("localpw".into())]
        );
        // Per host, as libpq: each host of a list has its own entry.
        assert_eq!(
            pw("host=/tmp/sock,127.0.0.1 port=5432,5433 dbname=db user=u"),
            [Some("sockpw".into()), Some("tcppw".into())]
        );
        // hostaddr without host: looked up by the address.
        assert_eq!(
            pw("hostaddr=127.0.0.1 port=5433 dbname=x user=u"),
            [Some("tcppw".into())]
        );
        // The database defaults to the user name.
        assert_eq!(
            pw("host=127.0.0.1 port=5433 user=u"),
            [Some("tcppw".into())]
        );
        // A password given wins; passfile= names another file.
        assert_eq!(
            pw("host=/tmp/sock dbname=db user=u password=given"),
            [Some("given".into())]
        );
        let t = target(
            "host=/tmp/sock dbname=db user=u",
            &[("PGPASSFILE", "/nonexistent")],
            Some(home.path()),
        )
        .unwrap();
        assert_eq!(t.hosts[0].password, None);
        assert_eq!(pgpass_host(""), "localhost");
        assert_eq!(pgpass_host(DEFAULT_SOCKET_DIR), "localhost");
        assert_eq!(pgpass_host("/run/postgresql"), "/run/postgresql");
    }

    /// Issue 19 item 3: PGSSLMODE applies unless the sslmode keyword is set; the text
    /// `sslmode` inside another value does not count. (Failed before: the string was searched.)
    #[test]
    fn pgsslmode_applies_unless_the_keyword_is_set() {
        let env = [("PGSSLMODE", "require")];
        for s in [
            "dbname=app_sslmode_test",
            "app_sslmode_test",
            "postgresql://h/sslmode",
        ] {
            let t = target(s, &env, None).unwrap();
            assert_eq!(t.tls.mode, SslMode::Require, "{s}");
        }
        let t = target("dbname=a sslmode=disable", &env, None).unwrap();
        assert_eq!(t.tls.mode, SslMode::Disable);
        let t = target("postgresql://h/a?sslmode=prefer", &env, None).unwrap();
        assert_eq!(t.tls.mode, SslMode::Prefer);
        assert_eq!(
            target("dbname=a", &[], None).unwrap().tls.mode,
            SslMode::Prefer
        );
    }

    #[test]
    fn tls_settings_as_libpq() {
        let e = |s: &str| {
            target(s, &[], None)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(e("host=h sslmode=verify-ca dbname=a").contains("root certificate file"));
        assert!(
            e("host=h sslmode=verify-full sslrootcert=/nonexistent/ca.pem")
                .contains("does not exist")
        );
        assert!(e("sslmode=require sslrootcert=system").contains("weak sslmode \"require\""));
        assert!(e("sslmode=nonsense").contains("invalid sslmode value"));
        assert!(e("sslpassword=x").contains("not supported"));
        // Certificate files are read only when TLS may be used: never on a Unix socket.
        assert_eq!(e("host=/tmp sslmode=verify-full"), "");
        assert!(e("host=/tmp,h sslmode=verify-full").contains("root certificate file"));
        assert!(e("host=/tmp sslmode=verify-full sslrootcert=system").is_empty());
        assert!(e("host=/tmp sslmode=require sslrootcert=system").contains("weak sslmode"));
        // Without a root certificate file require checks no chain; with sslrootcert it does.
        let t = target("host=h sslmode=require", &[], None).unwrap();
        assert!(t.tls.verifies.starts_with("nothing"), "{}", t.tls.verifies);
    }

    #[test]
    fn several_hosts() {
        let t = target("host=a,b,/sock port=1,2,3 dbname=d", &[], None).unwrap();
        let hs: Vec<(String, u16, bool)> = t
            .hosts
            .iter()
            .map(|h| (h.host.clone(), h.port, h.unix()))
            .collect();
        assert_eq!(
            hs,
            [
                ("a".into(), 1, false),
                ("b".into(), 2, false),
                ("/sock".into(), 3, true)
            ]
        );
        // One port serves every host; an empty entry is 5432.
        let t = target("postgresql://a,b:7,c/d?port=", &[], None).unwrap();
        assert_eq!(
            t.hosts.iter().map(|h| h.port).collect::<Vec<_>>(),
            [5432, 5432, 5432]
        );
        let t = target("postgresql://a:1,b:2/d", &[], None).unwrap();
        assert_eq!(t.hosts.iter().map(|h| h.port).collect::<Vec<_>>(), [1, 2]);
        let t = target("host=a,b port=9", &[], None).unwrap();
        assert_eq!(t.hosts.iter().map(|h| h.port).collect::<Vec<_>>(), [9, 9]);
        assert!(target("host=a,b,c port=1,2", &[], None).is_err());
        assert!(target("host=a,b hostaddr=127.0.0.1", &[], None).is_err());
        assert!(target("hostaddr=nope", &[], None).is_err());
        assert!(target("host=a load_balance_hosts=sometimes", &[], None).is_err());
        assert!(target("host=a target_session_attrs=primary", &[], None).is_ok());
        assert!(target("host=a target_session_attrs=any-old", &[], None).is_err());
        let t = target("host=a,b", &[("PGLOADBALANCEHOSTS", "random")], None).unwrap();
        assert!(t.random);
        // PGHOST/PGPORT fill in only when the string leaves them out.
        let t = target("dbname=d", &[("PGHOST", "x,y"), ("PGPORT", "5,6")], None).unwrap();
        assert_eq!(t.describe(), "x:5/d");
        assert_eq!(t.hosts.len(), 2);
    }

    /// Issue 20: libpq's TCP keywords with libpq's units and meaning: tcp_user_timeout in
    /// milliseconds (tokio-postgres reads seconds), keepalives_count (tokio-postgres calls it
    /// keepalives_retries, which libpq refuses), 0 or negative as the system default,
    /// connect_timeout under 2 s as 2 s and 0 as forever, PGCONNECT_TIMEOUT, integers as
    /// libpq's parse_int_param reads them.
    #[test]
    fn tcp_keywords_as_libpq() {
        use std::time::Duration;
        let t = |s: &str, vars: &[(&str, &str)]| target(s, vars, None);
        let c = t(
            "host=h keepalives_idle=30 keepalives_interval=' 10 ' keepalives_count=+3 \
             tcp_user_timeout=1500 connect_timeout=7",
            &[],
        )
        .unwrap();
        assert!(c.base.get_keepalives());
        assert_eq!(c.base.get_keepalives_idle(), Duration::from_secs(30));
        assert_eq!(
            c.base.get_keepalives_interval(),
            Some(Duration::from_secs(10))
        );
        assert_eq!(c.base.get_keepalives_retries(), Some(3));
        assert_eq!(
            c.base.get_tcp_user_timeout(),
            Some(&Duration::from_millis(1500))
        );
        assert_eq!(c.connect_timeout, Some(Duration::from_secs(7)));
        assert_eq!(c.base.get_connect_timeout(), Some(&Duration::from_secs(7)));
        // keepalives: 0 off, any other integer on; the default on.
        assert!(!t("host=h keepalives=0", &[]).unwrap().base.get_keepalives());
        assert!(t("host=h keepalives=2", &[]).unwrap().base.get_keepalives());
        assert!(t("host=h", &[]).unwrap().base.get_keepalives());
        // 0 and negative values: the system default (nothing set).
        let d = t(
            "host=h keepalives_interval=-5 keepalives_count=0 tcp_user_timeout=-1",
            &[],
        )
        .unwrap();
        assert_eq!(d.base.get_keepalives_interval(), None);
        assert_eq!(d.base.get_keepalives_retries(), None);
        assert_eq!(d.base.get_tcp_user_timeout(), None);
        // connect_timeout: 1 is 2 s; 0 and negative wait forever; the variable applies only
        // when the string leaves the keyword out.
        let ct = |s: &str, vars: &[(&str, &str)]| t(s, vars).unwrap().connect_timeout;
        assert_eq!(
            ct("host=h connect_timeout=1", &[]),
            Some(Duration::from_secs(2))
        );
        assert_eq!(ct("host=h connect_timeout=0", &[]), None);
        assert_eq!(ct("host=h connect_timeout=-3", &[]), None);
        assert_eq!(
            ct("host=h", &[("PGCONNECT_TIMEOUT", "9")]),
            Some(Duration::from_secs(9))
        );
        assert_eq!(
            ct("host=h connect_timeout=0", &[("PGCONNECT_TIMEOUT", "9")]),
            None
        );
        // The URL form carries them too.
        assert_eq!(
            t("postgresql://h/d?tcp_user_timeout=250&keepalives=0", &[])
                .unwrap()
                .base
                .get_tcp_user_timeout(),
            Some(&Duration::from_millis(250))
        );
        // What libpq refuses.
        let e = |s: &str| t(s, &[]).err().map(|e| e.to_string()).unwrap_or_default();
        for bad in ["10s", "1.5", "", "x", "99999999999"] {
            let m = e(&format!("host=h keepalives_idle='{bad}'"));
            assert!(
                m.contains(&format!(
                    "invalid integer value \"{bad}\" for connection option \"keepalives_idle\""
                )),
                "{bad}: {m}"
            );
        }
        assert!(e("host=h connect_timeout=5s").contains("\"connect_timeout\""));
        assert!(e("host=h keepalives=on").contains("\"keepalives\""));
        assert!(e("host=h keepalives_retries=3").contains("\"keepalives_retries\""));
    }

    /// Issue 32 items 1, 2, 4 and 6: PGREQUIRESSL, the service of PGSERVICE, an empty
    /// sslmode refused, the effective OS user (not $USER) as the default user.
    #[test]
    fn libpq_defaults_requiressl_service_user() {
        let mode = |s: &str, vars: &[(&str, &str)]| target(s, vars, None).map(|t| t.tls.mode);
        assert_eq!(
            mode("host=h", &[("PGREQUIRESSL", "1")]).unwrap(),
            SslMode::Require
        );
        // PGSSLMODE wins over PGREQUIRESSL; a keyword over both.
        assert_eq!(
            mode("host=h", &[("PGREQUIRESSL", "1"), ("PGSSLMODE", "disable")]).unwrap(),
            SslMode::Disable
        );
        assert_eq!(
            mode("host=h requiressl=0", &[("PGSSLMODE", "require")]).unwrap(),
            SslMode::Prefer
        );
        for (s, vars) in [
            ("host=h sslmode=", &[][..]),
            ("host=h sslmode=''", &[][..]),
            ("postgresql://h/d?sslmode=", &[][..]),
            ("host=h", &[("PGSSLMODE", "")][..]),
        ] {
            let e = mode(s, vars)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains("invalid sslmode value: \"\""), "{s}: {e}");
        }
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".pg_service.conf"),
            "[s]\nhost=svc\nsslmode=require\nuser=svcuser\n",
        )
        .unwrap();
        let t = target(
            "dbname=x",
            &[("PGSERVICE", "s"), ("PGHOST", "envhost")],
            Some(home.path()),
        )
        .unwrap();
        assert_eq!(t.hosts[0].host, "svc");
        assert_eq!(t.tls.mode, SslMode::Require);
        assert_eq!(t.base.get_user(), Some("svcuser"));
        let t = target("host=h", &[("USER", "envuser"), ("LOGNAME", "x")], None).unwrap();
        assert_eq!(t.base.get_user(), Some("osuser"));
        assert_eq!(t.base.get_dbname(), Some("osuser"));
    }

    #[test]
    fn unknown_keywords_are_usage_errors() {
        let e = target("dbname=a frobnicate=1", &[], None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("frobnicate"), "{e}");
    }
}
