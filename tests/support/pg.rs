//! A throwaway PostgreSQL server for integration tests.
//!
//! Use with `use crate::support::pg;`. Uses std and `tempfile` only.
//!
//! Every [`Pg::start`] runs its own server: `initdb` into a fresh temp dir, listening
//! only on a Unix socket in a private directory (`listen_addresses = ''`, never TCP),
//! with a database superuser named `postgres` (so `OWNER TO postgres` in pg_dump
//! output restores cleanly) and trust authentication. Tests in one binary may call it
//! from several threads at once.
//!
//! PostgreSQL refuses to run as root, so when the tests run as root the server runs as
//! an unprivileged OS user: `$DUMPSHARD_PG_USER`, default `dumpshard-pg` (created with
//! `useradd --system` if missing), through `runuser -u USER --`. Client programs
//! (psql, pg_dump) run as the test process's user.
//!
//! Binaries: `$PGBIN`, else `pg_config --bindir`, else the highest
//! `/usr/lib/postgresql/*/bin`, else `PATH`.
//!
//! If no server can be started, `start()` prints a loud `SKIPPED: no PostgreSQL server
//! (...)` line to stderr and returns `None`, unless `DUMPSHARD_REQUIRE_PG=1`, in which
//! case it panics.

#![allow(dead_code)]

use super::cmd::Within;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

/// Database superuser created by initdb.
pub const SUPERUSER: &str = "postgres";

static COUNTER: AtomicU32 = AtomicU32::new(0);
static USER_SETUP: Mutex<()> = Mutex::new(());

pub struct Pg {
    /// Owns everything below; removed on drop (after the server is stopped).
    root: tempfile::TempDir,
    data: PathBuf,
    sock: PathBuf,
    spool: PathBuf,
    port: u16,
    bindir: PathBuf,
    /// OS user the server runs as, when we are root.
    run_as: Option<String>,
    stopped: bool,
}

/// What [`Pg::start_with`] changes in the default server: TCP, TLS, authentication.
#[derive(Default, Clone)]
pub struct Opts {
    /// `listen_addresses` (e.g. `127.0.0.1,127.0.0.2`); the port is then a free TCP port
    /// (see [`Pg::port`]). Default: no TCP.
    pub listen: Option<String>,
    /// Files written into the data directory before start, owned by the server user, mode
    /// 0600 (server certificates and keys, named relative to the data directory).
    pub files: Vec<(String, Vec<u8>)>,
    /// Extra `-c name=value` settings (e.g. `ssl=on`); values are quoted here.
    pub settings: Vec<(String, String)>,
    /// The whole pg_hba.conf, replacing initdb's (keep `local all all trust` for the test's
    /// own psql).
    pub hba: Option<String>,
    /// The server's bin directory (initdb, pg_ctl, postgres and, where it has them, its own
    /// pg_dump and psql), instead of [`find_bindir`]'s: another release (the referees of
    /// tests/referee_yb.rs). A program it lacks (the PostgreSQL 11 build has no psql) comes
    /// from [`find_bindir`]'s.
    pub bindir: Option<PathBuf>,
}

/// A TCP port that was free a moment ago on 127.0.0.1 (bound, read, released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind 127.0.0.1:0")
}

impl Pg {
    /// Starts a server, or returns None after printing a loud
    /// "SKIPPED: no PostgreSQL server (...)" to stderr.
    /// Panics instead of skipping when env DUMPSHARD_REQUIRE_PG=1.
    pub fn start() -> Option<Pg> {
        Self::start_with(&Opts::default())
    }

    /// Like [`Pg::start`], but the server also listens on TCP at 127.0.0.1:[`Pg::port`]
    /// (trust authentication, as on the socket), for tests that put something between a
    /// client and the server.
    pub fn start_tcp() -> Option<Pg> {
        Self::start_with(&Opts {
            listen: Some("127.0.0.1".into()),
            ..Opts::default()
        })
    }

