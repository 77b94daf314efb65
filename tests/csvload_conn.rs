//! csvload's connections against real servers on loopback (issue 20 items 1 and 4, issue 19
//! items 3, 14, 16): every sslmode against a PostgreSQL with `ssl = on` and `hostssl`-only
//! scram-sha-256 (certificates made here with the openssl CLI) and against one without TLS;
//! client-certificate login; a fake server that proves no password leaves in plain text when
//! TLS was asked for; several hosts (one down, and `load_balance_hosts=random` over two
//! addresses of one server); server errors in words.

use crate::support::cmd::Within;
use crate::support::pg::{self, Opts, Pg};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one csvload run did.
struct Out {
    code: Option<i32>,
    stderr: String,
}

/// Runs csvload with a clean libpq environment (no PG* variables; HOME = `home`, so
/// `~/.postgresql` and `~/.pgpass` are the test's), killed after 60 s.
fn csvload(args: &[&str], envs: &[(&str, &str)], home: &Path) -> Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_csvload"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PG") {
            c.env_remove(k);
        }
    }
    c.env("HOME", home)
        .env("PGCONNECT_TIMEOUT", "10")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("run csvload");
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("csvload {args:?} did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Out {
        code: status.code(),
        stderr: reader.join().unwrap(),
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output_within()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA `NAME.crt`/`NAME.key` in `dir`.
fn make_ca(dir: &Path, name: &str) -> PathBuf {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
            "-days",
            "3",
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
    dir.join(format!("{name}.crt"))
}

/// A certificate `NAME.crt`/`NAME.key` signed by CA `ca`, for common name `cn` with the
/// given extensions (`subjectAltName=...`, `extendedKeyUsage=...`).
fn make_leaf(dir: &Path, ca: &str, name: &str, cn: &str, ext: &str) {
    std::fs::write(dir.join(format!("{name}.ext")), ext).unwrap();
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
            "-subj",
            &format!("/CN={cn}"),
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            &format!("{ca}.crt"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            &format!("{name}.crt"),
            "-days",
            "3",
            "-extfile",
            &format!("{name}.ext"),
        ],
    );
    set_mode(&dir.join(format!("{name}.key")), 0o600);
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// A manifest for table `t` (id int) with `rows` rows in `t.csv`, for `--verify-only`.
fn verify_manifest(dir: &Path, rows: u64) -> PathBuf {
    std::fs::write(dir.join("t.csv"), "").unwrap();
    let m = format!(
        r#"{{"format":"dumpshard-manifest","version":1,"tables":[{{"schema":"public","name":"t",
        "file":"t.csv","columns":[{{"name":"id","type":"integer","not_null":true}}],
        "primary_key":["id"],"rows":{rows},"bytes":0,"header":false,"null":""}}]}}"#
    );
    let p = dir.join("t.json");
    std::fs::write(&p, m).unwrap();
    p
}

struct TlsServer {
    pg: Pg,
    /// Holds the certificates: ca.crt (the server's CA), other.crt (an unrelated CA),
    /// client.crt/.key (CN certuser, signed by ca).
    certs: tempfile::TempDir,
    manifest: PathBuf,
}

impl TlsServer {
    fn certs(&self) -> &Path {
        self.certs.path()
    }

    fn cert(&self, name: &str) -> String {
        self.certs().join(name).to_str().unwrap().to_string()
    }

    /// `host=127.0.0.1 port=P dbname=d user=app password=app-pw` plus `extra`.
    fn conn(&self, extra: &str) -> String {
        format!(
            "host=127.0.0.1 port={} dbname=d user=app password=app-pw {extra}",
            self.pg.port()
        )
    }

    /// Whether the server logged a TLS connection of application `app`.
    fn logged_tls(&self, app: &str) -> Option<bool> {
        let log = self.pg.server_log();
        let line = log.lines().rev().find(|l| {
            l.contains("connection authorized") && l.contains(&format!("application_name={app}"))
        })?;
        Some(line.contains("SSL enabled"))
    }
}

