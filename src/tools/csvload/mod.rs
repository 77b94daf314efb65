//! `csvload`: loads the CSV files of pgdump2csv and csvsplit manifests into PostgreSQL (and
//! YugabyteDB or CockroachDB, which speak the same COPY) in parallel, exactly once,
//! resumably, and verifies the result.
//!
//! Phases: `--schema` SQL, the data (one connection per job, each file streamed into
//! `COPY ... FROM STDIN` in batches that commit together with their journal row), the
//! `--post-data` SQL, then verification of every table's row count against the manifests.

mod args;
pub mod conn;
pub mod identity;
pub mod journal;
pub mod load;
pub mod parts;
pub mod plan;
pub mod session;
pub mod sqlfile;
pub mod stall;
pub mod target;
pub mod verify;

use crate::io::error::{Error, Result};
pub use args::Args;
use journal::Journal;
use load::{Opts, Outcome};
use plan::Plan;
use std::collections::VecDeque;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Most connections csvload opens at once.
pub const MAX_JOBS: usize = 64;

/// The server's message for `e`, with detail and context when it has them.
pub fn server_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => {
            let mut m = format!("{}: {}", d.severity(), d.message());
            m.push_str(&format!(" (SQLSTATE {})", d.code().code()));
            if let Some(x) = d.detail() {
                m.push_str(&format!(" (DETAIL: {x})"));
            }
            if let Some(x) = d.hint() {
                m.push_str(&format!(" (HINT: {x})"));
            }
            if let Some(x) = d.where_() {
                m.push_str(&format!(" (CONTEXT: {x})"));
            }
            m
        }
        None => e.to_string(),
    }
}

/// A server or connection error outside any file: exit 2.
pub fn sql_err(e: &postgres::Error) -> Error {
    Error::Usage(server_message(e))
}

/// Per-table tallies for the summary.
#[derive(Default)]
struct Tally {
    files: u64,
    rows: u64,
    bytes: u64,
    /// When the table's first file started and its last one ended (wall time, so parallel
    /// files of one table are not counted twice).
    span: Option<(Instant, Instant)>,
}

impl Tally {
    fn secs(&self) -> f64 {
        self.span.map_or(0.0, |(a, b)| (b - a).as_secs_f64())
    }
}