    /// Like [`Pg::start`], with the changes of `opts`.
    pub fn start_with(opts: &Opts) -> Option<Pg> {
        match Self::try_start(opts) {
            Ok(pg) => Some(pg),
            Err(why) => {
                if std::env::var("DUMPSHARD_REQUIRE_PG").as_deref() == Ok("1") {
                    panic!(
                        "DUMPSHARD_REQUIRE_PG=1 but no PostgreSQL server could be started: {why}"
                    );
                }
                eprintln!();
                eprintln!("==================================================================");
                eprintln!("SKIPPED: no PostgreSQL server ({why})");
                eprintln!("         set DUMPSHARD_REQUIRE_PG=1 to make this a failure");
                eprintln!("==================================================================");
                None
            }
        }
    }

    fn try_start(o: &Opts) -> Result<Pg, String> {
        let t0 = Instant::now();
        let bindir = match &o.bindir {
            Some(d)
                if ["initdb", "pg_ctl", "postgres"]
                    .iter()
                    .all(|p| d.join(p).is_file()) =>
            {
                d.clone()
            }
            Some(d) => return Err(format!("no initdb/pg_ctl/postgres in {}", d.display())),
            None => find_bindir().ok_or("no initdb/pg_ctl/postgres found; set PGBIN")?,
        };
        let run_as = if is_root() {
            Some(ensure_server_user()?)
        } else {
            None
        };

        // Keep the socket path short (Unix socket paths are limited to ~107 bytes).
        let mut base = std::env::temp_dir();
        if base.as_os_str().len() > 60 {
            base = PathBuf::from("/tmp");
        }
        let root = tempfile::Builder::new()
            .prefix("dumpshard-pg-")
            .tempdir_in(&base)
            .map_err(|e| format!("cannot create temp dir in {}: {e}", base.display()))?;
        let data = root.path().join("data");
        let sock = root.path().join("sock");
        let spool = root.path().join("spool");
        for d in [&data, &sock, &spool] {
            fs::create_dir(d).map_err(|e| format!("mkdir {}: {e}", d.display()))?;
        }
        if let Some(user) = &run_as {
            // The server user must be able to reach its dirs and read spooled files.
            set_mode(root.path(), 0o755)?;
            set_mode(&spool, 0o755)?;
            let (uid, gid) = user_ids(user)?;
            for d in [&data, &sock] {
                std::os::unix::fs::chown(d, Some(uid), Some(gid))
                    .map_err(|e| format!("chown {}: {e}", d.display()))?;
            }
        }

        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        // The port only names the socket file (the directory is private), but keep it
        // distinct per server anyway: the SysV shared memory key derives from it.
        let port = if o.listen.is_some() {
            free_port()
        } else {
            20000 + ((std::process::id().wrapping_mul(37).wrapping_add(n * 101)) % 30000) as u16
        };

        let mut pg = Pg {
            root,
            data,
            sock,
            spool,
            port,
            bindir,
            run_as,
            stopped: true,
        };

        let initdb = pg.server_cmd("initdb", |c| {
            c.arg("-D").arg(&pg.data);
            c.args([
                "-U",
                SUPERUSER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "-N",
            ]);
        });
        let out = run(initdb).map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }

        let server_ids = match &pg.run_as {
            Some(user) => Some(user_ids(user)?),
            None => None,
        };
        let mut extra: Vec<(String, Vec<u8>)> = o.files.clone();
        if let Some(h) = &o.hba {
            extra.push(("pg_hba.conf".into(), h.clone().into_bytes()));
        }
        for (name, bytes) in &extra {
            let path = pg.data.join(name);
            fs::write(&path, bytes).map_err(|e| format!("write {}: {e}", path.display()))?;
            set_mode(&path, 0o600)?;
            if let Some((uid, gid)) = server_ids {
                std::os::unix::fs::chown(&path, Some(uid), Some(gid))
                    .map_err(|e| format!("chown {}: {e}", path.display()))?;
            }
        }
        let log = pg.root.path().join("server.log");
        if pg.run_as.is_some() {
            // pg_ctl (running as the server user) writes the log file.
            let _ = fs::File::create(&log);
            if let Some(user) = &pg.run_as {
                let (uid, gid) = user_ids(user)?;
                let _ = std::os::unix::fs::chown(&log, Some(uid), Some(gid));
            }
        }
        let mut opts = format!(
            "-c listen_addresses='{}' -c unix_socket_directories='{}' -c port={} \
             -c fsync=off -c full_page_writes=off -c synchronous_commit=off \
             -c shared_buffers=16MB -c max_connections=20 -c max_wal_size=256MB \
             -c timezone=UTC -c datestyle='iso, mdy' -c intervalstyle=postgres \
             -c lc_messages=C -c log_min_messages=warning",
            o.listen.as_deref().unwrap_or(""),
            pg.sock.display(),
            pg.port
        );
        for (k, v) in &o.settings {
            opts.push_str(&format!(" -c {k}='{}'", v.replace('\'', "''")));
        }
        let pg_ctl = pg.server_cmd("pg_ctl", |c| {
            c.arg("-D").arg(&pg.data);
            c.arg("-l").arg(&log);
            c.args(["-w", "-t", "60", "-s", "-o", &opts, "start"]);
        });
        // From here on, Drop tries to stop the server (harmless if it is not running).
        pg.stopped = false;
        let out = run(pg_ctl).map_err(|e| format!("pg_ctl: {e}"))?;
        if !out.status.success() {
            let log_text = fs::read_to_string(&log).unwrap_or_default();
            return Err(format!(
                "pg_ctl start failed: {}\n{}",
                String::from_utf8_lossy(&out.stderr).trim(),
                tail(&log_text, 20)
            ));
        }

