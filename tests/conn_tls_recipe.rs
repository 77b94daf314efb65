//! Issue 32 item 8: the certificates of PostgreSQL's documentation ("Creating Certificates",
//! section 19.9.5 of the PostgreSQL 15 manual), made step by step with the openssl CLI: a root
//! made with `-extensions v3_ca`, server and client certificates signed by it WITHOUT an
//! extension file, which OpenSSL 3 makes X.509 v1. Against a real PostgreSQL with `ssl = on`,
//! csvload must reach psql's (libpq's) outcome for each: verify-ca and verify-full succeed,
//! client-certificate login succeeds, and each refusal is the same as psql's, in words (the
//! certificate authority named, the names the certificate holds, the dates, the algorithm).

use crate::support::cmd::Within;
use crate::support::pg::{Opts, Pg};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The server certificate's Common Name (the manual's `dbhost.yourdomain.com`); connections
/// name it with `host=` and reach 127.0.0.1 with `hostaddr=`, as libpq allows.
const HOST: &str = "dbhost.yourdomain.com";

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

fn private(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // The manual's `chmod og-rwx`.
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// The manual's root: `openssl req -new -nodes -text -out root.csr -keyout root.key -subj
/// /CN=...`, then `openssl x509 -req -in root.csr -text -days 3650 -extfile
/// /etc/ssl/openssl.cnf -extensions v3_ca -signkey root.key -out root.crt`.
fn recipe_root(dir: &Path, name: &str, cn: &str) {
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-nodes",
            "-text",
            "-out",
            &format!("{name}.csr"),
            "-keyout",
            &format!("{name}.key"),
            "-subj",
            &format!("/CN={cn}"),
        ],
    );
    private(&dir.join(format!("{name}.key")));
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-text",
            "-days",
            "3650",
            "-extfile",
            "/etc/ssl/openssl.cnf",
            "-extensions",
            "v3_ca",
            "-signkey",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
        ],
    );
}

