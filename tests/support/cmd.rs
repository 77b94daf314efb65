//! One way to run a toolkit binary in a test: `Cmd::new("pksort").args(["-k", "1"])
//! .stdin(bytes).run()` (or `.expect(0)`). Stdin is written on its own thread, so a tool that
//! writes more than a pipe buffer before it has read all its input cannot deadlock the test;
//! stdout and stderr are captured; a failed expectation panics with the command line, the exit
//! code or signal, and both streams (truncated), so a failure says what ran and what it said.
//!
//! Every wait on a child is bounded ([`TIMEOUT`], or [`Cmd::timeout`]): a child still running
//! then is killed and the test fails saying so, instead of hanging the suite (a signal test
//! hung forever under nohup, where SIGHUP is ignored). Tests that spawn a child themselves
//! wait for it with [`wait_timeout`]; a plain `Command` runs with [`output_within`] or
//! [`status_within`] (or the [`Within`] methods).

#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a test waits for a child before it kills it and fails: far above any test's run
/// in the debug profile on a loaded 2-core machine, yet finite.
pub const TIMEOUT: Duration = Duration::from_secs(900);

/// Gives the child SIGINT, SIGTERM and SIGHUP at their default dispositions, as a foreground
/// job in a terminal has them. A suite started from a background job of a script (`cargo test
/// &`: SIGINT and SIGQUIT ignored) or under nohup (SIGHUP ignored) hands those signals to its
/// children ignored, and a tool keeps ignoring what it inherited ignored (as nohup asks), so a
/// test that interrupts its child waited out [`TIMEOUT`] and failed (pksort's
/// `interrupt_leaves_no_files`, found so in a background soak). Every [`Cmd`] gets it; a test
/// that signals a child it starts with a plain `Command` calls this.
pub fn default_signals(c: &mut Command) -> &mut Command {
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(c, || {
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(s, libc::SIG_DFL);
            }
            Ok(())
        })
    }
}