/// Runs csvload.
pub fn run(a: Args) -> Result<()> {
    let only_identity = a.manifest.is_empty() && a.schema.is_none() && a.post_data.is_none();
    if only_identity && a.same_target.is_none() {
        return Err(Error::Usage(
            "nothing to do: give --manifest, --schema, --post-data or --same-target".into(),
        ));
    }
    // Usage errors before anything is read or connected: a wrong command line costs nothing.
    if a.verify == verify::Verify::Content && a.append {
        return Err(Error::Usage(
            "--verify content compares whole tables with the CSV files; it cannot with --append"
                .into(),
        ));
    }
    if a.verify_only && a.verify == verify::Verify::None {
        return Err(Error::Usage(
            "--verify-only --verify none compares nothing: say count or content".into(),
        ));
    }
    // csvload draws its own bar (rows committed of the manifests' rows), so none here; this
    // starts the summary's clock.
    crate::io::progress::start("csvload", true, &[]);
    // A .gz CSV is inflated by ISA-L, or in parallel from PAR_MIN_THREADS (src/io/input.rs,
    // `gzip_path`): on at most -j threads in all, as many as there are cores.
    crate::io::input::gzpar::set_threads(
        crate::io::cli::threads("--jobs", Some(a.jobs as usize))?
            .min(std::thread::available_parallelism().map_or(1, |n| n.get())),
    );
    let journal = Journal::parse(&a.journal)?;
    for p in a.schema.iter().chain(&a.post_data).chain(&a.build_indexes) {
        sqlfile::check(p)?;
    }
    let mut plan = Plan::build(&a.manifest, &a.table)?;
    let target = conn::Target::parse(&a.database)?;
    stall::set_io_timeout(Some(a.io_timeout).filter(|t| !t.is_zero()));
    let mut client = target.connect()?;
    // Before anything else: a run that reaches another target than its first does nothing.
    let reached = match &a.same_target {
        Some(f) => {
            let (id, recorded) = identity::same_target(&mut client, f)?;
            // Said when recorded, or asked for alone; a verification's table stays as it was.
            if !a.quiet && (recorded || only_identity) {
                eprintln!(
                    "csvload: {}: {} {}",
                    crate::io::names::display_path(f),
                    if recorded {
                        "records the target reached:"
                    } else {
                        "the target reached is the one recorded:"
                    },
                    id.words()
                );
            }
            Some(id)
        }
        None => None,
    };
    if only_identity {
        return Ok(());
    }
    let rules = target::resolve(&mut client, a.target_kind)?.rules();
    rules.setup(&mut client)?;
    target::check_scripts(&mut client, a.schema.iter().chain(&a.post_data))?;
    if !a.quiet
        && let Some(n) = rules.note(rules.batch_rows(a.batch_rows))
    {
        eprintln!("csvload: {n}");
    }
    if a.build_indexes.is_some() && rules.kind != target::TargetKind::Postgresql {
        return Err(Error::Usage(format!(
            "--build-indexes is for PostgreSQL targets; this is {} (its schema changes \
             conflict beside a load): run --post-data after every table's load",
            rules.kind.name()
        )));
    }
    if a.verify_only {
        let counted = verify(
            &mut client,
            &plan,
            &vec![0; plan.tables.len()],
            a.quiet,
            found_by(a.verify, &journal),
            a.verify == verify::Verify::Content,
        );
        return content_too(&target, &plan, &a, counted);
    }
    journal.ensure(&mut client)?;
    let _ = LOADING.set(loading_words(&plan));
    crate::io::signals::on_signal(interrupted);
    if let Some(s) = &a.schema {
        phase(&mut client, s, &journal, rules, a.quiet, false)?;
    }
    lock_tables(&mut client, &journal, &plan, rules)?;
    // Fewer files than connections: large files load as parts side by side (parts.rs), on
    // PostgreSQL and one transaction per file (a part's COMMIT waits for the others').
    if rules.kind == target::TargetKind::Postgresql && rules.batch_rows(a.batch_rows).is_none() {
        let names: Vec<String> = plan.tables.iter().map(|t| t.display()).collect();
        let notes = parts::split(
            &mut plan,
            (a.jobs as usize).min(MAX_JOBS),
            a.parts_from,
            &mut |t| {
                // --truncate empties the table's journal rows: the files split afresh.
                if a.truncate {
                    return Ok(Vec::new());
                }
                journal.files_of(&mut client, &names[t])
            },
        )?;
        if !a.quiet {
            for n in notes {
                eprintln!("csvload: {n}");
            }
        }
    }
    let mut extra = Vec::with_capacity(plan.tables.len());
    for (i, t) in plan.tables.iter().enumerate() {
        let files: Vec<&plan::FileJob> = plan.files.iter().filter(|f| f.table == i).collect();
        extra.push(load::prepare_table(
            &mut client,
            &journal,
            t,
            &files,
            a.truncate,
            a.append,
            rules,
        )?);
    }
    if !a.quiet {
        resuming_note(&mut client, &plan, &journal)?;
    }
    let bar = progress_bar(&mut client, &plan, &journal, a.quiet)?;
    let (refused, tallies) = load_all(&target, &plan, &journal, &a, rules, &bar, reached.as_ref())?;
    bar.finish_and_clear();
    // The workers may have survived a lost connection (--retries); this one, idle meanwhile,
    // may have lost its own: reconnect (and lock the tables again) to go on.
    if client.is_valid(std::time::Duration::from_secs(30)).is_err() {
        client = target.connect()?;
        rules.setup(&mut client)?;
        lock_tables(&mut client, &journal, &plan, rules)?;
    }
    if !a.quiet {
        summary(&plan, &tallies, refused);
    }
    if refused > 0 {
        return Err(Error::Found(format!(
            "{refused} file(s) had rows the server{} refused; fix them and rerun the same command",
            if a.check_records {
                " or --check-records"
            } else {
                ""
            }
        )));
    }
    if let Some(p) = &a.build_indexes {
        build_phase(&target, &mut client, p, &journal, rules, &plan, &a)?;
    }
    if let Some(p) = &a.post_data {
        post_phase(&target, &mut client, p, &journal, rules, &a)?;
    }
    if a.verify == verify::Verify::None {
        return Ok(());
    }
    let counted = verify(
        &mut client,
        &plan,
        &extra,
        a.quiet,
        found_by(a.verify, &journal),
        a.verify == verify::Verify::Content,
    );
    content_too(&target, &plan, &a, counted)
}