        let mut c = pg.psql_cmd("postgres");
        c.args(["-c", "SELECT 1"]).stdin(Stdio::null());
        let out = run(c).map_err(|e| format!("psql: {e}"))?;
        if !out.status.success() || String::from_utf8_lossy(&out.stdout).trim() != "1" {
            return Err(format!(
                "server started but psql -c 'SELECT 1' failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        if std::env::var_os("DUMPSHARD_PG_VERBOSE").is_some() {
            eprintln!("pg: started {} in {:?}", pg.sock.display(), t0.elapsed());
        }
        Ok(pg)
    }

    /// Path of a PostgreSQL program (pg_dump, psql, ...) in the server's bin dir.
    pub fn bin(&self, name: &str) -> PathBuf {
        let p = self.bindir.join(name);
        if p.is_file() {
            return p;
        }
        find_bindir().map_or(p, |d| d.join(name))
    }

    /// Directory holding the server's Unix socket (use as `-h`).
    pub fn socket_dir(&self) -> &Path {
        &self.sock
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// A client command (psql, pg_dump, pg_restore, ...) with a clean libpq
    /// environment pointing at this server (PGHOST, PGPORT, PGUSER set; every other
    /// PG* variable removed).
    pub fn client(&self, prog: &str) -> Command {
        let mut c = Command::new(self.bin(prog));
        clean_pg_env(&mut c);
        c.env("PGHOST", &self.sock)
            .env("PGPORT", self.port.to_string())
            .env("PGUSER", SUPERUSER)
            .env("PGCONNECT_TIMEOUT", "30");
        c
    }

    /// This crate's csvload as `user`, pointed at this server with a clean libpq environment
    /// (PGHOST, PGPORT, PGUSER set, every other PG* variable removed) and stdin null.
    pub fn csvload(&self, user: &str) -> Command {
        let mut c = self.client_program(Path::new(env!("CARGO_BIN_EXE_csvload")));
        c.env("PGUSER", user).env_remove("PGCONNECT_TIMEOUT");
        c.stdin(Stdio::null());
        // Tests interrupt it (SIGINT) and expect it to stop.
        super::cmd::default_signals(&mut c);
        c
    }

    /// Like [`Pg::client`], for a client program of another PostgreSQL installation (e.g.
    /// a newer pg_dump), given by path.
    pub fn client_program(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        clean_pg_env(&mut c);
        c.env("PGHOST", &self.sock)
            .env("PGPORT", self.port.to_string())
            .env("PGUSER", SUPERUSER)
            .env("PGCONNECT_TIMEOUT", "30");
        c
    }

    pub fn createdb(&self, name: &str) {
        self.psql(
            "postgres",
            &format!("CREATE DATABASE {}", quote_ident(name)),
        );
    }

    /// Runs SQL with `psql -X -q -A -t -v ON_ERROR_STOP=1 -c SQL`; returns stdout.
    /// Panics with psql's stderr on failure.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        self.try_psql(db, sql).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`Pg::psql`], but returns the failure (command, status, stderr) as Err.
    pub fn try_psql(&self, db: &str, sql: &str) -> Result<String, String> {
        let mut c = self.psql_cmd(db);
        c.arg("-c").arg(sql);
        run_client(c, None, &format!("psql -d {db} -c {}", abbreviate(sql)))
    }

    /// Runs a script with `psql -X -q -A -t -v ON_ERROR_STOP=1 -f PATH`; returns stdout.
    pub fn psql_file(&self, db: &str, path: &Path) -> String {
        self.try_psql_file(db, path)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn try_psql_file(&self, db: &str, path: &Path) -> Result<String, String> {
        let mut c = self.psql_cmd(db);
        c.arg("-f").arg(path);
        run_client(c, None, &format!("psql -d {db} -f {}", path.display()))
    }

    /// Runs `copy_sql` (a `COPY ... FROM STDIN ...` statement) with the file on psql's
    /// stdin; returns psql's stdout.
    ///
    /// Caveat (psql <= 17): psql itself ends the data at a line that is exactly `\.`,
    /// even inside a quoted CSV field, so CSV with a multi-line value that has a `\.`
    /// line does not load this way. Use [`Pg::copy_in_server`] for such data.
    pub fn copy_in(&self, db: &str, copy_sql: &str, data: &Path) -> String {
        self.try_copy_in(db, copy_sql, data)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn try_copy_in(&self, db: &str, copy_sql: &str, data: &Path) -> Result<String, String> {
        let f = fs::File::open(data).map_err(|e| format!("open {}: {e}", data.display()))?;
        let mut c = self.psql_cmd(db);
        c.arg("-c").arg(copy_sql);
        run_client(
            c,
            Some(f),
            &format!(
                "psql -d {db} -c {} < {}",
                abbreviate(copy_sql),
                data.display()
            ),
        )
    }

    /// Loads a file with a server-side `COPY <target> FROM '<file>' WITH (<options>)`
    /// (`target` like `public.t (a, b)`, `options` like `FORMAT csv, HEADER true`).
    /// The file is first copied into a spool dir the server user can read. The server
    /// reads CSV records itself, so `\.` lines inside quoted values are data.
    pub fn copy_in_server(&self, db: &str, target: &str, data: &Path, options: &str) -> String {
        self.try_copy_in_server(db, target, data, options)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn try_copy_in_server(
        &self,
        db: &str,
        target: &str,
        data: &Path,
        options: &str,
    ) -> Result<String, String> {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let spooled = self.spool.join(format!("in-{n}.dat"));
        fs::copy(data, &spooled).map_err(|e| format!("copy {} to spool: {e}", data.display()))?;
        self.copy_spooled(db, target, &spooled, options)
            .map_err(|e| format!("{e}(data file: {})", data.display()))
    }

    /// Like [`Pg::try_copy_in_server`] but with the data given in memory.
    pub fn try_copy_in_server_bytes(
        &self,
        db: &str,
        target: &str,
        data: &[u8],
        options: &str,
    ) -> Result<String, String> {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let spooled = self.spool.join(format!("mem-{n}.dat"));
        fs::write(&spooled, data).map_err(|e| format!("write {}: {e}", spooled.display()))?;
        self.copy_spooled(db, target, &spooled, options)
    }

    /// Server-side `COPY target FROM spooled`, the spooled file removed afterwards.
    fn copy_spooled(
        &self,
        db: &str,
        target: &str,
        spooled: &Path,
        options: &str,
    ) -> Result<String, String> {
        if self.run_as.is_some() {
            set_mode(spooled, 0o644)?;
        }
        let sql = format!(
            "COPY {target} FROM {} WITH ({options})",
            quote_literal(&spooled.to_string_lossy())
        );
        let out = self.try_psql(db, &sql);
        let _ = fs::remove_file(spooled);
        out
    }

    /// The server log so far (useful in failure messages).
    pub fn server_log(&self) -> String {
        fs::read_to_string(self.root.path().join("server.log")).unwrap_or_default()
    }

    fn psql_cmd(&self, db: &str) -> Command {
        let mut c = self.client("psql");
        c.args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db]);
        c
    }

    /// A server-side program (initdb, pg_ctl) run as the server user.
    fn server_cmd(&self, prog: &str, f: impl FnOnce(&mut Command)) -> Command {
        let mut c = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(self.bin(prog));
                c
            }
            None => Command::new(self.bin(prog)),
        };
        f(&mut c);
        clean_pg_env(&mut c);
        c.env("LC_ALL", "C").env("TZ", "UTC");
        // The server user may not be able to enter our cwd.
        c.current_dir("/");
        c.stdin(Stdio::null());
        c
    }

    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let c = self.server_cmd("pg_ctl", |c| {
            c.arg("-D").arg(&self.data);
            c.args(["-m", "immediate", "-w", "-t", "30", "-s", "stop"]);
        });
        let _ = run(c);
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        self.stop();
        // self.root (TempDir) removes the directory tree after this.
    }
}