/// Polls `ready` every 20 ms for at most two minutes, and fails the test naming `what` if it
/// never holds: a bound for a stuck test, not a timing the test relies on.
pub fn wait_until(what: &str, ready: &dyn Fn() -> bool) {
    for _ in 0..6000 {
        if ready() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("never happened: {what}");
}

/// Waits for `child` at most `limit`; a child still running then is killed (SIGKILL) and the
/// test fails, naming `what`.
pub fn wait_timeout(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(st) = child
            .try_wait()
            .unwrap_or_else(|e| panic!("wait for {what}: {e}"))
        {
            return st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `Child::wait_with_output` bounded by `limit` (see [`wait_timeout`]): the child's piped
/// stdout and stderr are read on their own threads.
pub fn wait_output_timeout(mut child: Child, limit: Duration, what: &str) -> Output {
    fn drain<R: std::io::Read + Send + 'static>(r: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    }
    drop(child.stdin.take());
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let status = wait_timeout(&mut child, limit, what);
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

/// `Command::output` bounded by [`TIMEOUT`]: stdout and stderr are piped and captured; a child
/// still running then is killed and the test fails naming the command. Unlike
/// `Command::output`, stdin is left as the caller set it (inherited by default), so a caller
/// that does not feed stdin sets `Stdio::null()` itself, as `output` would.
pub fn output_within(cmd: &mut Command) -> std::io::Result<Output> {
    output_as_set_within(cmd.stdout(Stdio::piped()).stderr(Stdio::piped()))
}

/// [`output_within`] with all three streams as the caller set them (`Command::output` on a
/// command whose stdout or stderr is set elsewhere, e.g. /dev/full): only piped ones are
/// captured; one left unset is inherited.
pub fn output_as_set_within(cmd: &mut Command) -> std::io::Result<Output> {
    let what = format!("{cmd:?}");
    let child = cmd.spawn()?;
    Ok(wait_output_timeout(child, TIMEOUT, &what))
}

/// `Command::status` bounded by [`TIMEOUT`] (stdio inherited as with `status`); a child still
/// running then is killed and the test fails naming the command.
pub fn status_within(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    let what = format!("{cmd:?}");
    let mut child = cmd.spawn()?;
    Ok(wait_timeout(&mut child, TIMEOUT, &what))
}

/// [`output_within`] and [`status_within`] as methods, so a `Command` builder chain ends in
/// `.output_within()` / `.status_within()` where it ended in `.output()` / `.status()`.
pub trait Within {
    /// See [`output_within`].
    fn output_within(&mut self) -> std::io::Result<Output>;
    /// See [`output_as_set_within`].
    fn output_as_set_within(&mut self) -> std::io::Result<Output>;
    /// See [`status_within`].
    fn status_within(&mut self) -> std::io::Result<ExitStatus>;
}

impl Within for Command {
    fn output_within(&mut self) -> std::io::Result<Output> {
        output_within(self)
    }
    fn output_as_set_within(&mut self) -> std::io::Result<Output> {
        output_as_set_within(self)
    }
    fn status_within(&mut self) -> std::io::Result<ExitStatus> {
        status_within(self)
    }
}

/// Kills process `pid` (SIGKILL) unless told within `limit` that it was waited for; the
/// returned sender says so, the handle says whether it had to kill.
fn watchdog(
    pid: u32,
    limit: Duration,
) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<bool>) {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let h = std::thread::spawn(move || match rx.recv_timeout(limit) {
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            if let Ok(pid) = libc::pid_t::try_from(pid) {
                // SAFETY: a signal to our own child, not yet waited for (the waiting thread
                // is still blocked in wait).
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            true
        }
        _ => false,
    });
    (tx, h)
}

/// The path of the toolkit binary `tool` built for these tests. Cargo sets
/// `CARGO_BIN_EXE_<name>` only at compile time and only by literal name, hence the match.
pub fn bin(tool: &str) -> &'static str {
    match tool {
        "pgdump2csv" => env!("CARGO_BIN_EXE_pgdump2csv"),
        "pksort" => env!("CARGO_BIN_EXE_pksort"),
        "csvsplit" => env!("CARGO_BIN_EXE_csvsplit"),
        "csvcheck" => env!("CARGO_BIN_EXE_csvcheck"),
        "csvload" => env!("CARGO_BIN_EXE_csvload"),
        other => panic!("no toolkit binary {other:?}"),
    }
}

/// What goes to the child's stdin.
enum Input {
    Null,
    Bytes(Vec<u8>),
    File(PathBuf),
}

/// Where the child's stdout goes.
enum Out {
    /// Captured whole.
    Capture,
    /// Written to this file (opened for writing, not truncated: e.g. /dev/full).
    File(PathBuf),
    /// A pipe of which the first this many bytes are read (and captured), then closed while
    /// the child may still be writing.
    Head(usize),
}

/// A command to run once, built up like `std::process::Command`.
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    envs: Vec<(OsString, Option<OsString>)>,
    dir: Option<PathBuf>,
    input: Input,
    out: Out,
    timeout: Duration,
}

/// How much of each stream a failure message shows: enough for an error message or the first
/// records, not megabytes of output.
const SHOW: usize = 4000;

impl Cmd {
    /// Runs the toolkit binary `tool` (see [`bin`]).
    pub fn new(tool: &str) -> Cmd {
        Cmd::program(bin(tool))
    }

    /// Runs any program (e.g. `sh`, or a PostgreSQL client).
    pub fn program(program: impl AsRef<OsStr>) -> Cmd {
        Cmd {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            envs: Vec::new(),
            dir: None,
            input: Input::Null,
            out: Out::Capture,
            timeout: TIMEOUT,
        }
    }

    /// Fails the test (killing the child) if it runs longer than `limit` (default
    /// [`TIMEOUT`]).
    pub fn timeout(mut self, limit: Duration) -> Cmd {
        self.timeout = limit;
        self
    }

    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Cmd {
        self.args.push(a.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Cmd {
        self.envs
            .push((k.as_ref().to_owned(), Some(v.as_ref().to_owned())));
        self
    }

    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Cmd {
        self.envs.push((k.as_ref().to_owned(), None));
        self
    }

    pub fn current_dir(mut self, d: impl AsRef<Path>) -> Cmd {
        self.dir = Some(d.as_ref().to_owned());
        self
    }

    /// The child reads these bytes on stdin (the default is /dev/null).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Cmd {
        self.input = Input::Bytes(bytes.into());
        self
    }

    /// The child reads this file on stdin.
    pub fn stdin_file(mut self, path: impl AsRef<Path>) -> Cmd {
        self.input = Input::File(path.as_ref().to_owned());
        self
    }

    /// The child writes stdout to this file (opened for writing, not created or truncated),
    /// e.g. /dev/full.
    pub fn stdout_file(mut self, path: impl AsRef<Path>) -> Cmd {
        self.out = Out::File(path.as_ref().to_owned());
        self
    }

    /// The child writes stdout to a pipe that is closed after its first `n` bytes are read
    /// (they are the captured stdout): a reader such as `head` going away.
    pub fn stdout_head(mut self, n: usize) -> Cmd {
        self.out = Out::Head(n);
        self
    }

    /// The command line, shell-quoted enough to read and to paste.
    pub fn line(&self) -> String {
        let mut parts = vec![quote(&self.program)];
        parts.extend(self.args.iter().map(|a| quote(a)));
        match &self.input {
            Input::Null => {}
            Input::Bytes(b) => parts.push(format!("<<< ({} bytes)", b.len())),
            Input::File(p) => parts.push(format!("< {}", quote(p.as_os_str()))),
        }
        match &self.out {
            Out::Capture => {}
            Out::File(p) => parts.push(format!("> {}", quote(p.as_os_str()))),
            Out::Head(n) => parts.push(format!("| head -c {n}")),
        }
        parts.join(" ")
    }

    /// The `std::process::Command` this runs, stdin not yet set.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        for (k, v) in &self.envs {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
        default_signals(&mut c);
        c
    }

    /// Runs to completion and returns what happened, whatever the exit status.
    pub fn run(&self) -> Run {
        let mut c = self.command();
        c.stderr(Stdio::piped());
        c.stdout(match &self.out {
            Out::Capture | Out::Head(_) => Stdio::piped(),
            Out::File(p) => Stdio::from(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .unwrap_or_else(|e| panic!("open {}: {e}", p.display())),
            ),
        });
        c.stdin(match &self.input {
            Input::Null => Stdio::null(),
            Input::Bytes(_) => Stdio::piped(),
            Input::File(p) => Stdio::from(
                std::fs::File::open(p).unwrap_or_else(|e| panic!("open {}: {e}", p.display())),
            ),
        });
        let mut child = c
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.line()));
        let (waited, dog) = watchdog(child.id(), self.timeout);
        // A thread writes stdin while wait_with_output drains stdout and stderr: neither side
        // can fill a pipe and wait on the other. A tool that exits before reading everything
        // makes the write fail with EPIPE; that is the tool's business, so it is ignored.
        let writer = match &self.input {
            Input::Bytes(b) => {
                let mut sin = child.stdin.take().expect("piped stdin");
                let b = b.clone();
                Some(std::thread::spawn(move || {
                    let _ = sin.write_all(&b);
                }))
            }
            _ => None,
        };
        // Up to n bytes (fewer only if the child ends first), then the pipe is closed: the
        // child's next write gets EPIPE or SIGPIPE, as under `| head -c n`.
        let head = match self.out {
            Out::Head(n) => {
                let out = child.stdout.take().expect("piped stdout");
                let mut first = Vec::with_capacity(n);
                let _ =
                    std::io::Read::read_to_end(&mut std::io::Read::take(out, n as u64), &mut first);
                Some(first)
            }
            _ => None,
        };
        let mut output = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait for {}: {e}", self.line()));
        let _ = waited.send(());
        if dog.join().unwrap_or(false) {
            panic!(
                "{}: still running after {:?}; killed",
                self.line(),
                self.timeout
            );
        }
        if let Some(w) = writer {
            w.join().expect("stdin writer thread");
        }
        if let Some(first) = head {
            output.stdout = first;
        }
        Run {
            line: self.line(),
            output,
        }
    }

    /// Runs and requires exit code `code`; returns what happened.
    pub fn expect(&self, code: i32) -> Run {
        let r = self.run();
        if r.output.status.code() != Some(code) {
            r.fail(&format!("expected exit {code}"));
        }
        r
    }

    /// Runs and requires success (exit 0); returns stdout.
    pub fn ok(&self) -> Vec<u8> {
        self.expect(0).output.stdout
    }
}