/// With `--verify content`, compares the tables' content after their counts (also when the
/// counts differ: the content comparison says where); the counts' error comes first.
fn content_too(target: &conn::Target, plan: &Plan, a: &Args, counted: Result<()>) -> Result<()> {
    if a.verify != verify::Verify::Content {
        return counted;
    }
    if let Err(e @ Error::Usage(_)) = counted {
        return Err(e);
    }
    let content = verify::content(target, plan, a.jobs as usize, a.verify_diff, a.quiet);
    counted.and(content)
}

/// Runs a `--schema` or `--post-data` script and says what happened. Two runs at once take
/// turns (an advisory lock around the script), so the second finds it done in the journal.
fn phase(
    client: &mut postgres::Client,
    path: &std::path::Path,
    journal: &Journal,
    rules: &target::Rules,
    quiet: bool,
    skip_built: bool,
) -> Result<()> {
    let key = lock_key(journal, "");
    let locked = rules.advisory_locks && lock(client, key, &format!("script {}", path.display()))?;
    let done = sqlfile::run(
        client,
        path,
        journal,
        rules.scripts_in_transaction,
        skip_built,
    );
    if locked {
        let _ = client.execute("SELECT pg_catalog.pg_advisory_unlock($1)", &[&key]);
    }
    finish_phase(client, path, journal, rules, quiet, done?)
}

/// After a script: restores the session and says what happened.
fn finish_phase(
    client: &mut postgres::Client,
    path: &std::path::Path,
    journal: &Journal,
    rules: &target::Rules,
    quiet: bool,
    done: Option<usize>,
) -> Result<()> {
    // The script may have changed what the session relies on (pg_dump's set search_path).
    session::apply(client)?;
    rules.setup(client)?;
    if !quiet {
        match done {
            Some(n) => eprintln!("csvload: {}: {n} statements run", path.display()),
            None => eprintln!(
                "csvload: {}: already run (journal {}); skipped",
                path.display(),
                journal.sql()
            ),
        }
    }
    Ok(())
}

/// Runs the `--post-data` script: on PostgreSQL with `-j` above 1, each table's index and
/// key builds on up to `-j` connections side by side, then the rest in order
/// (`sqlfile::run_parallel`); otherwise (`-j 1`, CockroachDB and YugabyteDB, whose
/// concurrent schema changes conflict) as one script, like `--schema`, on PostgreSQL without
/// the builds the journal holds (`--build-indexes`, or an earlier `-j` run that failed).
fn post_phase(
    target: &conn::Target,
    client: &mut postgres::Client,
    path: &std::path::Path,
    journal: &Journal,
    rules: &'static target::Rules,
    a: &Args,
) -> Result<()> {
    if a.jobs < 2 || rules.kind != target::TargetKind::Postgresql {
        let postgres = rules.kind == target::TargetKind::Postgresql;
        return phase(client, path, journal, rules, a.quiet, postgres);
    }
    let key = lock_key(journal, "");
    let locked = rules.advisory_locks && lock(client, key, &format!("script {}", path.display()))?;
    let done = sqlfile::run_parallel(target, rules, client, path, journal, a.jobs as usize);
    if locked {
        let _ = client.execute("SELECT pg_catalog.pg_advisory_unlock($1)", &[&key]);
    }
    finish_phase(client, path, journal, rules, a.quiet, done?)
}