/// A server on 127.0.0.1 and 127.0.0.2 with `ssl = on`, hostssl-only pg_hba (scram-sha-256;
/// `cert` for role certuser), a server certificate for `localhost` and 127.0.0.1/127.0.0.2,
/// role app (password app-pw) owning database d with a table t of 3 rows.
fn tls_server(ssl: bool) -> Option<TlsServer> {
    tls_server_with(ssl, false)
}

/// Re-signs `server.csr` as a certificate that expired on 2020-01-02 (`openssl ca`, the only
/// way openssl 3.0 sets dates in the past).
fn expire_server_cert(d: &Path) {
    std::fs::write(
        d.join("ca.cnf"),
        "[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n\
         default_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n",
    )
    .unwrap();
    std::fs::write(d.join("index.txt"), "").unwrap();
    std::fs::write(d.join("serial"), "01\n").unwrap();
    openssl(
        d,
        &[
            "ca",
            "-batch",
            "-config",
            "ca.cnf",
            "-cert",
            "ca.crt",
            "-keyfile",
            "ca.key",
            "-in",
            "server.csr",
            "-out",
            "server.crt",
            "-startdate",
            "20200101000000Z",
            "-enddate",
            "20200102000000Z",
            "-extfile",
            "server.ext",
            "-notext",
        ],
    );
}

/// [`tls_server`], with an expired server certificate when `expired`.
fn tls_server_with(ssl: bool, expired: bool) -> Option<TlsServer> {
    let certs = tempfile::tempdir().unwrap();
    let d = certs.path();
    make_ca(d, "ca");
    make_ca(d, "other");
    make_leaf(
        d,
        "ca",
        "server",
        "localhost",
        "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:127.0.0.2\nextendedKeyUsage=serverAuth\n",
    );
    make_leaf(
        d,
        "ca",
        "client",
        "certuser",
        "extendedKeyUsage=clientAuth\n",
    );
    if expired {
        expire_server_cert(d);
    }
    let mut o = Opts {
        listen: Some("127.0.0.1,127.0.0.2".into()),
        settings: vec![
            ("log_connections".into(), "on".into()),
            ("password_encryption".into(), "scram-sha-256".into()),
        ],
        ..Opts::default()
    };
    let host = if ssl { "hostssl" } else { "host" };
    // `cert` authentication exists on hostssl lines only.
    let cert = if ssl {
        "hostssl all certuser 127.0.0.1/32 cert\n"
    } else {
        ""
    };
    o.hba = Some(format!(
        "local all all trust\n{cert}\
         {host} all all 127.0.0.1/32 scram-sha-256\n{host} all all 127.0.0.2/32 scram-sha-256\n"
    ));
    if ssl {
        o.files = vec![
            ("server.crt".into(), read(&d.join("server.crt"))),
            ("server.key".into(), read(&d.join("server.key"))),
            ("ca.crt".into(), read(&d.join("ca.crt"))),
        ];
        for (k, v) in [
            ("ssl", "on"),
            ("ssl_cert_file", "server.crt"),
            ("ssl_key_file", "server.key"),
            ("ssl_ca_file", "ca.crt"),
        ] {
            o.settings.push((k.into(), v.into()));
        }
    }
    let pg = Pg::start_with(&o)?;
    pg.psql(
        "postgres",
        "CREATE ROLE app LOGIN PASSWORD 'app-pw'; CREATE ROLE certuser LOGIN",
    );
    pg.psql("postgres", "CREATE DATABASE d OWNER app");
    pg.psql(
        "d",
        "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3); \
         ALTER TABLE t OWNER TO app; GRANT SELECT ON t TO certuser; \
         CREATE SCHEMA dumpshard AUTHORIZATION app; GRANT ALL ON SCHEMA dumpshard TO certuser",
    );
    let manifest = verify_manifest(d, 3);
    Some(TlsServer {
        pg,
        certs,
        manifest,
    })
}