/// The manual's server (or client) certificate: `openssl req -new -nodes -text -out
/// NAME.csr -keyout NAME.key -subj /CN=...`, then `openssl x509 -req -in NAME.csr -text -days
/// 365 -CA ROOT.crt -CAkey ROOT.key -CAcreateserial -out NAME.crt` (no extension file: v1),
/// with `extra` arguments for the variants (e.g. `-sha1`).
fn recipe_leaf(dir: &Path, root: &str, name: &str, cn: &str, extra: &[&str]) {
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-nodes",
            "-text",
            "-out",
            &format!("{name}.csr"),
            "-keyout",
            &format!("{name}.key"),
            "-subj",
            &format!("/CN={cn}"),
        ],
    );
    private(&dir.join(format!("{name}.key")));
    let mut args: Vec<String> = [
        "x509",
        "-req",
        "-in",
        &format!("{name}.csr"),
        "-text",
        "-days",
        "365",
        "-CA",
        &format!("{root}.crt"),
        "-CAkey",
        &format!("{root}.key"),
        "-CAcreateserial",
        "-out",
        &format!("{name}.crt"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    openssl(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
}

/// Re-signs `NAME.csr` with root `root` for the dates given (`openssl ca`: the only way
/// openssl 3.0 sets dates in the past or future); no extensions, so v1 as the recipe's.
fn resign_dated(dir: &Path, root: &str, name: &str, start: &str, end: &str) {
    std::fs::write(
        dir.join("ca.cnf"),
        "[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n\
         default_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n",
    )
    .unwrap();
    std::fs::write(dir.join("index.txt"), "").unwrap();
    std::fs::write(dir.join("serial"), "01\n").unwrap();
    openssl(
        dir,
        &[
            "ca",
            "-batch",
            "-config",
            "ca.cnf",
            "-cert",
            &format!("{root}.crt"),
            "-keyfile",
            &format!("{root}.key"),
            "-in",
            &format!("{name}.csr"),
            "-out",
            &format!("{name}.crt"),
            "-startdate",
            start,
            "-enddate",
            end,
            "-notext",
        ],
    );
}

/// The X.509 version of a certificate, as `openssl x509 -text` prints it.
fn version(cert: &Path) -> String {
    let out = Command::new("openssl")
        .args(["x509", "-noout", "-text", "-in"])
        .arg(cert)
        .stdin(Stdio::null())
        .output_within()
        .expect("run openssl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .find(|l| l.trim_start().starts_with("Version:"))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// One recipe setup: the certificates and a server that uses them.
struct Recipe {
    pg: Pg,
    dir: tempfile::TempDir,
    /// Holds `t.json`, the manifest for `--verify-only`.
    manifest: PathBuf,
}

impl Recipe {
    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).to_str().unwrap().to_string()
    }

    /// `host=HOST hostaddr=127.0.0.1 port=P dbname=d` plus `extra`.
    fn conn(&self, extra: &str) -> String {
        format!(
            "host={HOST} hostaddr=127.0.0.1 port={} dbname=d {extra}",
            self.pg.port()
        )
    }
}

/// The certificates of the recipe in a new directory: root (CN root.yourdomain.com), server
/// (CN [`HOST`]), client (CN certuser), and `other`, an unrelated root made the same way with
/// its own client certificate `stranger` (CN certuser); `server` is then changed by `vary`
/// (run in the directory, e.g. to re-sign it).
fn certificates(vary: impl FnOnce(&Path)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    recipe_root(d, "root", "root.yourdomain.com");
    recipe_leaf(d, "root", "server", HOST, &[]);
    recipe_leaf(d, "root", "client", "certuser", &[]);
    recipe_root(d, "other", "other.yourdomain.com");
    recipe_leaf(d, "other", "stranger", "certuser", &[]);
    vary(d);
    dir
}

/// A server with the recipe's certificates (`ssl_ca_file = root.crt`, as the manual's client
/// certificate section says), pg_hba: `hostssl all certuser 127.0.0.1/32 cert`, `hostssl all
/// all 127.0.0.1/32 scram-sha-256`; role app (password app-pw) and certuser, database d with a
/// table t of 3 rows. `settings`: more server settings.
fn recipe_server(dir: tempfile::TempDir, settings: &[(&str, &str)]) -> Option<Recipe> {
    let d = dir.path();
    let read = |n: &str| std::fs::read(d.join(n)).unwrap();
    let mut o = Opts {
        listen: Some("127.0.0.1".into()),
        files: vec![
            ("server.crt".into(), read("server.crt")),
            ("server.key".into(), read("server.key")),
            ("root.crt".into(), read("root.crt")),
        ],
        hba: Some(
            "local all all trust\nhostssl all certuser 127.0.0.1/32 cert\n\
             hostssl all all 127.0.0.1/32 scram-sha-256\n"
                .into(),
        ),
        ..Opts::default()
    };
    for (k, v) in [
        ("ssl", "on"),
        ("ssl_cert_file", "server.crt"),
        ("ssl_key_file", "server.key"),
        ("ssl_ca_file", "root.crt"),
        ("password_encryption", "scram-sha-256"),
    ]
    .iter()
    .chain(settings)
    {
        o.settings.push((k.to_string(), v.to_string()));
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
    let manifest = write_manifest(d);
    Some(Recipe { pg, dir, manifest })
}

/// `t.json`, the manifest of table t (3 rows) for `--verify-only`, and its empty `t.csv`.
fn write_manifest(d: &Path) -> PathBuf {
    std::fs::write(d.join("t.csv"), "").unwrap();
    let manifest = d.join("t.json");
    std::fs::write(
        &manifest,
        r#"{"format":"dumpshard-manifest","version":1,"tables":[{"schema":"public","name":"t",
        "file":"t.csv","columns":[{"name":"id","type":"integer","not_null":true}],
        "primary_key":["id"],"rows":3,"bytes":0,"header":false,"null":""}]}"#,
    )
    .unwrap();
    manifest
}