/// Runs `--build-indexes`: the builds of the plan's tables from the post-data script, on up
/// to `-j` connections (`sqlfile::run_builds`), under the table locks this run holds.
fn build_phase(
    target: &conn::Target,
    client: &mut postgres::Client,
    path: &std::path::Path,
    journal: &Journal,
    rules: &'static target::Rules,
    plan: &Plan,
    a: &Args,
) -> Result<()> {
    let tables: Vec<(Option<String>, String)> = plan
        .tables
        .iter()
        .map(|t| (t.schema.clone(), t.name.clone()))
        .collect();
    let (now, before) = sqlfile::run_builds(
        target,
        rules,
        client,
        path,
        journal,
        a.jobs as usize,
        &tables,
    )?;
    if !a.quiet {
        let none = tables.len().saturating_sub(now + before);
        eprintln!(
            "csvload: {}: the indexes and keys of {now} table(s) built{}{}",
            path.display(),
            if before > 0 {
                format!(", {before} built before (journal {})", journal.sql())
            } else {
                String::new()
            },
            if none > 0 {
                format!("; {none} table(s) have none in it")
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// The advisory-lock key of `table` (`""`: the scripts) under `journal`: the first 8 bytes of
/// XXH64 of `csvload`, the journal and the table, so runs with the same journal and table
/// meet at the same key.
pub fn lock_key(journal: &Journal, table: &str) -> i64 {
    let mut h = twox_hash::XxHash64::with_seed(0);
    std::hash::Hasher::write(
        &mut h,
        format!("csvload\0{}\0{table}", journal.sql()).as_bytes(),
    );
    std::hash::Hasher::finish(&h) as i64
}

/// Takes the session-level advisory lock `key` for `what`, waiting (and saying so, with the
/// holder's server pid and application) while another session holds it. `Ok(false)` when the
/// server has no advisory locks (the journal's primary key still refuses a batch committed
/// twice, in words).
fn lock(client: &mut postgres::Client, key: i64, what: &str) -> Result<bool> {
    // A table or file name from a manifest: escaped before it reaches the terminal.
    let what = crate::io::names::display_name(what);
    let got = match client.query_one("SELECT pg_catalog.pg_try_advisory_lock($1)", &[&key]) {
        Ok(r) => r.get::<_, bool>(0),
        Err(e)
            if e.as_db_error()
                .is_some_and(|d| matches!(d.code().code(), "42883" | "0A000" | "42501")) =>
        {
            return Ok(false);
        }
        Err(e) => return Err(sql_err(&e)),
    };
    if got {
        return Ok(true);
    }
    let who: String = client
        .query_opt(
            "SELECT format('server pid %s, application %L, since %s', a.pid, \
             a.application_name, date_trunc('second', a.backend_start)) \
             FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid \
             WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = $1 \
             AND l.objid::bigint = $2 AND l.objsubid = 1 LIMIT 1",
            &[
                &((key as u64 >> 32) as i64),
                &((key as u64 & 0xffff_ffff) as i64),
            ],
        )
        .ok()
        .flatten()
        .map(|r| r.get(0))
        .unwrap_or_else(|| "a session".into());
    eprintln!(
        "csvload: {what} is being loaded by another csvload ({who}); waiting for it to \
         finish (Ctrl-C stops this one; nothing of it is loaded yet)"
    );
    client
        .execute("SELECT pg_catalog.pg_advisory_lock($1)", &[&key])
        .map_err(|e| sql_err(&e))?;
    eprintln!("csvload: {what}: the other load has finished; going on");
    Ok(true)
}

/// Locks every table of the plan (in key order, so two runs never wait for each other
/// crosswise) for the rest of the run: a second csvload on the same table waits here,
/// before it counts rows or reads the journal.
fn lock_tables(
    client: &mut postgres::Client,
    journal: &Journal,
    plan: &Plan,
    rules: &target::Rules,
) -> Result<()> {
    if !rules.advisory_locks {
        return Ok(());
    }
    let mut keys: Vec<(i64, String)> = plan
        .tables
        .iter()
        .map(|t| (lock_key(journal, &t.display()), t.display()))
        .collect();
    keys.sort();
    for (k, name) in keys {
        if !lock(client, k, &format!("table {name}"))? {
            return Ok(());
        }
    }
    Ok(())
}

/// Says so when the journal already holds rows of the plan's tables: a rerun resumes.
fn resuming_note(client: &mut postgres::Client, plan: &Plan, journal: &Journal) -> Result<()> {
    let total: u64 = plan.tables.iter().map(|t| t.expected_rows).sum();
    let mut done = 0u64;
    for t in &plan.tables {
        done += journal.rows_of(client, &t.display())?.max(0) as u64;
    }
    if done > 0 {
        eprintln!(
            "csvload: resuming: journal {} records {done} of the {total} rows as loaded; \
             loading the other {}",
            journal.sql(),
            total.saturating_sub(done)
        );
    }
    Ok(())
}

/// What the run loads, for the interrupt line ([`interrupted`], which a signal hook cannot
/// hand arguments): under make -j several csvloads share a terminal, and a line that named no
/// table did not say which load stopped (issue 34).
static LOADING: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The plan's tables in words: all of them up to three, else the first three and how many.
fn loading_words(plan: &Plan) -> String {
    let names: Vec<String> = plan
        .tables
        .iter()
        .map(|t| crate::io::names::display_name(&t.display()))
        .collect();
    match names.len() {
        0 => String::new(),
        1..=3 => format!(" loading table {}", names.join(", ")),
        n => format!(" loading {n} tables ({}, ...)", names[..3].join(", ")),
    }
}

/// Said on SIGINT/SIGTERM/SIGHUP before the process exits: what this run committed (open
/// batches roll back when the connections close) and how to go on.
fn interrupted() {
    let rows = load::COMMITTED_ROWS.load(Ordering::SeqCst);
    let batches = load::COMMITTED_BATCHES.load(Ordering::SeqCst);
    let what = LOADING.get().map(String::as_str).unwrap_or("");
    eprintln!(
        "csvload: interrupted{what}: this run committed {rows} rows in {batches} batch(es), \
         each recorded in the journal; batches in progress were rolled back; rerun the same \
         command to load the rest"
    );
}

/// The data phase: `-j` workers take files from one queue. Returns the number of files
/// with refused rows; connection and I/O errors end the run (exit 2) after the other
/// workers finish their batch.
fn load_all(
    target: &conn::Target,
    plan: &Plan,
    journal: &Journal,
    a: &Args,
    rules: &'static target::Rules,
    bar: &indicatif::ProgressBar,
    reached: Option<&identity::Identity>,
) -> Result<(usize, Vec<Tally>)> {
    let mut files_left = vec![0usize; plan.tables.len()];
    for f in &plan.files {
        files_left[f.table] += 1;
    }
    let files_left = Mutex::new(files_left);
    let committed = |n: u64| bar.inc(n);
    // Each table's shards in spread order (plan::spread), not neighbours side by side.
    let queue: Mutex<VecDeque<usize>> = Mutex::new(plan.load_order().into());
    let stop_all = AtomicBool::new(false);
    let failed_tables: Mutex<Vec<bool>> = Mutex::new(vec![false; plan.tables.len()]);
    let tallies: Mutex<Vec<Tally>> =
        Mutex::new((0..plan.tables.len()).map(|_| Tally::default()).collect());
    let refused = AtomicU64::new(0);
    let fatal: Mutex<Option<Error>> = Mutex::new(None);
    let jobs = (a.jobs as usize).min(plan.files.len()).min(MAX_JOBS);
    let keys = a
        .check_records
        .then(|| load::check::Keys::new(plan.tables.len()));
    let stop = |table: usize| {
        stop_all.load(Ordering::SeqCst) || failed_tables.lock().map(|f| f[table]).unwrap_or(true)
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                let fail = |e: Error| {
                    stop_all.store(true, Ordering::SeqCst);
                    let mut f = fatal.lock().unwrap();
                    if f.is_none() {
                        *f = Some(e);
                    }
                };
                let mut client = match target.connect() {
                    Ok(c) => c,
                    Err(e) => return fail(e),
                };
                if let Err(e) = rules.setup(&mut client) {
                    return fail(e);
                }
                // Every data connection reaches the target the first one did (several hosts,
                // load_balance_hosts=random: a host of another cluster is refused).
                if let Some(want) = reached {
                    match identity::of(&mut client) {
                        Ok(id) if id.same(want) => {}
                        Ok(id) => {
                            return fail(Error::Usage(format!(
                                "a data connection reached {}, not {} as the run's first \
                                 connection did: the hosts of the connection string are not one \
                                 database",
                                id.words(),
                                want.words()
                            )));
                        }
                        Err(e) => return fail(e),
                    }
                }
                let opts = Opts {
                    batch_rows: rules.batch_rows(a.batch_rows),
                    rules,
                    journal,
                    stop: &stop,
                    committed: &committed,
                    retries: a.retries,
                    quiet: a.quiet,
                    gate: a.commit_gate.as_deref(),
                    check: keys.as_ref(),
                };
                loop {
                    let Some(fi) = queue.lock().unwrap().pop_front() else {
                        return;
                    };
                    let job = &plan.files[fi];
                    // The parts of a file commit together: one that ends without its COMMIT
                    // (or never starts) rolls the others back.
                    let barrier = job.part.as_ref().and_then(|p| p.barrier.as_ref());
                    if stop(job.table) {
                        barrier.inspect(|b| b.fail());
                        continue;
                    }
                    let t0 = Instant::now();
                    let out = load::load_file(target, &mut client, plan, job, &opts);
                    let t1 = Instant::now();
                    if !matches!(out, Ok(Outcome::Done(_))) {
                        barrier.inspect(|b| b.fail());
                    }
                    let bytes = match &job.part {
                        Some(p) => p.end - p.start,
                        None => std::fs::metadata(&job.path).map(|m| m.len()).unwrap_or(0),
                    };
                    match out {
                        Ok(Outcome::Done(n)) => {
                            let mut left = files_left.lock().unwrap();
                            left[job.table] -= 1;
                            let done = left.iter().filter(|&&l| l == 0).count();
                            bar.set_message(format!("tables done {done}/{}", left.len()));
                            drop(left);
                            let mut t = tallies.lock().unwrap();
                            let t = &mut t[job.table];
                            t.files += job.first_of_file() as u64;
                            t.rows += n;
                            // Bytes of files loaded, not of those the journal had done: a
                            // rerun with nothing to do shows no speed.
                            if n > 0 {
                                t.bytes += bytes;
                            }
                            t.span = Some(match t.span {
                                Some((a, b)) => (a.min(t0), b.max(t1)),
                                None => (t0, t1),
                            });
                        }
                        Ok(Outcome::Stopped(n)) => {
                            tallies.lock().unwrap()[job.table].rows += n;
                        }
                        Ok(Outcome::Refused(msg, n)) => {
                            eprintln!("csvload: {}", crate::io::names::terminal_safe(&msg));
                            tallies.lock().unwrap()[job.table].rows += n;
                            refused.fetch_add(1, Ordering::SeqCst);
                            failed_tables.lock().unwrap()[job.table] = true;
                            if !a.keep_going {
                                stop_all.store(true, Ordering::SeqCst);
                            }
                        }
                        Err(e) => return fail(e),
                    }
                }
            });
        }
    });
    if let Some(e) = fatal.into_inner().unwrap() {
        return Err(e);
    }
    Ok((
        refused.load(Ordering::SeqCst) as usize,
        tallies.into_inner().unwrap(),
    ))
}