/// What one run did.
pub struct Run {
    pub line: String,
    pub output: Output,
}

impl Run {
    pub fn status(&self) -> ExitStatus {
        self.output.status
    }

    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    pub fn stdout(&self) -> &[u8] {
        &self.output.stdout
    }

    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// Panics with `why`, the command line, how it ended and both streams.
    pub fn fail(&self, why: &str) -> ! {
        panic!("{why}\n{}", self.describe())
    }

    /// Asserts `cond`, failing with `why` and the whole run when it does not hold.
    pub fn check(&self, cond: bool, why: &str) -> &Run {
        if !cond {
            self.fail(why);
        }
        self
    }

    /// The command line, how it ended and both streams, truncated.
    pub fn describe(&self) -> String {
        let st = self.output.status;
        let ended = match (st.code(), st.signal()) {
            (Some(c), _) => format!("exit code {c}"),
            (None, Some(s)) => format!("killed by signal {s}"),
            _ => format!("{st}"),
        };
        format!(
            "command: {}\nended: {ended}\n--- stdout ({} bytes) ---\n{}\n--- stderr ({} bytes) ---\n{}",
            self.line,
            self.output.stdout.len(),
            show(&self.output.stdout),
            self.output.stderr.len(),
            show(&self.output.stderr),
        )
    }
}

/// The first [`SHOW`] bytes of `b`, lossily as text, saying how much was left out.
fn show(b: &[u8]) -> String {
    if b.len() <= SHOW {
        String::from_utf8_lossy(b).into_owned()
    } else {
        format!(
            "{}\n[... {} more bytes]",
            String::from_utf8_lossy(&b[..SHOW]),
            b.len() - SHOW
        )
    }
}

/// `s` as a shell word: bare when it is plainly safe, else single-quoted.
fn quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