/// What one client run did.
struct Out {
    ok: bool,
    code: Option<i32>,
    stderr: String,
}

/// Runs `cmd` with a clean libpq environment (no PG* variables; HOME = `home`, so no
/// `~/.postgresql` files apply), killed after 60 s.
fn run(mut c: Command, home: &Path) -> Out {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PG") {
            c.env_remove(k);
        }
    }
    c.env("HOME", home)
        .env("PGCONNECT_TIMEOUT", "10")
        .env("PGPASSWORD", "app-pw")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn client");
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
            panic!("{c:?} did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Out {
        ok: status.success(),
        code: status.code(),
        stderr: reader.join().unwrap(),
    }
}

/// psql (libpq) on `conn` as `user`: `SELECT count(*) FROM t`.
fn psql(conn: &str, user: &str, home: &Path) -> Out {
    let mut c = Command::new("psql");
    c.args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c"])
        .arg("SELECT count(*) FROM t")
        .arg(format!("{conn} user={user}"));
    run(c, home)
}

/// `csvload --verify-only` of table t on `conn` as `user`.
fn csvload(s: &Recipe, conn: &str, user: &str, home: &Path) -> Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_csvload"));
    c.args(["--verify-only", "-q", "-m"])
        .arg(&s.manifest)
        .arg(format!("{conn} user={user}"));
    run(c, home)
}

/// psql and csvload on `conn` both succeed.
fn both_succeed(s: &Recipe, conn: &str, user: &str, home: &Path) {
    let p = psql(conn, user, home);
    assert!(p.ok, "psql refused {conn}: {}", p.stderr);
    let c = csvload(s, conn, user, home);
    assert_eq!(
        c.code,
        Some(0),
        "csvload refused what psql accepts ({conn}): {}",
        c.stderr
    );
}

/// psql and csvload on `conn` both fail; csvload with exit 2, in `words`, and with no Rust
/// debug string. Returns csvload's message.
fn both_refuse(s: &Recipe, conn: &str, user: &str, home: &Path, words: &[&str]) -> String {
    let p = psql(conn, user, home);
    assert!(!p.ok, "psql accepted {conn}, expected a refusal");
    let c = csvload(s, conn, user, home);
    assert_eq!(
        c.code,
        Some(2),
        "csvload on {conn} (psql refused: {}): {}",
        p.stderr.trim(),
        c.stderr
    );
    for w in words {
        assert!(
            c.stderr.contains(w),
            "csvload on {conn}: no {w:?} in: {}\n(psql said: {})",
            c.stderr,
            p.stderr
        );
    }
    no_debug_string(&c.stderr);
    c.stderr
}

/// A message with none of the shapes a Rust debug string has (`Other(`, `Error {`, `Some(`,
/// CamelCase identifiers of rustls's error enums).
fn no_debug_string(m: &str) {
    for bad in [
        "Other(",
        "OtherError",
        "Error {",
        "Some(",
        "UnsupportedCertVersion",
        "UnknownIssuer",
        "NotValidForName",
        "InvalidCertificate",
        "AlertReceived",
        "BadCertificate",
        "UnknownCA",
        "CertificateRequired",
    ] {
        assert!(!m.contains(bad), "a Rust debug string ({bad}) in: {m}");
    }
}

#[test]
fn the_recipe_makes_v1_certificates() {
    // The premise of these tests: without an extension file OpenSSL 3 signs X.509 v1.
    let d = certificates(|_| {});
    assert!(version(&d.path().join("root.crt")).starts_with("Version: 3"));
    assert!(version(&d.path().join("server.crt")).starts_with("Version: 1"));
    assert!(version(&d.path().join("client.crt")).starts_with("Version: 1"));
}