/// A progress bar on stderr when it is a terminal and not `-q` (hidden otherwise): rows of
/// the manifests committed (those the journal already holds count as done), rows/s, ETA,
/// tables done.
fn progress_bar(
    client: &mut postgres::Client,
    plan: &Plan,
    journal: &Journal,
    quiet: bool,
) -> Result<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() || plan.files.is_empty() {
        return Ok(indicatif::ProgressBar::hidden());
    }
    let total: u64 = plan.tables.iter().map(|t| t.expected_rows).sum();
    let mut done = 0u64;
    for t in &plan.tables {
        done += journal.rows_of(client, &t.display())?.max(0) as u64;
    }
    // The layout of the other tools' bars, in rows; the rate rounded (`966k rows/s`).
    let bar = crate::io::progress::rows_bar("csvload", total, done);
    bar.set_message(format!("tables done 0/{}", plan.tables.len()));
    Ok(bar)
}

/// The table of what each table took, then the summary line every tool prints.
fn summary(plan: &Plan, tallies: &[Tally], refused: usize) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{:<40} {:>6} {:>12} {:>9} {:>9}",
        "table", "files", "rows", "seconds", "MB/s"
    );
    for (t, y) in plan.tables.iter().zip(tallies) {
        let secs = y.secs();
        // No speed for a table with nothing loaded (a rerun the journal had done).
        let mbs = if secs > 0.0 && y.bytes > 0 {
            format!("{:.1}", y.bytes as f64 / 1e6 / secs)
        } else {
            "-".into()
        };
        let _ = writeln!(
            err,
            "{:<40} {:>6} {:>12} {:>9.2} {:>9}",
            crate::io::names::Escaped(t.display()),
            y.files,
            y.rows,
            secs,
            mbs
        );
    }
    drop(err);
    let rows: u64 = tallies.iter().map(|t| t.rows).sum();
    let bytes: u64 = tallies.iter().map(|t| t.bytes).sum();
    crate::io::progress::Summary {
        read_bytes: bytes,
        read_records: rows,
        wrote: tallies.iter().filter(|t| t.files > 0).count() as u64,
        unit: "table",
        wrote_records: rows,
        wrote_bytes: bytes,
        bad: refused as u64,
        bad_word: "refused",
    }
    .print();
}