/// `csvload --verify-only` of table t over `conn`.
fn verify_only(s: &TlsServer, conn: &str, envs: &[(&str, &str)], home: &Path) -> Out {
    csvload(
        &[
            "--verify-only",
            "-q",
            "-m",
            s.manifest.to_str().unwrap(),
            conn,
        ],
        envs,
        home,
    )
}

fn expect_ok(o: &Out, what: &str) {
    assert_eq!(o.code, Some(0), "{what}: {}", o.stderr);
}

fn expect_refused(o: &Out, what: &str, words: &[&str]) {
    assert_eq!(o.code, Some(2), "{what}: expected exit 2: {}", o.stderr);
    for w in words {
        assert!(o.stderr.contains(w), "{what}: no {w:?} in: {}", o.stderr);
    }
}

#[test]
fn every_sslmode_against_a_tls_only_server() {
    let Some(s) = tls_server(true) else { return };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let ca = s.cert("ca.crt");
    let other = s.cert("other.crt");

    // disable: the server accepts TLS connections only.
    let o = verify_only(
        &s,
        &s.conn("sslmode=disable application_name=m-disable"),
        &[],
        h,
    );
    expect_refused(&o, "disable", &["28000", "pg_hba.conf", "no encryption"]);
    // allow: plain first, refused, then TLS.
    let o = verify_only(
        &s,
        &s.conn("sslmode=allow application_name=m-allow"),
        &[],
        h,
    );
    expect_ok(&o, "allow");
    assert_eq!(s.logged_tls("m-allow"), Some(true));
    // prefer (the default) and require without a root certificate: TLS, nothing verified.
    for (mode, app) in [
        ("", "m-default"),
        ("sslmode=prefer", "m-prefer"),
        ("sslmode=require", "m-require"),
    ] {
        let o = verify_only(
            &s,
            &s.conn(&format!("{mode} application_name={app}")),
            &[],
            h,
        );
        expect_ok(&o, mode);
        assert_eq!(s.logged_tls(app), Some(true), "{mode}");
    }
    // require with a root certificate checks the chain, as verify-ca (libpq).
    let o = verify_only(
        &s,
        &s.conn(&format!("sslmode=require sslrootcert={other}")),
        &[],
        h,
    );
    expect_refused(&o, "require + other CA", &["unknown certificate authority"]);
    let o = verify_only(
        &s,
        &s.conn(&format!("sslmode=require sslrootcert={ca}")),
        &[],
        h,
    );
    expect_ok(&o, "require + CA");
    // verify-ca: a root certificate is needed; the chain is checked, not the name.
    let o = verify_only(&s, &s.conn("sslmode=verify-ca"), &[], h);
    expect_refused(
        &o,
        "verify-ca without root",
        &["root certificate file", "does not exist"],
    );
    let o = verify_only(
        &s,
        &s.conn(&format!("sslmode=verify-ca sslrootcert={other}")),
        &[],
        h,
    );
    expect_refused(
        &o,
        "verify-ca + other CA",
        &["unknown certificate authority"],
    );
    let named_other = format!(
        "host=db.example hostaddr=127.0.0.1 port={} dbname=d user=app password=app-pw",
        s.pg.port()
    );
    let o = verify_only(
        &s,
        &format!("{named_other} sslmode=verify-ca sslrootcert={ca}"),
        &[],
        h,
    );
    expect_ok(&o, "verify-ca, another name");
    // verify-full: the chain and the name (subjectAltName, IP or DNS).
    let o = verify_only(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={ca}")),
        &[],
        h,
    );
    expect_ok(&o, "verify-full");
    let o = verify_only(
        &s,
        &format!("{named_other} sslmode=verify-full sslrootcert={ca}"),
        &[],
        h,
    );
    expect_refused(
        &o,
        "verify-full, another name",
        &["host name mismatch", "db.example"],
    );
    let o = verify_only(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={other}")),
        &[],
        h,
    );
    expect_refused(
        &o,
        "verify-full + other CA",
        &["unknown certificate authority"],
    );
    // sslrootcert=system only with verify-full (libpq 16).
    let o = verify_only(&s, &s.conn("sslmode=require sslrootcert=system"), &[], h);
    expect_refused(&o, "require + system", &["weak sslmode \"require\""]);
    // A URL with the same settings.
    let url = format!(
        "postgresql://app:app-pw@127.0.0.1:{}/d?sslmode=verify-full&sslrootcert={}",
        s.pg.port(),
        ca.replace('/', "%2F")
    );
    expect_ok(&verify_only(&s, &url, &[], h), "URL verify-full");

    // The defaults: ~/.postgresql/root.crt, and the PGSSL* variables.
    std::fs::create_dir(h.join(".postgresql")).unwrap();
    std::fs::copy(&other, h.join(".postgresql/root.crt")).unwrap();
    let o = verify_only(&s, &s.conn("sslmode=require"), &[], h);
    expect_refused(
        &o,
        "require + ~/.postgresql/root.crt of another CA",
        &["unknown certificate authority"],
    );
    std::fs::copy(&ca, h.join(".postgresql/root.crt")).unwrap();
    expect_ok(
        &verify_only(&s, &s.conn("sslmode=verify-full"), &[], h),
        "verify-full + default root",
    );
    // Issue 19 item 3: PGSSLMODE applies although the string contains the text "sslmode".
    let conn = format!(
        "host=db.example hostaddr=127.0.0.1 port={} dbname=d user=app password=app-pw \
         application_name=app_sslmode_test",
        s.pg.port()
    );
    let o = verify_only(&s, &conn, &[("PGSSLMODE", "verify-full")], h);
    expect_refused(&o, "PGSSLMODE=verify-full", &["host name mismatch"]);
    let o = verify_only(
        &s,
        &conn,
        &[("PGSSLMODE", "verify-ca"), ("PGSSLROOTCERT", &other)],
        h,
    );
    expect_refused(&o, "PGSSLROOTCERT", &["unknown certificate authority"]);
    // An explicit sslmode keyword wins over PGSSLMODE.
    let o = verify_only(
        &s,
        &format!("{conn} sslmode=require"),
        &[("PGSSLMODE", "verify-full")],
        h,
    );
    expect_ok(&o, "sslmode=require over PGSSLMODE");
}