#[test]
fn recipe_server_verify_ca_and_verify_full_succeed_as_with_psql() {
    let Some(s) = recipe_server(certificates(|_| {}), &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = s.file("root.crt");
    // The chain to the v3 root; the v1 server certificate's CN names the host (no SAN).
    both_succeed(
        &s,
        &s.conn(&format!("sslmode=verify-ca sslrootcert={root}")),
        "app",
        h,
    );
    both_succeed(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={root}")),
        "app",
        h,
    );
    // require with a root certificate checks the chain (libpq), and without one nothing.
    both_succeed(
        &s,
        &s.conn(&format!("sslmode=require sslrootcert={root}")),
        "app",
        h,
    );
    both_succeed(&s, &s.conn("sslmode=require"), "app", h);
    // Host names compare without regard to case.
    let upper = format!(
        "host={} hostaddr=127.0.0.1 port={} dbname=d sslmode=verify-full sslrootcert={root}",
        HOST.to_uppercase(),
        s.pg.port()
    );
    both_succeed(&s, &upper, "app", h);
}

#[test]
fn recipe_server_over_tls_1_2() {
    // TLS 1.2 signs the handshake with the server's key through another path
    // (verify_tls12_signature), which must read the v1 certificate too.
    let Some(s) = recipe_server(
        certificates(|_| {}),
        &[("ssl_max_protocol_version", "TLSv1.2")],
    ) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = s.file("root.crt");
    both_succeed(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={root}")),
        "app",
        h,
    );
    both_succeed(&s, &s.conn("sslmode=require"), "app", h);
    let client = format!(
        "sslmode=verify-full sslrootcert={root} sslcert={} sslkey={}",
        s.file("client.crt"),
        s.file("client.key")
    );
    both_succeed(&s, &s.conn(&client), "certuser", h);
}

#[test]
fn recipe_client_certificate_login_and_its_refusals() {
    let Some(s) = recipe_server(certificates(|_| {}), &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = s.file("root.crt");
    let with = |cert: &str, key: &str| {
        s.conn(&format!(
            "sslmode=verify-full sslrootcert={root} sslcert={} sslkey={}",
            s.file(cert),
            s.file(key)
        ))
    };
    // The v1 client certificate of the recipe logs in (`cert` authentication).
    both_succeed(&s, &with("client.crt", "client.key"), "certuser", h);
    // A client certificate of another CA: the server refuses it during the handshake.
    let m = both_refuse(
        &s,
        &with("stranger.crt", "stranger.key"),
        "certuser",
        h,
        &["the server refused the client certificate", "unknown_ca"],
    );
    assert!(m.contains("does not trust"), "{m}");
    // No client certificate: the server's `cert` line refuses the login.
    both_refuse(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={root}")),
        "certuser",
        h,
        &["valid client certificate"],
    );
    // A key that is not the certificate's: refused before connecting, as libpq.
    both_refuse(
        &s,
        &with("client.crt", "stranger.key"),
        "certuser",
        h,
        &["certificate does not match private key file"],
    );
}

#[test]
fn recipe_unknown_ca_is_named() {
    let Some(s) = recipe_server(certificates(|_| {}), &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let other = s.file("other.crt");
    for mode in ["verify-ca", "verify-full", "require"] {
        both_refuse(
            &s,
            &s.conn(&format!("sslmode={mode} sslrootcert={other}")),
            "app",
            h,
            // The server sends the root with its certificate (OpenSSL completes its chain
            // from ssl_ca_file): that self-signed root is the one named.
            &[
                "unknown certificate authority",
                "\"CN=root.yourdomain.com\"",
            ],
        );
    }
    // The server's own certificate is no root (libpq allows no partial chain).
    both_refuse(
        &s,
        &s.conn(&format!(
            "sslmode=verify-ca sslrootcert={}",
            s.file("server.crt")
        )),
        "app",
        h,
        &["unknown certificate authority", "CN=root.yourdomain.com"],
    );
}

#[test]
fn recipe_name_mismatch_names_the_certificate_names() {
    let Some(s) = recipe_server(certificates(|_| {}), &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = s.file("root.crt");
    // By address: the certificate has no subjectAltName, so its CN is compared (libpq).
    let by_ip = format!(
        "host=127.0.0.1 port={} dbname=d sslmode=verify-full sslrootcert={root}",
        s.pg.port()
    );
    both_refuse(
        &s,
        &by_ip,
        "app",
        h,
        &[
            "host name mismatch",
            &format!("the certificate is for \"{HOST}\""),
            "host \"127.0.0.1\"",
        ],
    );
    // Another name, and a name of which the certificate's is a suffix.
    for host in ["db.example.org", &format!("x.{HOST}")] {
        let conn = format!(
            "host={host} hostaddr=127.0.0.1 port={} dbname=d sslmode=verify-full \
             sslrootcert={root}",
            s.pg.port()
        );
        both_refuse(
            &s,
            &conn,
            "app",
            h,
            &["host name mismatch", &format!("not for host \"{host}\"")],
        );
    }
    // verify-ca does not look at the name.
    both_succeed(&s, &by_ip.replace("verify-full", "verify-ca"), "app", h);
}

#[test]
fn recipe_expired_server_certificate_says_when() {
    let dir =
        certificates(|d| resign_dated(d, "root", "server", "20200101000000Z", "20200102000000Z"));
    assert!(version(&dir.path().join("server.crt")).starts_with("Version: 1"));
    let Some(s) = recipe_server(dir, &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let root = s.file("root.crt");
    both_refuse(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={root}")),
        "app",
        home.path(),
        &[
            "the certificate has expired",
            "valid until 2020-01-02T00:00:00Z",
        ],
    );
}

#[test]
fn recipe_server_certificate_not_valid_yet_says_from_when() {
    let dir =
        certificates(|d| resign_dated(d, "root", "server", "20990101000000Z", "21000101000000Z"));
    let Some(s) = recipe_server(dir, &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let root = s.file("root.crt");
    both_refuse(
        &s,
        &s.conn(&format!("sslmode=verify-ca sslrootcert={root}")),
        "app",
        home.path(),
        &["not valid yet", "valid from 2099-01-01T00:00:00Z"],
    );
}

#[test]
fn recipe_unknown_critical_extension_is_unsupported_by_name() {
    // The recipe's server certificate with a critical extension nobody knows: OpenSSL refuses
    // it (unhandled critical extension), and so does csvload, naming it. (A SHA-1 signed one
    // cannot be tested so: the server itself refuses to load it.)
    let dir = certificates(|d| {
        std::fs::write(
            d.join("crit.ext"),
            "1.2.3.4=critical,ASN1:UTF8String:test\n",
        )
        .unwrap();
        openssl(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-days",
                "365",
                "-CA",
                "root.crt",
                "-CAkey",
                "root.key",
                "-CAcreateserial",
                "-out",
                "server.crt",
                "-extfile",
                "crit.ext",
            ],
        );
    });
    let Some(s) = recipe_server(dir, &[]) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let root = s.file("root.crt");
    both_refuse(
        &s,
        &s.conn(&format!("sslmode=verify-full sslrootcert={root}")),
        "app",
        home.path(),
        &[
            &format!("unsupported certificate \"CN={HOST}\""),
            "critical extension 1.2.3.4",
        ],
    );
}

#[test]
fn server_without_tls_is_said_in_words() {
    let dir = certificates(|_| {});
    let Some(pg) = Pg::start_with(&Opts {
        listen: Some("127.0.0.1".into()),
        hba: Some("local all all trust\nhost all all 127.0.0.1/32 trust\n".into()),
        ..Opts::default()
    }) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE d");
    let s = Recipe {
        manifest: write_manifest(dir.path()),
        pg,
        dir,
    };
    let home = tempfile::tempdir().unwrap();
    let root = s.file("root.crt");
    for mode in ["require", "verify-ca", "verify-full"] {
        both_refuse(
            &s,
            &s.conn(&format!("sslmode={mode} sslrootcert={root}")),
            "app",
            home.path(),
            &[
                "the server does not support TLS",
                &format!("sslmode={mode}"),
            ],
        );
    }
}