/// What [`verify`] finds of a table: its rows counted, or (`--verify journal`) the rows its
/// journal records as committed, once the table is found to exist.
#[derive(Clone, Copy)]
enum Found<'a> {
    Counted,
    Journaled(&'a Journal),
}

fn found_by(v: verify::Verify, journal: &Journal) -> Found<'_> {
    match v {
        verify::Verify::Journal => Found::Journaled(journal),
        _ => Found::Counted,
    }
}

/// The rows the journal records as committed into `t`, once the table is found to exist
/// (no read of the table itself). A target without the journal has none.
fn journaled_rows(
    client: &mut postgres::Client,
    t: &plan::TablePlan,
    journal: &Journal,
) -> std::result::Result<i64, String> {
    let exists = |c: &mut postgres::Client, name: &str| {
        c.query_one(
            "SELECT pg_catalog.to_regclass($1::text) IS NOT NULL",
            &[&name],
        )
        .map(|r| r.get::<_, bool>(0))
        .map_err(|e| server_message(&e))
    };
    if !exists(client, &journal.sql())? {
        return Err(format!(
            "no journal {} in this database: csvload loaded nothing here",
            journal.sql()
        ));
    }
    if !exists(client, &t.sql_name())? {
        return Err(format!("table {} does not exist", t.sql_name()));
    }
    journal
        .rows_of(client, &t.display())
        .map_err(|e| e.to_string())
}