#[test]
fn expired_server_certificate_is_named() {
    let Some(s) = tls_server_with(true, true) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let ca = s.cert("ca.crt");
    for mode in ["verify-ca", "verify-full"] {
        let o = verify_only(
            &s,
            &s.conn(&format!("sslmode={mode} sslrootcert={ca}")),
            &[],
            home.path(),
        );
        expect_refused(&o, mode, &["the certificate has expired"]);
    }
    // require without a root certificate checks nothing, as libpq.
    expect_ok(
        &verify_only(&s, &s.conn("sslmode=require"), &[], home.path()),
        "require",
    );
}

#[test]
fn client_certificate_login() {
    let Some(s) = tls_server(true) else { return };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let base = format!(
        "host=127.0.0.1 port={} dbname=d user=certuser sslmode=verify-full sslrootcert={}",
        s.pg.port(),
        s.cert("ca.crt")
    );
    let with_cert = format!(
        "{base} sslcert={} sslkey={}",
        s.cert("client.crt"),
        s.cert("client.key")
    );
    expect_ok(&verify_only(&s, &with_cert, &[], h), "client certificate");
    // No certificate: the server refuses (cert authentication).
    let o = verify_only(&s, &base, &[], h);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("valid client certificate"),
        "{}",
        o.stderr
    );
    // The defaults ~/.postgresql/postgresql.crt and .key, and PGSSLCERT/PGSSLKEY.
    let dot = h.join(".postgresql");
    std::fs::create_dir(&dot).unwrap();
    std::fs::copy(s.certs().join("client.crt"), dot.join("postgresql.crt")).unwrap();
    std::fs::copy(s.certs().join("client.key"), dot.join("postgresql.key")).unwrap();
    set_mode(&dot.join("postgresql.key"), 0o600);
    expect_ok(
        &verify_only(&s, &base, &[], h),
        "default client certificate",
    );
    let env_home = tempfile::tempdir().unwrap();
    let o = verify_only(
        &s,
        &base,
        &[
            ("PGSSLCERT", &s.cert("client.crt")),
            ("PGSSLKEY", &s.cert("client.key")),
        ],
        env_home.path(),
    );
    expect_ok(&o, "PGSSLCERT/PGSSLKEY");
    // A key readable by others is refused, as libpq does.
    set_mode(&dot.join("postgresql.key"), 0o644);
    let o = verify_only(&s, &base, &[], h);
    expect_refused(&o, "open key", &["group or world access"]);
}