// --- helpers -------------------------------------------------------------------------

/// `"name"` with embedded quotes doubled (always quoted, so always valid).
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `'text'` with embedded quotes doubled (standard_conforming_strings = on).
pub fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn abbreviate(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 200 {
        let cut: String = one_line.chars().take(200).collect();
        format!("{cut}...")
    } else {
        one_line
    }
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn run_client(mut c: Command, stdin: Option<fs::File>, what: &str) -> Result<String, String> {
    match stdin {
        Some(f) => c.stdin(Stdio::from(f)),
        None => c.stdin(Stdio::null()),
    };
    let out = c
        .output_within()
        .map_err(|e| format!("{what}: cannot run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn run(mut c: Command) -> std::io::Result<Output> {
    c.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(std::process::Stdio::null())
        .output_within()
}

fn clean_pg_env(c: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PG") {
            c.env_remove(&k);
        }
    }
}

fn set_mode(p: &Path, mode: u32) -> Result<(), String> {
    fs::set_permissions(p, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", p.display()))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .stdin(std::process::Stdio::null())
        .output_within()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn user_ids(user: &str) -> Result<(u32, u32), String> {
    let id = |flag: &str| -> Result<u32, String> {
        let o = Command::new("id")
            .args([flag, user])
            .stdin(std::process::Stdio::null())
            .output_within()
            .map_err(|e| format!("id {flag} {user}: {e}"))?;
        if !o.status.success() {
            return Err(format!("no such user {user}"));
        }
        String::from_utf8_lossy(&o.stdout)
            .trim()
            .parse()
            .map_err(|e| format!("id {flag} {user}: {e}"))
    };
    Ok((id("-u")?, id("-g")?))
}

/// As root: the unprivileged OS user to run the server as (created if missing).
fn ensure_server_user() -> Result<String, String> {
    let user = std::env::var("DUMPSHARD_PG_USER").unwrap_or_else(|_| "dumpshard-pg".to_string());
    let _guard = USER_SETUP.lock().unwrap_or_else(|e| e.into_inner());
    if user_ids(&user).is_ok() {
        return Ok(user);
    }
    let out = Command::new("useradd")
        .args([
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            &user,
        ])
        .stdin(std::process::Stdio::null())
        .output_within()
        .map_err(|e| format!("running as root and cannot run useradd for {user}: {e}"))?;
    if user_ids(&user).is_ok() {
        return Ok(user);
    }
    Err(format!(
        "running as root and cannot create server user {user}: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

fn has_server_bins(d: &Path) -> bool {
    ["initdb", "pg_ctl", "postgres", "psql"]
        .iter()
        .all(|p| d.join(p).is_file())
}

/// `$PGBIN`, else `pg_config --bindir`, else the highest /usr/lib/postgresql/*/bin,
/// else the directory of `initdb` on PATH.
pub fn find_bindir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PGBIN") {
        let d = PathBuf::from(d);
        return has_server_bins(&d).then_some(d);
    }
    if let Ok(o) = Command::new("pg_config")
        .arg("--bindir")
        .stdin(std::process::Stdio::null())
        .output_within()
        && o.status.success()
    {
        let d = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        if has_server_bins(&d) {
            return Some(d);
        }
    }
    if let Ok(rd) = fs::read_dir("/usr/lib/postgresql") {
        let mut best: Option<(Vec<u32>, PathBuf)> = None;
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(ver) = version_key(&name) else {
                continue;
            };
            let d = e.path().join("bin");
            if has_server_bins(&d) && best.as_ref().is_none_or(|(v, _)| ver > *v) {
                best = Some((ver, d));
            }
        }
        if let Some((_, d)) = best {
            return Some(d);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|d| has_server_bins(d))
}

fn version_key(name: &OsStr) -> Option<Vec<u32>> {
    name.to_str()?.split('.').map(|p| p.parse().ok()).collect()
}

/// Writes `bytes` to a fresh file in `dir` and returns its path (test convenience).
pub fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    let mut f = fs::File::create(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
    f.write_all(bytes).unwrap();
    p
}

impl Pg {
    /// Crashes the server (`pg_ctl restart -m immediate`: every connection is cut, no
    /// checkpoint) and starts it again with the same options.
    pub fn restart_immediate(&self) {
        let log = self.root.path().join("server.log");
        let c = self.server_cmd("pg_ctl", |c| {
            c.arg("-D").arg(&self.data).arg("-l").arg(&log);
            c.args(["-m", "immediate", "-w", "-t", "60", "-s", "restart"]);
        });
        let out = run(c).expect("pg_ctl restart");
        assert!(
            out.status.success(),
            "pg_ctl restart failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Per table and materialized view, `schema.name` -> `count md5` of its sorted rows, csvload's
/// journal (schema `dumpshard`) left out.
pub fn fingerprints(pg: &Pg, db: &str) -> BTreeMap<String, String> {
    fingerprints_of(pg, db, false)
}

/// [`fingerprints`] as CockroachDB's conversion lays the tables out: a partitioned table
/// holds every partition's rows (rule crdb-partition-rows), and no partition is a table.
pub fn fingerprints_flattened(pg: &Pg, db: &str) -> BTreeMap<String, String> {
    fingerprints_of(pg, db, true)
}

fn fingerprints_of(pg: &Pg, db: &str, flattened: bool) -> BTreeMap<String, String> {
    let sql = r#"
CREATE FUNCTION pg_temp.fp(r regclass, OUT n bigint, OUT h text) LANGUAGE plpgsql AS $f$
BEGIN
    IF NOT (SELECT relispopulated FROM pg_class WHERE oid = r) THEN
        n := -1; h := 'not populated'; RETURN;
    END IF;
    EXECUTE format('SELECT count(*), md5(coalesce(string_agg(t::text, E''\n'' ORDER BY t::text), '''')) FROM ONLY %s t', r)
        INTO n, h;
END
$f$;
SELECT format('%I.%I', n.nspname, c.relname) || E'\t' || f.n || ' ' || f.h
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL pg_temp.fp(c.oid) AS f
WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('information_schema', 'dumpshard')
  AND n.nspname !~ '^pg_'
ORDER BY 1;
"#;
    let flat;
    let sql = if flattened {
        flat = sql
            // Inheritance parents stay ONLY: their children are tables of their own.
            .replace(
                "FROM ONLY %s t', r)",
                "FROM %s %s t', CASE (SELECT relkind FROM pg_class WHERE oid = r) WHEN 'p' THEN '' ELSE 'ONLY' END, r)",
            )
            .replace(
                "c.relkind IN ('r', 'm')",
                "c.relkind IN ('r', 'm', 'p') AND NOT c.relispartition",
            );
        assert_ne!(flat, sql);
        flat.as_str()
    } else {
        sql
    };
    pg.psql(db, sql)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("bad fingerprint line {l:?}"));
            (k.to_string(), v.to_string())
        })
        .collect()
}

impl Pg {
    /// Runs this server's pg_dump with `args` then `-f out` (stdin null, bounded by the
    /// harness timeout); a failure fails the test with pg_dump's exit and stderr.
    pub fn pg_dump_to(&self, args: &[&str], out: &Path) {
        let o = self
            .client("pg_dump")
            .args(args)
            .arg("-f")
            .arg(out)
            .stdin(Stdio::null())
            .output_within()
            .expect("run pg_dump");
        assert!(
            o.status.success(),
            "pg_dump {args:?} -f {}: exit {:?}: {}",
            out.display(),
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