/// Compares each table's row count with the manifests (plus rows kept by `--append`);
/// prints expected vs found; exit 1 on any difference. Before `--verify content`
/// (`content_follows`), whose table has each table's two counts, only what that table does
/// not show is printed: a table that cannot be counted, a key range that differs (so no
/// table is printed twice).
fn verify(
    client: &mut postgres::Client,
    plan: &Plan,
    extra: &[i64],
    quiet: bool,
    how: Found,
    content_follows: bool,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| Error::io("<stdout>", e);
    let mut bad = 0;
    if !quiet && !content_follows && !plan.tables.is_empty() {
        writeln!(
            out,
            "{:<40} {:>12} {:>12}  result",
            "table", "expected", "found"
        )
        .map_err(w)?;
    }
    for (t, x) in plan.tables.iter().zip(extra) {
        let expected = t.expected_rows as i64 + x;
        let found = match how {
            Found::Counted => load::count_rows(client, t)
                .map_err(|e| format!("{}{}", server_message(&e), t.missing_hint(&e))),
            Found::Journaled(j) => journaled_rows(client, t, j),
        };
        let (shown, ok) = match &found {
            Ok(n) => (n.to_string(), *n == expected),
            Err(m) => (format!("error: {}", crate::io::names::Escaped(m)), false),
        };
        let mut lines = vec![(
            crate::io::names::display_name(&t.display()),
            expected.to_string(),
            shown,
            ok,
        )];
        if let (Some(k), Found::Counted) = (&t.key_range, &how) {
            lines.extend(key_check(client, t, k));
        }
        let unreadable = found.is_err();
        for (i, (name, want, got, ok)) in lines.into_iter().enumerate() {
            if !ok {
                bad += 1;
            }
            // The content table repeats the count line (not an error, not a key range).
            let shown_later = content_follows && i == 0 && !unreadable;
            if (!quiet || !ok) && !shown_later && (!content_follows || !ok) {
                writeln!(
                    out,
                    "{:<40} {:>12} {:>12}  {}",
                    name,
                    // Key values come from manifests: shown escaped too.
                    crate::io::names::Escaped(&want),
                    crate::io::names::Escaped(&got),
                    if ok { "ok" } else { "DIFFERENT" }
                )
                .map_err(w)?;
            }
        }
    }
    out.flush().map_err(w)?;
    if bad > 0 {
        return Err(Error::Found(format!(
            "verification failed: {bad} table(s) differ from the manifests{}",
            if matches!(how, Found::Journaled(_)) {
                " (rows the journal records as loaded)"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

/// Compares the key's min and max in the table with the manifest's range, letting the server
/// cast the manifest's values to the column's type and compare them in its own order.
/// Returns `(label, expected, found, ok)` lines.
fn key_check(
    client: &mut postgres::Client,
    t: &plan::TablePlan,
    k: &plan::KeyRange,
) -> Vec<(String, String, String, bool)> {
    let col = plan::quote_ident(&k.column);
    let ty: std::result::Result<String, String> = client
        .query_one(
            "SELECT format_type(atttypid, atttypmod) FROM pg_catalog.pg_attribute \
             WHERE attrelid = $1::text::regclass AND attname = $2 AND NOT attisdropped",
            &[&t.sql_name(), &k.column],
        )
        .map(|r| r.get(0))
        .map_err(|e| server_message(&e));
    let from = load::from_item(client, t);
    let res = ty.and_then(|ty| {
        let q = format!(
            "SELECT (SELECT min(CAST(v AS {ty}))::text FROM unnest($1::text[]) v), \
                    (SELECT max(CAST(v AS {ty}))::text FROM unnest($2::text[]) v), \
                    min({col})::text, max({col})::text FROM {from}"
        );
        client
            .query_one(&q, &[&k.firsts, &k.lasts])
            .map(|r| {
                let g = |i| {
                    r.get::<_, Option<String>>(i)
                        .unwrap_or_else(|| "(none)".into())
                };
                (g(0), g(1), g(2), g(3))
            })
            .map_err(|e| server_message(&e))
    });
    let label = |m: &str| {
        format!(
            "{} {m}({})",
            crate::io::names::Escaped(t.display()),
            crate::io::names::Escaped(&k.column)
        )
    };
    match res {
        Ok((emin, emax, fmin, fmax)) => vec![
            (label("min"), emin.clone(), fmin.clone(), emin == fmin),
            (label("max"), emax.clone(), fmax.clone(), emax == fmax),
        ],
        Err(m) => vec![(
            label("min/max"),
            String::new(),
            format!("error: {m}"),
            false,
        )],
    }
}