#[test]
fn sslmodes_against_a_server_without_tls() {
    let Some(s) = tls_server(false) else { return };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for mode in ["disable", "allow", "prefer"] {
        let app = format!("n-{mode}");
        let o = verify_only(
            &s,
            &s.conn(&format!("sslmode={mode} application_name={app}")),
            &[],
            h,
        );
        expect_ok(&o, mode);
        assert_eq!(s.logged_tls(&app), Some(false), "{mode}");
    }
    let ca = s.cert("ca.crt");
    for mode in ["require", "verify-ca", "verify-full"] {
        let o = verify_only(
            &s,
            &s.conn(&format!("sslmode={mode} sslrootcert={ca}")),
            &[],
            h,
        );
        expect_refused(&o, mode, &["does not support TLS"]);
    }
}

#[test]
fn server_errors_in_words() {
    let Some(s) = tls_server(false) else { return };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let port = s.pg.port();
    let o = verify_only(
        &s,
        &format!("host=127.0.0.1 port={port} dbname=nope user=app password=app-pw"),
        &[],
        h,
    );
    expect_refused(
        &o,
        "missing database",
        &["3D000", "database \"nope\" does not exist"],
    );
    let o = verify_only(
        &s,
        &format!("host=127.0.0.1 port={port} dbname=d user=app password=wrong"),
        &[],
        h,
    );
    expect_refused(
        &o,
        "bad password",
        &["28P01", "password authentication failed", "wrong password"],
    );
    let sock = s.pg.socket_dir().to_str().unwrap().to_string();
    let o = verify_only(
        &s,
        &format!("host={sock} port={port} dbname=d user=nobody"),
        &[],
        h,
    );
    expect_refused(
        &o,
        "missing role",
        &["28000", "role \"nobody\" does not exist"],
    );
    assert!(!o.stderr.contains("db error"), "{}", o.stderr);
    // A bare database name, as psql -d takes it.
    let o = verify_only(
        &s,
        "d",
        &[
            ("PGHOST", "127.0.0.1"),
            ("PGPORT", &port.to_string()),
            ("PGUSER", "app"),
            ("PGPASSWORD", "app-pw"),
        ],
        h,
    );
    expect_ok(&o, "bare database name");
    // The password file (a socket directory's entry is unit-tested in conn.rs).
    std::fs::write(
        h.join(".pgpass"),
        format!("{sock}:{port}:d:app:wrong\n127.0.0.1:{port}:d:app:app-pw\n"),
    )
    .unwrap();
    set_mode(&h.join(".pgpass"), 0o600);
    let o = verify_only(
        &s,
        &format!("host=127.0.0.1 port={port} dbname=d user=app"),
        &[],
        h,
    );
    expect_ok(&o, "password from ~/.pgpass");
    std::fs::write(h.join(".pgpass"), format!("127.0.0.1:{port}:d:app:wrong\n")).unwrap();
    let o = verify_only(
        &s,
        &format!("host=127.0.0.1 port={port} dbname=d user=app"),
        &[],
        h,
    );
    expect_refused(&o, "wrong password from ~/.pgpass", &["28P01", ".pgpass"]);
}

/// A fake server on 127.0.0.1: answers an SSLRequest with 'N', then asks for a cleartext
/// password; returns its port and a handle giving every byte each connection sent.
fn fake_server() -> (u16, std::thread::JoinHandle<Vec<u8>>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        let mut seen = Vec::new();
        // One connection (csvload tries one host once for require; allow/prefer at most twice).
        l.set_nonblocking(true).unwrap();
        let t0 = Instant::now();
        let mut conns = 0;
        while t0.elapsed() < Duration::from_secs(20) && conns < 2 {
            let Ok((mut c, _)) = l.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                if conns > 0 && t0.elapsed() > Duration::from_secs(3) {
                    break;
                }
                continue;
            };
            conns += 1;
            c.set_nonblocking(false).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut buf = [0u8; 4096];
            let mut answered_ssl = false;
            let mut asked = false;
            loop {
                let n = match c.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                seen.extend_from_slice(&buf[..n]);
                let chunk = &buf[..n];
                if !answered_ssl && chunk.len() >= 8 && chunk[4..8] == [4, 210, 22, 47] {
                    answered_ssl = true;
                    c.write_all(b"N").unwrap();
                } else if !asked {
                    asked = true;
                    // AuthenticationCleartextPassword.
                    c.write_all(&[b'R', 0, 0, 0, 8, 0, 0, 0, 3]).unwrap();
                } else {
                    // An error ends the exchange.
                    let mut m = Vec::new();
                    for f in [&b"SFATAL"[..], b"C28P01", b"Mfake server"] {
                        m.extend_from_slice(f);
                        m.push(0);
                    }
                    m.push(0);
                    let mut msg = vec![b'E'];
                    msg.extend_from_slice(&((m.len() + 4) as u32).to_be_bytes());
                    msg.extend_from_slice(&m);
                    let _ = c.write_all(&msg);
                    break;
                }
            }
        }
        seen
    });
    (port, h)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn no_password_in_plain_text_when_tls_was_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = verify_manifest(dir.path(), 0);
    let m = manifest.to_str().unwrap();
    let ca = make_ca(dir.path(), "ca");
    let pw = "s3cret-pw";
    // Control: with prefer the fake server gets the password (so it would see a leak).
    let (port, h) = fake_server();
    let o = csvload(
        &[
            "--verify-only",
            "-m",
            m,
            &format!("host=127.0.0.1 port={port} user=u password={pw}"),
        ],
        &[("PGSSLMODE", "prefer")],
        dir.path(),
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        contains(&h.join().unwrap(), pw.as_bytes()),
        "the fake server saw no password"
    );
    for (how, conn, envs) in [
        (
            "sslmode=require",
            format!("host=127.0.0.1 port={port} user=u password={pw} sslmode=require"),
            vec![],
        ),
        (
            "sslmode=verify-full",
            format!(
                "host=127.0.0.1 port={port} user=u password={pw} sslmode=verify-full sslrootcert={}",
                ca.display()
            ),
            vec![],
        ),
        // Issue 19 item 3: the text "sslmode" in the database name does not hide PGSSLMODE.
        (
            "PGSSLMODE=require",
            format!("host=127.0.0.1 port={port} dbname=app_sslmode_test user=u password={pw}"),
            vec![("PGSSLMODE", "require")],
        ),
        (
            "URL",
            format!("postgresql://u:{pw}@127.0.0.1:{port}/db?sslmode=require"),
            vec![],
        ),
    ] {
        let (port2, h) = fake_server();
        let conn = conn.replace(&port.to_string(), &port2.to_string());
        let o = csvload(&["--verify-only", "-m", m, &conn], &envs, dir.path());
        let seen = h.join().unwrap();
        assert_eq!(o.code, Some(2), "{how}: {}", o.stderr);
        assert!(
            !contains(&seen, pw.as_bytes()),
            "{how}: the password was sent in plain text"
        );
        // Only the SSLRequest went out.
        assert_eq!(seen, [0, 0, 0, 8, 4, 210, 22, 47], "{how}");
        assert!(
            o.stderr.contains("does not support TLS"),
            "{how}: {}",
            o.stderr
        );
    }
}

#[test]
fn several_hosts_first_down_and_random_balance() {
    let Some(s) = tls_server(false) else { return };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let port = s.pg.port();
    let down = pg::free_port();
    // The first host is down: the second is used, as libpq does.
    let o = verify_only(
        &s,
        &format!("host=127.0.0.1,127.0.0.2 port={down},{port} dbname=d user=app password=app-pw"),
        &[],
        h,
    );
    expect_ok(&o, "first host down");
    let url = format!("postgresql://app:app-pw@127.0.0.1:{down},127.0.0.2:{port}/d");
    expect_ok(&verify_only(&s, &url, &[], h), "URL, first host down");
    // Every host down: each is named with its reason.
    let o = verify_only(
        &s,
        &format!("host=127.0.0.1,127.0.0.2 port={down} dbname=d user=app password=app-pw"),
        &[],
        h,
    );
    expect_refused(
        &o,
        "all down",
        &[
            "any of its hosts",
            &format!("127.0.0.1:{down}"),
            &format!("127.0.0.2:{down}"),
        ],
    );
    let o = verify_only(&s, "host=a,b,c port=1,2 dbname=d", &[], h);
    expect_refused(&o, "ports", &["could not match 2 port numbers to 3 hosts"]);

    // load_balance_hosts=random over two addresses of one server: rows record which address
    // their connection reached (inet_server_addr() as a column default).
    s.pg.psql(
        "d",
        "CREATE TABLE lb (id int PRIMARY KEY, note text, v int, via inet DEFAULT inet_server_addr()); \
         ALTER TABLE lb OWNER TO app",
    );
    let dir = tempfile::tempdir().unwrap();
    let load = |i: u32, balance: &str| {
        let file = format!("lb{i}.csv");
        std::fs::write(dir.path().join(&file), format!("{i},x,{i}\n")).unwrap();
        let m = format!(
            r#"{{"format":"dumpshard-manifest","version":1,"tables":[{{"schema":"public","name":"lb",
            "file":"{file}","columns":[{{"name":"id","type":"integer","not_null":true}},
            {{"name":"note","type":"text","not_null":false}},{{"name":"v","type":"integer","not_null":false}}],
            "primary_key":["id"],"rows":1,"bytes":0,"header":false,"null":""}}]}}"#
        );
        let mp = dir.path().join(format!("lb{i}.json"));
        std::fs::write(&mp, m).unwrap();
        let conn = format!(
            "host=127.0.0.1,127.0.0.2 port={port} dbname=d user=app password=app-pw load_balance_hosts={balance}"
        );
        let o = csvload(
            &[
                "-q",
                "--append",
                "-j",
                "1",
                "-m",
                mp.to_str().unwrap(),
                &conn,
            ],
            &[],
            h,
        );
        expect_ok(&o, &format!("load {i}"));
    };
    for i in 0..5 {
        load(i, "disable");
    }
    assert_eq!(
        s.pg.psql("d", "SELECT DISTINCT host(via) FROM lb").trim(),
        "127.0.0.1"
    );
    // Random: both addresses within 30 loads (each one connection, so a one-sided result
    // has probability 2^-29).
    for i in 100..130 {
        load(i, "random");
        let seen =
            s.pg.psql("d", "SELECT count(DISTINCT via) FROM lb WHERE id >= 100");
        if seen.trim() == "2" {
            return;
        }
    }
    panic!("load_balance_hosts=random used only one address in 30 connections");
}
