//! pg_dump archives (custom `-Fc`, directory `-Fd`, tar `-Ft`) read directly: the archive is
//! turned into exactly the script `pg_restore -f -` would print (TOC comments, DDL, session
//! settings, `COPY` statements and the decompressed data, in pg_restore's order), which the
//! plain-dump converter then reads. That keeps one converter and makes every output
//! byte-identical to converting the plain dump of the same database.
//!
//! From a pipe (and with one job), data is read in one forward pass (blocks of entries that
//! are not wanted are skipped, not decompressed), and each entry's data is decompressed on its
//! own thread so that inflating overlaps conversion. From a file with more than one job, each
//! entry is read on its own (a directory's data files; a custom archive's blocks at the
//! offsets in the TOC, or found by one scan when pg_dump wrote to a pipe; a tar file's members
//! found by one pass over their headers): the script then holds every COPY with an empty body
//! and [`DataSet`] opens the data, for the caller to convert tables concurrently. Memory: the
//! TOC (the schema text) plus a few decompression buffers per entry open, whatever the data
//! size.

pub mod data;
mod lo;
pub mod toc;

pub use toc::fuzz_toc;

/// Entry point for the fuzz harness (fuzz/fuzz_targets/archive_dir.rs): builds a directory
/// archive from `bytes` in a fresh temporary directory and reads all of it, as pgdump2csv
/// does with one job (the script, data in it) and with two (the script, then every data
/// entry on its own). Layout of `bytes`: a flag byte (bit 0: also plant a symbolic link and
/// a FIFO as data files, which must be refused, never followed or opened), two bytes (little
/// endian) of toc.dat length, toc.dat, then the content every data file the TOC names gets.
/// It must return for any input: no panic, no hang, no allocation a length field claims.
pub fn fuzz_dir(bytes: &[u8]) {
    if bytes.len() < 3 {
        return;
    }
    let flags = bytes[0];
    let n = usize::from(u16::from_le_bytes([bytes[1], bytes[2]])).min(bytes.len() - 3);
    let (tocb, data) = bytes[3..].split_at(n);
    let Ok(tmp) = tempfile::tempdir() else { return };
    let d = tmp.path();
    if std::fs::write(d.join("toc.dat"), tocb).is_err() {
        return;
    }
    // The names the TOC gives its data files: each gets the data part.
    let mut c = Counted {
        inner: tocb,
        pos: 0,
    };
    let mut files = Vec::new();
    if let Ok(h) = toc::read_header(&mut c)
        && let Ok(entries) = toc::read_toc(&mut c, &h)
    {
        files = entries.iter().map(|e| e.extra.file()).collect();
    }
    for (i, f) in files.iter().enumerate() {
        let Ok(name) = std::str::from_utf8(f) else {
            continue;
        };
        if name.is_empty() || name.contains('/') || name.starts_with('.') {
            continue;
        }
        let p = d.join(name);
        if flags & 1 != 0 && i % 3 == 1 {
            let _ = std::os::unix::fs::symlink("/dev/zero", &p);
        } else if flags & 1 != 0 && i % 3 == 2 {
            let _ = std::process::Command::new("mkfifo").arg(&p).status();
        } else {
            let _ = std::fs::write(&p, data);
        }
    }
    let want = |_: &str, _: &str| true;
    for jobs in [1, 2] {
        let Ok(o) = open(Some(d), &want, jobs) else {
            continue;
        };
        let mut r = o.reader;
        let _ = io::copy(&mut r, &mut io::sink());
        if let Some(set) = o.data {
            for i in 0..set.entries.len() {
                if let Ok(mut r) = set.open(i, false) {
                    let _ = io::copy(&mut r, &mut io::sink());
                }
            }
        }
    }
}

use crate::error::{Error, IoContext, Result};
use crate::input::Input;
use data::{Shared, Stream, Wrapper};
use std::collections::VecDeque;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use toc::{Compression, Counted, Entry, Extra, Format, Header};

/// Facts about an archive input, for the manifest.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Facts {
    /// `custom`, `directory` or `tar`.
    pub format: String,
    /// Archive version, e.g. `1.14.0`.
    pub version: String,
    /// Data compression: `none`, `gzip`, `lz4`, `zstd`.
    pub compression: String,
    /// "Dumped by pg_dump version".
    pub dump_version: Option<String>,
    /// "Dumped from database version".
    pub server_version: Option<String>,
    /// Large objects in the archive (not converted).
    pub large_objects: u64,
}

/// What the input turned out to be.
pub struct Opened {
    /// Name for messages.
    pub name: String,
    /// A plain-format script: the input itself, or the script made from the archive.
    pub reader: Box<dyn Read + Send>,
    /// Set when the input was an archive.
    pub facts: Option<Facts>,
    /// Set when the archive's table data is to be converted concurrently: the script then
    /// holds each `COPY` with an empty body, and this set opens the data of the n-th `COPY`.
    pub data: Option<DataSet>,
    /// Whether reading `reader` keeps a decompression thread busy beside the reader's own
    /// (compressed input or archive data, with more than one job).
    pub inflating: bool,
}

/// Which data the caller wants converted: `(schema, table) -> bool`.
pub type Want<'a> = &'a dyn Fn(&str, &str) -> bool;

/// Opens `path` (`None`/`-` = stdin) and recognises an archive by its content; other input is
/// handed back unchanged as a plain dump.
///
/// With `jobs` above 1, an archive whose entries can be read each on its own (a directory, a
/// custom or tar archive in a regular file) hands its table data out in [`Opened::data`] for
/// the caller to convert concurrently; from a pipe it is read in one pass, and `jobs` only
/// bounds how many tables' data is decompressed ahead.
pub fn open(path: Option<&Path>, want: Want<'_>, jobs: usize) -> Result<Opened> {
    let ahead = jobs.clamp(1, MAX_AHEAD + 1) - 1;
    let concurrent = jobs > 1;
    // One job is one thread: no decompression thread beside the converter.
    let thread = jobs > 1;
    if let Some(p) = path.filter(|p| !crate::stream::is_stdin(p))
        && p.is_dir()
    {
        return open_dir(p, want, ahead, concurrent, thread);
    }
    let Input {
        name,
        reader,
        path: file,
        compression,
    } = crate::input::open_with(path, thread)?;
    let mut reader = reader;
    let mut head = Vec::new();
    (&mut reader).take(512).read_to_end(&mut head).at(&name)?;
    let rest: Box<dyn Read + Send> = Box::new(Cursor::new(head.clone()).chain(reader));
    if head.starts_with(toc::MAGIC) {
        let mut o = open_custom(
            name,
            rest,
            want,
            file.map(|f| (f, ahead)),
            concurrent,
            thread,
        )?;
        o.inflating |= thread && compression != crate::input::Compression::None;
        return Ok(o);
    }
    if head.len() == 512 && &head[257..262] == b"ustar" {
        if head.starts_with(b"toc.dat\0") {
            let seekable = file.filter(|f| concurrent && f.is_file());
            let mut o = open_tar(name, rest, want, seekable, thread)?;
            o.inflating |= thread && compression != crate::input::Compression::None;
            return Ok(o);
        }
        let end = head[..100].iter().position(|&b| b == 0).unwrap_or(100);
        return Err(Error::file(
            &name,
            format!(
                "a tar file whose first member is {:?}, not toc.dat: not a pg_dump -Ft archive",
                String::from_utf8_lossy(&head[..end])
            ),
        ));
    }
    Ok(Opened {
        name,
        reader: rest,
        facts: None,
        data: None,
        inflating: thread && compression != crate::input::Compression::None,
    })
}

fn format_err(name: &str, e: toc::FormatError) -> Error {
    Error::file(name, format!("byte {}: {}", e.at, e.msg))
}

/// Tables whose data may be decompressed ahead of the one being converted, at most: each
/// holds a few MB of buffers.
const MAX_AHEAD: usize = 8;

/// `file`: the archive's path when it is a regular uncompressed file (so entries can be read
/// at their offsets, several at once), with the read-ahead wanted. `thread`: decompress each
/// entry read by the script on a thread of its own.
fn open_custom(
    name: String,
    r: Box<dyn Read + Send>,
    want: Want<'_>,
    file: Option<(PathBuf, usize)>,
    concurrent: bool,
    thread: bool,
) -> Result<Opened> {
    let mut c = Counted { inner: r, pos: 0 };
    let h = toc::read_header(&mut c).map_err(|e| format_err(&name, e))?;
    if h.format != Format::Custom {
        return Err(Error::file(
            &name,
            "this is the toc.dat of a directory archive: give the directory itself",
        ));
    }
    let mut entries = toc::read_toc(&mut c, &h).map_err(|e| format_err(&name, e))?;
    let all_offsets = entries.iter().all(|e| {
        !(e.had_dumper && e.is("TABLE DATA"))
            || matches!(
                e.extra,
                Extra::Block {
                    offset: Some(_),
                    ..
                } | Extra::Block { no_data: true, .. }
            )
    });
    // pg_dump wrote to a pipe: find the blocks in one scan, as pg_restore does. A scan that
    // fails (a damaged block) leaves the one forward pass, which reports the damage in order.
    if let Some((path, _)) = file.as_ref().filter(|(p, _)| concurrent && p.is_file())
        && (all_offsets || find_offsets(path, c.pos, &h, &mut entries).is_ok())
    {
        let src = Source::CustomFile {
            path: path.clone(),
            int_size: h.int_size,
            off_size: h.off_size,
        };
        return Ok(finish_open(
            name,
            "custom",
            h,
            entries,
            src,
            want,
            Reading::APART,
            thread,
        ));
    }
    let (src, ahead) = match file {
        // A named pipe given by path cannot be reopened and read at offsets.
        Some((path, ahead)) if all_offsets && ahead > 0 && path.is_file() => (
            Source::CustomFile {
                path,
                int_size: h.int_size,
                off_size: h.off_size,
            },
            ahead,
        ),
        _ => {
            // One forward pass: blocks in TOC order, as pg_dump writes them.
            let stream = Stream::new(c.inner, c.pos, h.int_size, h.off_size);
            (Source::Custom(Arc::new(Mutex::new(stream))), 0)
        }
    };
    Ok(finish_open(
        name,
        "custom",
        h,
        entries,
        src,
        want,
        Reading::ahead(ahead),
        thread,
    ))
}

/// `seekable`: the archive's path when it is a regular file whose members may be read each
/// on its own (for concurrent conversion). `thread` as for [`open_custom`].
fn open_tar(
    name: String,
    r: Box<dyn Read + Send>,
    want: Want<'_>,
    seekable: Option<PathBuf>,
    thread: bool,
) -> Result<Opened> {
    let stream = Arc::new(Mutex::new(Stream::new(r, 0, 4, 8)));
    let start = {
        let mut s = stream
            .lock()
            .map_err(|_| Error::file(&name, "archive reader poisoned"))?;
        s.find_member(&[b"toc.dat".to_vec()], "the TOC").at(&name)?;
        s.r.pos
    };
    // The TOC member is read whole: its size is what the archive really holds, not a claim.
    let mut v = Vec::new();
    data::MemberReader(Arc::clone(&stream))
        .read_to_end(&mut v)
        .at(&name)?;
    let mut c = Counted {
        inner: &v[..],
        pos: start,
    };
    let h = toc::read_header(&mut c).map_err(|e| format_err(&name, e))?;
    let entries = toc::read_toc(&mut c, &h).map_err(|e| format_err(&name, e))?;
    let members = {
        let mut s = stream
            .lock()
            .map_err(|_| Error::file(&name, "archive reader poisoned"))?;
        s.finish_entry().at(&name)?;
        s.int_size = h.int_size;
        s.off_size = h.off_size;
        match &seekable {
            // The member headers are read in one pass over the rest of the file.
            Some(_) => Some(s.list_members().at(&name)?),
            None => None,
        }
    };
    if let (Some(path), Some(members)) = (seekable, members) {
        let src = Source::TarFile { path, members };
        return Ok(finish_open(
            name,
            "tar",
            h,
            entries,
            src,
            want,
            Reading::APART,
            thread,
        ));
    }
    Ok(finish_open(
        name,
        "tar",
        h,
        entries,
        Source::Tar(stream),
        want,
        Reading::ahead(0),
        thread,
    ))
}

fn open_dir(
    dir: &Path,
    want: Want<'_>,
    ahead: usize,
    concurrent: bool,
    thread: bool,
) -> Result<Opened> {
    let name = dir.display().to_string();
    let tocp = dir.join("toc.dat");
    if std::fs::symlink_metadata(&tocp).is_err() {
        let dumpall = dir.join("map.dat").exists() || dir.join("databases").is_dir();
        return Err(Error::file(
            name,
            if dumpall {
                "is a directory holding pg_dumpall output (several databases), which is out of scope: give one database's archive (pg_dump -Fd) or plain dump"
            } else {
                "is a directory, not a file, and holds no toc.dat: pgdump2csv reads a plain dump file, a custom (-Fc) or tar (-Ft) archive, or a directory archive (pg_dump -Fd) with its toc.dat"
            },
        ));
    }
    let tocname = tocp.display().to_string();
    let f = data::open_regular(&tocp).at(&tocp)?;
    let mut c = Counted {
        inner: io::BufReader::new(f),
        pos: 0,
    };
    let h = toc::read_header(&mut c).map_err(|e| format_err(&tocname, e))?;
    if h.format != Format::Tar {
        return Err(Error::file(
            &tocname,
            "toc.dat does not say it belongs to a directory archive",
        ));
    }
    let entries = toc::read_toc(&mut c, &h).map_err(|e| format_err(&tocname, e))?;
    let src = Source::Dir(dir.to_path_buf());
    Ok(finish_open(
        name,
        "directory",
        h,
        entries,
        src,
        want,
        Reading { ahead, concurrent },
        thread,
    ))
}

/// One table data entry whose data is converted apart from the script.
pub struct DataEntry {
    /// The entry's `COPY ... FROM stdin;` statement, as the script holds it.
    pub copy_stmt: Vec<u8>,
    /// False when the caller did not want this entry's data (its COPY then stays empty).
    pub wanted: bool,
    /// `entry 3547 (public.t)`, for messages.
    pub what: String,
    /// Bytes the entry takes in the archive (an estimate: biggest are started first).
    pub size: u64,
    id: i64,
    file: Vec<u8>,
    offset: u64,
}

/// The data entries of an archive that can be read each on its own, in script order (the
/// n-th entry belongs to the n-th `COPY` of the script).
pub struct DataSet {
    src: Arc<Source>,
    compression: Compression,
    /// The entries.
    pub entries: Vec<DataEntry>,
}

impl DataSet {
    /// Opens entry `i`'s decompressed data, decompressed on a thread of its own when
    /// `thread` is set, else by the thread that reads it.
    pub fn open(&self, i: usize, thread: bool) -> io::Result<Box<dyn Read + Send>> {
        let e = &self.entries[i];
        open_entry(
            &self.src,
            self.compression,
            e.id,
            &e.what,
            &e.file,
            e.offset,
            thread,
        )
    }

    /// Fills in the entries' sizes, so the biggest tables can be started first.
    fn measure(&mut self) {
        match &*self.src {
            Source::CustomFile { path, .. } => {
                let end = std::fs::metadata(path).map_or(0, |m| m.len());
                let mut offs: Vec<u64> = self.entries.iter().map(|e| e.offset).collect();
                offs.push(end);
                offs.sort_unstable();
                for e in &mut self.entries {
                    let i = offs.partition_point(|&o| o <= e.offset);
                    e.size = offs.get(i).map_or(0, |&n| n - e.offset);
                }
            }
            Source::TarFile { members, .. } => {
                for e in &mut self.entries {
                    e.size = tar_names(&e.file)
                        .iter()
                        .find_map(|n| members.get(n).map(|m| m.1))
                        .unwrap_or(0);
                }
            }
            Source::Dir(d) => {
                for e in &mut self.entries {
                    let base = String::from_utf8_lossy(&e.file).into_owned();
                    e.size = ["", ".gz", ".lz4", ".zst"]
                        .iter()
                        .find_map(|s| std::fs::symlink_metadata(d.join(format!("{base}{s}"))).ok())
                        .map_or(0, |m| m.len());
                }
            }
            Source::Custom(_) | Source::Tar(_) => {}
        }
    }
}

/// Finds the data blocks of an archive file whose TOC has no offsets (pg_dump wrote it to a
/// pipe) in one pass from `start`, the end of the TOC, as pg_restore does.
fn find_offsets(path: &Path, start: u64, h: &Header, entries: &mut [Entry]) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(start))?;
    let r: Box<dyn Read + Send> = Box::new(io::BufReader::with_capacity(1 << 16, f));
    let mut st = Stream::new(r, start, h.int_size, h.off_size);
    let mut found = std::collections::HashMap::new();
    while let Some((id, at)) = st.skip_block()? {
        found.entry(id).or_insert(at);
    }
    for e in entries.iter_mut() {
        if let Extra::Block {
            offset,
            no_data: false,
        } = &mut e.extra
            && offset.is_none()
            && let Some(&at) = found.get(&e.id)
        {
            *offset = Some(at);
        }
    }
    Ok(())
}

/// How an archive's data is to be read.
#[derive(Clone, Copy)]
struct Reading {
    /// Entries decompressed ahead of the one being converted, in the one-pass script.
    ahead: usize,
    /// Whether entries may be handed out to be converted concurrently (when all are COPY
    /// data; otherwise the script holds them, read `ahead`).
    concurrent: bool,
}

impl Reading {
    /// Every entry read on its own.
    const APART: Reading = Reading {
        ahead: 0,
        concurrent: true,
    };

    fn ahead(ahead: usize) -> Reading {
        Reading {
            ahead,
            concurrent: false,
        }
    }
}

/// Where data comes from.
enum Source {
    /// A custom archive read in one pass.
    Custom(Shared),
    /// A custom archive file whose TOC has every data offset: each entry read on its own.
    CustomFile {
        path: PathBuf,
        int_size: u8,
        off_size: u8,
    },
    Tar(Shared),
    /// A tar archive file: each member read at its offset.
    TarFile {
        path: PathBuf,
        /// Member name -> (offset of its data, size).
        members: std::collections::HashMap<Vec<u8>, (u64, u64)>,
    },
    Dir(PathBuf),
}

enum Step {
    Text(Vec<u8>),
    /// The data of a `BLOBS` entry: large objects, printed as pg_restore prints them.
    Blobs {
        id: i64,
        what: String,
        file: Vec<u8>,
        offset: u64,
        std_strings: bool,
    },
    Data {
        id: i64,
        what: String,
        file: Vec<u8>,
        offset: u64,
    },
}

#[allow(clippy::too_many_arguments)] // private, called once per archive format
fn finish_open(
    name: String,
    format: &str,
    h: Header,
    entries: Vec<Entry>,
    src: Source,
    want: Want<'_>,
    reading: Reading,
    thread: bool,
) -> Opened {
    let Reading { ahead, concurrent } = reading;
    let large_objects = count_large_objects(&entries);
    if large_objects > 0 {
        crate::progress::message(&format!(
            "pgdump2csv: {name}: {large_objects} large object(s) (BLOBS entries) are not converted to CSV; their data goes to the schema script, as pg_restore prints it"
        ));
    }
    let s = |v: &Option<Vec<u8>>| v.as_ref().map(|b| String::from_utf8_lossy(b).into_owned());
    let facts = Facts {
        format: format.to_string(),
        version: format!("{}.{}.{}", h.version.0, h.version.1, h.version.2),
        compression: h.compression.name().to_string(),
        dump_version: s(&h.dump_version),
        server_version: s(&h.server_version),
        large_objects,
    };
    // Concurrent conversion needs every data entry to be COPY data (an INSERT archive's data
    // is statements, which the script must hold in order).
    let concurrent = concurrent
        && entries.iter().all(|e| {
            !(e.had_dumper && e.is("TABLE DATA"))
                || matches!(e.extra, Extra::Block { no_data: true, .. })
                || e.copy_stmt.as_deref().is_some_and(|c| !c.is_empty())
        });
    let (steps, deferred) = plan(&h, &entries, want, concurrent);
    let compression = h.compression;
    let src = Arc::new(src);
    let data = deferred.map(|entries| {
        let mut set = DataSet {
            src: Arc::clone(&src),
            compression,
            entries,
        };
        set.measure();
        set
    });
    Opened {
        name,
        reader: Box::new(Script {
            steps,
            next: 0,
            ahead: VecDeque::new(),
            depth: ahead,
            text: Vec::new(),
            text_pos: 0,
            cur: None,
            src,
            compression,
            thread,
        }),
        facts: Some(facts),
        data,
        inflating: thread && compression != Compression::None,
    }
}

fn count_large_objects(entries: &[Entry]) -> u64 {
    entries
        .iter()
        .map(|e| {
            if e.is("BLOB") {
                1
            } else if e.is("BLOB METADATA") {
                blob_oids(e).len() as u64
            } else {
                0
            }
        })
        .sum()
}

/// Which of pg_restore's passes an entry is printed in (`_tocEntryRestorePass`).
fn pass(e: &Entry) -> u8 {
    if e.is("ACL") || e.is("ACL LANGUAGE") || e.is("DEFAULT ACL") {
        1
    } else if e.is("EVENT TRIGGER")
        || e.is("MATERIALIZED VIEW DATA")
        || (e.is("COMMENT")
            && e.tag
                .as_deref()
                .is_some_and(|t| t.starts_with(b"EVENT TRIGGER ")))
    {
        2
    } else {
        0
    }
}

/// The session state `_printTocEntry` tracks to print `SET` commands only on change.
#[derive(Default)]
struct State {
    schema: Option<Vec<u8>>,
    tablespace: Option<Vec<u8>>,
    tableam: Option<Vec<u8>>,
}

/// The script, as pg_restore's `RestoreArchive` prints it in text mode.
///
/// With `defer`, every COPY gets an empty body and the data entries are returned in script
/// order instead, to be converted concurrently.
fn plan(
    h: &Header,
    entries: &[Entry],
    want: Want<'_>,
    defer: bool,
) -> (Vec<Step>, Option<Vec<DataEntry>>) {
    let special = |e: &Entry| e.is("ENCODING") || e.is("STDSTRINGS") || e.is("SEARCHPATH");
    let find = |d: &str| {
        entries
            .iter()
            .find(|e| e.is(d))
            .and_then(|e| e.defn.clone())
    };
    let encoding = find("ENCODING")
        .and_then(|d| {
            let s = String::from_utf8_lossy(&d).into_owned();
            s.split('\'').nth(1).map(str::to_string)
        })
        .unwrap_or_else(|| "SQL_ASCII".into());
    let std_strings = find("STDSTRINGS").is_some_and(|d| d.windows(4).any(|w| w == b"'on'"));
    let search_path = find("SEARCHPATH");
    let major = dump_major(h);

    let mut steps = Vec::new();
    let mut t: Vec<u8> = Vec::new();
    t.extend_from_slice(b"--\n-- PostgreSQL database dump\n--\n\n");
    // pg_restore opens the script with a \restrict guard; the converter drops the pair, so
    // the key does not matter, only the line's place (it decides the blank lines kept).
    t.extend_from_slice(b"\\restrict pgdump2csv\n\n");
    if let Some(v) = &h.server_version {
        t.extend_from_slice(b"-- Dumped from database version ");
        t.extend_from_slice(v);
        t.push(b'\n');
    }
    if let Some(v) = &h.dump_version {
        t.extend_from_slice(b"-- Dumped by pg_dump version ");
        t.extend_from_slice(v);
        t.push(b'\n');
    }
    t.push(b'\n');
    t.extend_from_slice(
        b"SET statement_timeout = 0;\nSET lock_timeout = 0;\nSET idle_in_transaction_session_timeout = 0;\n",
    );
    if h.version.1 >= 16 {
        t.extend_from_slice(b"SET transaction_timeout = 0;\n");
    }
    t.extend_from_slice(format!("SET client_encoding = '{encoding}';\n").as_bytes());
    t.extend_from_slice(
        format!(
            "SET standard_conforming_strings = {};\n",
            if std_strings { "on" } else { "off" }
        )
        .as_bytes(),
    );
    if let Some(sp) = &search_path {
        t.extend_from_slice(sp);
    }
    t.extend_from_slice(
        b"SET check_function_bodies = false;\nSET xmloption = content;\nSET client_min_messages = warning;\n",
    );
    if !std_strings {
        t.extend_from_slice(b"SET escape_string_warning = off;\n");
    }
    t.extend_from_slice(b"SET row_security = off;\n\n");

    let mut st = State::default();
    let mut deferred = Vec::new();
    for p in 0..3u8 {
        for e in entries.iter().filter(|e| !special(e) && pass(e) == p) {
            let is_data = e.had_dumper;
            if is_data && matches!(e.extra, Extra::Block { no_data: true, .. }) {
                continue;
            }
            if is_data && e.is("BLOBS") {
                // Large objects: not converted to CSV, but printed into the script as
                // pg_restore prints them (so they land in the post-data, as from a plain dump).
                print_entry(&mut t, &mut st, e, true, search_path.is_some(), major);
                if search_path.is_none() && st.schema.as_deref() != Some(b"pg_catalog") {
                    t.extend_from_slice(b"SET search_path = pg_catalog;\n\n");
                    st.schema = Some(b"pg_catalog".to_vec());
                }
                steps.push(Step::Text(std::mem::take(&mut t)));
                steps.push(Step::Blobs {
                    id: e.id,
                    what: format!("entry {} (large objects)", e.id),
                    file: e.extra.file(),
                    offset: e.extra.offset(),
                    std_strings,
                });
                continue;
            }
            if is_data && !e.is("TABLE DATA") {
                // Other data entries (BLOB COMMENTS of pre-9.0 archives): not printed.
                continue;
            }
            if e.is("DATABASE") || e.is("DATABASE PROPERTIES") {
                // Only printed by pg_restore --create; a plain dump without -C has neither.
                continue;
            }
            if (e.is("COMMENT") || e.is("ACL") || e.is("SECURITY LABEL"))
                && e.tag
                    .as_deref()
                    .is_some_and(|t| t.starts_with(b"DATABASE "))
            {
                // The database's own properties go with --create too (`_tocEntryRequired`):
                // run against another database they would name the source one.
                continue;
            }
            print_entry(&mut t, &mut st, e, is_data, search_path.is_some(), major);
            if !is_data {
                continue;
            }
            if let Some(c) = &e.copy_stmt {
                t.extend_from_slice(c);
            }
            let ns = String::from_utf8_lossy(e.namespace.as_deref().unwrap_or(b"")).into_owned();
            let tag = String::from_utf8_lossy(e.tag.as_deref().unwrap_or(b"")).into_owned();
            if defer {
                deferred.push(DataEntry {
                    copy_stmt: e.copy_stmt.clone().unwrap_or_default(),
                    wanted: want(&ns, &tag),
                    what: format!("entry {} ({})", e.id, e.display_name()),
                    id: e.id,
                    file: e.extra.file(),
                    offset: e.extra.offset(),
                    size: 0,
                });
                // The same bytes as an entry not wanted: the data goes to DataSet.
                t.extend_from_slice(b"\\.\n\n\n");
            } else if want(&ns, &tag) {
                steps.push(Step::Text(std::mem::take(&mut t)));
                steps.push(Step::Data {
                    id: e.id,
                    what: format!("entry {} ({})", e.id, e.display_name()),
                    file: e.extra.file(),
                    offset: e.extra.offset(),
                });
            } else if e.copy_stmt.is_some() {
                // Not wanted: an empty COPY keeps the script well-formed; the block is
                // skipped unread.
                t.extend_from_slice(b"\\.\n\n\n");
            }
        }
    }
    t.extend_from_slice(
        b"--\n-- PostgreSQL database dump complete\n--\n\n\\unrestrict pgdump2csv\n\n",
    );
    steps.push(Step::Text(t));
    (steps, defer.then_some(deferred))
}

/// pg_dump's `sanitize_line`: no newlines in a comment line; NULL or empty shown as `-`.
fn sanitize(s: Option<&[u8]>, hyphen: bool) -> Vec<u8> {
    match s {
        None | Some([]) => {
            if hyphen {
                b"-".to_vec()
            } else {
                Vec::new()
            }
        }
        Some(v) => v
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect(),
    }
}

/// One entry as `_printTocEntry` prints it (without --no-owner, --verbose or
/// --use-set-session-authorization, as a plain pg_dump prints it).
fn print_entry(
    t: &mut Vec<u8>,
    st: &mut State,
    e: &Entry,
    is_data: bool,
    have_search_path: bool,
    major: u32,
) {
    // Archives older than 1.13 have no SEARCHPATH entry: pg_restore sets the search path
    // per object (`_selectOutputSchema`).
    if !have_search_path
        && let Some(ns) = e.namespace.as_deref().filter(|n| !n.is_empty())
        && st.schema.as_deref() != Some(ns)
    {
        let ns_s = String::from_utf8_lossy(ns);
        t.extend_from_slice(b"SET search_path = ");
        t.extend_from_slice(fmt_id(&ns_s).as_bytes());
        if ns != b"pg_catalog" {
            t.extend_from_slice(b", pg_catalog");
        }
        t.extend_from_slice(b";\n\n");
        st.schema = Some(ns.to_vec());
    }
    if let Some(ts) = &e.tablespace
        && st.tablespace.as_ref() != Some(ts)
    {
        if ts.is_empty() {
            t.extend_from_slice(b"SET default_tablespace = '';\n\n");
        } else {
            t.extend_from_slice(
                format!(
                    "SET default_tablespace = {};\n\n",
                    fmt_id(&String::from_utf8_lossy(ts))
                )
                .as_bytes(),
            );
        }
        st.tablespace = Some(ts.clone());
    }
    if let Some(am) = &e.tableam
        && st.tableam.as_ref() != Some(am)
    {
        t.extend_from_slice(
            format!(
                "SET default_table_access_method = {};\n\n",
                fmt_id(&String::from_utf8_lossy(am))
            )
            .as_bytes(),
        );
        st.tableam = Some(am.clone());
    }
    t.extend_from_slice(b"--\n-- ");
    if is_data {
        t.extend_from_slice(b"Data for ");
    }
    t.extend_from_slice(b"Name: ");
    t.extend_from_slice(&sanitize(e.tag.as_deref(), false));
    t.extend_from_slice(b"; Type: ");
    t.extend_from_slice(&e.desc);
    t.extend_from_slice(b"; Schema: ");
    t.extend_from_slice(&sanitize(e.namespace.as_deref(), true));
    t.extend_from_slice(b"; Owner: ");
    t.extend_from_slice(&sanitize(e.owner.as_deref(), true));
    if let Some(ts) = e.tablespace.as_deref().filter(|t| !t.is_empty()) {
        t.extend_from_slice(b"; Tablespace: ");
        t.extend_from_slice(&sanitize(Some(ts), false));
    }
    t.extend_from_slice(b"\n--\n\n");
    if is_data {
        return;
    }
    if e.is("BLOB METADATA") {
        // Archive 1.16 groups large objects: the definition only lists their OIDs, and
        // pg_restore writes one lo_create (and ALTER OWNER) per object.
        let oids = blob_oids(e);
        for o in &oids {
            t.extend_from_slice(format!("SELECT pg_catalog.lo_create('{o}');\n").as_bytes());
        }
        t.push(b'\n');
        if let Some(owner) = e.owner.as_deref().filter(|o| !o.is_empty()) {
            for o in &oids {
                t.extend_from_slice(
                    format!(
                        "ALTER LARGE OBJECT {o} OWNER TO {};\n",
                        fmt_id(&String::from_utf8_lossy(owner))
                    )
                    .as_bytes(),
                );
            }
            t.push(b'\n');
        }
        return;
    }
    if let Some(d) = e.defn.as_deref().filter(|d| !d.is_empty()) {
        t.extend_from_slice(d);
        t.extend_from_slice(b"\n\n");
    }
    if let Some(owner) = e.owner.as_deref().filter(|o| !o.is_empty())
        && e.drop_stmt.as_deref().is_some_and(|d| !d.is_empty())
        && let Some(obj) = object_description(e, major)
    {
        t.extend_from_slice(b"ALTER ");
        t.extend_from_slice(&obj);
        t.extend_from_slice(b" OWNER TO ");
        t.extend_from_slice(&fmt_id_bytes(owner));
        t.extend_from_slice(b";\n\n");
    }
}

/// The large-object OIDs a `BLOB METADATA` entry lists (decimal numbers, whitespace-separated).
fn blob_oids(e: &Entry) -> Vec<String> {
    let d = String::from_utf8_lossy(e.defn.as_deref().unwrap_or(b"")).into_owned();
    d.split_ascii_whitespace()
        .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// The major version of the pg_dump that wrote the archive ("17.10" -> 17; 0 when the
/// header does not say): the script is printed as that version's pg_restore prints it,
/// which is what its plain dump holds.
fn dump_major(h: &Header) -> u32 {
    let v = h.dump_version.as_deref().unwrap_or(b"");
    let digits = v.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&v[..digits])
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

/// What `_getObjectDescription` names an object in `ALTER ... OWNER TO`, or `None` for
/// objects without owners: the entry's schema and tag through `fmtId` (the DROP statement,
/// which may end in CASCADE, only for the kinds that need argument lists). pg_restore before
/// 17 says `TABLE` for views, materialized views and sequences.
fn object_description(e: &Entry, major: u32) -> Option<Vec<u8>> {
    const PLAIN: &[&str] = &[
        "COLLATION",
        "CONVERSION",
        "DOMAIN",
        "FOREIGN TABLE",
        "MATERIALIZED VIEW",
        "SEQUENCE",
        "STATISTICS",
        "TABLE",
        "TEXT SEARCH DICTIONARY",
        "TEXT SEARCH CONFIGURATION",
        "TYPE",
        "VIEW",
        "DATABASE",
        "PROCEDURAL LANGUAGE",
        "SCHEMA",
        "EVENT TRIGGER",
        "FOREIGN DATA WRAPPER",
        "SERVER",
        "PUBLICATION",
        "SUBSCRIPTION",
    ];
    const DECORATED: &[&str] = &[
        "AGGREGATE",
        "FUNCTION",
        "OPERATOR",
        "OPERATOR CLASS",
        "OPERATOR FAMILY",
        "PROCEDURE",
    ];
    let desc = std::str::from_utf8(&e.desc).ok()?;
    if DECORATED.contains(&desc) {
        let drop = e.drop_stmt.as_deref()?;
        let mut end = drop.len();
        while end > 0 && matches!(drop[end - 1], b'\n' | b';') {
            end -= 1;
        }
        return drop[..end].strip_prefix(b"DROP ").map(<[u8]>::to_vec);
    }
    if e.is("BLOB") {
        let mut v = b"LARGE OBJECT ".to_vec();
        v.extend_from_slice(e.tag.as_deref().unwrap_or(b""));
        return Some(v);
    }
    if !PLAIN.contains(&desc) {
        return None;
    }
    let kind = match desc {
        "VIEW" | "SEQUENCE" | "MATERIALIZED VIEW" if major < 17 => "TABLE",
        d => d,
    };
    let mut v = kind.as_bytes().to_vec();
    v.push(b' ');
    if let Some(ns) = e.namespace.as_deref().filter(|n| !n.is_empty()) {
        v.extend_from_slice(&fmt_id_bytes(ns));
        v.push(b'.');
    }
    v.extend_from_slice(&fmt_id_bytes(e.tag.as_deref().unwrap_or(b"")));
    Some(v)
}

/// PostgreSQL's keywords that `fmtId` must quote (every category but unreserved).
const QUOTED_KEYWORDS: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "json",
    "json_array",
    "json_arrayagg",
    "json_exists",
    "json_object",
    "json_objectagg",
    "json_query",
    "json_scalar",
    "json_serialize",
    "json_table",
    "json_value",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "merge_action",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// pg_dump's `fmtId`: the name as is when it is a lower-case identifier and not a keyword
/// that needs quoting, else double-quoted with quotes doubled.
fn fmt_id(s: &str) -> String {
    let simple = s
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !QUOTED_KEYWORDS.contains(&s);
    if simple {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}

/// [`fmt_id`] of a name's bytes as the archive holds them (in the database's encoding, which
/// need not be UTF-8): a name that is not UTF-8 is never a plain identifier, so it is quoted.
fn fmt_id_bytes(b: &[u8]) -> Vec<u8> {
    match std::str::from_utf8(b) {
        Ok(s) => fmt_id(s).into_bytes(),
        Err(_) => {
            let mut v = vec![b'"'];
            for &c in b {
                if c == b'"' {
                    v.push(b'"');
                }
                v.push(c);
            }
            v.push(b'"');
            v
        }
    }
}

/// The script reader.
struct Script {
    steps: Vec<Step>,
    /// Index of the next step.
    next: usize,
    /// Data entries opened ahead (their decompression already running), by step index.
    ahead: VecDeque<(usize, io::Result<Box<dyn Read + Send>>)>,
    /// How many entries may be opened ahead.
    depth: usize,
    text: Vec<u8>,
    text_pos: usize,
    cur: Option<Box<dyn Read + Send>>,
    src: Arc<Source>,
    compression: Compression,
    /// Whether each entry is decompressed on a thread of its own (not with one job).
    thread: bool,
}

/// Opens one data entry's decompressed data (its decompression running on a thread of its
/// own). For a pipe (`Source::Custom`, `Source::Tar`) the entry must come after the last one
/// opened.
fn open_entry(
    src: &Source,
    compression: Compression,
    id: i64,
    what: &str,
    file: &[u8],
    offset: u64,
    thread: bool,
) -> io::Result<Box<dyn Read + Send>> {
    {
        match src {
            Source::Custom(s) => {
                s.lock()
                    .map_err(|_| io::Error::other("poisoned"))?
                    .find_block(id, what)?;
                data::decode(
                    Box::new(data::BlockReader(Arc::clone(s))),
                    compression,
                    Wrapper::Block,
                    what,
                    Some(Arc::clone(s)),
                    thread,
                )
            }
            Source::CustomFile {
                path,
                int_size,
                off_size,
            } => {
                let f = open_block(path, offset, what)?;
                // Opened here, not by input::open: counted for the progress bar here too
                // (above the buffer, so only the bytes used count).
                let r: Box<dyn Read + Send> = Box::new(crate::progress::Reading(
                    io::BufReader::with_capacity(1 << 16, f),
                ));
                let mut st = Stream::new(r, offset, *int_size, *off_size);
                st.find_block(id, what)?;
                let st = Arc::new(Mutex::new(st));
                data::decode(
                    Box::new(data::BlockReader(Arc::clone(&st))),
                    compression,
                    Wrapper::Block,
                    what,
                    Some(st),
                    thread,
                )
            }
            Source::Tar(s) => {
                let names = tar_names(file);
                let found = s
                    .lock()
                    .map_err(|_| io::Error::other("poisoned"))?
                    .find_member(&names, what)?;
                data::decode(
                    Box::new(data::MemberReader(Arc::clone(s))),
                    data::member_compression(&found),
                    Wrapper::File,
                    what,
                    Some(Arc::clone(s)),
                    thread,
                )
            }
            Source::TarFile { path, members } => {
                use std::io::{Seek, SeekFrom};
                let found = tar_names(file)
                    .into_iter()
                    .find_map(|n| members.get(&n).map(|m| (n, *m)));
                let Some((name, (at, size))) = found else {
                    let end = std::fs::metadata(path)?.len();
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "byte {end}: the tar archive ends before the member holding the data of {what}"
                        ),
                    ));
                };
                let mut f = std::fs::File::open(path)?;
                f.seek(SeekFrom::Start(at))?;
                // Counted for the progress bar above the buffer, as a custom file's blocks.
                let r = crate::progress::Reading(data::Exact {
                    inner: io::BufReader::with_capacity(1 << 16, f),
                    left: size,
                    at,
                    what: what.to_string(),
                });
                data::decode(
                    Box::new(r),
                    data::member_compression(&name),
                    Wrapper::File,
                    what,
                    None,
                    thread,
                )
            }
            Source::Dir(d) => {
                let (f, c, name) = data::open_dir_file(d, file, what)?;
                data::decode(
                    f,
                    c,
                    Wrapper::File,
                    &format!("{what} in {name}"),
                    None,
                    thread,
                )
            }
        }
    }
}

/// The largest LO TOC read (a line per large object): far beyond any real one.
const LO_TOC_MAX: u64 = 1 << 30;

/// Reads an LO TOC whole (at most [`LO_TOC_MAX`] bytes) and parses it.
fn read_lo_toc(
    mut r: impl Read,
    what: &str,
) -> io::Result<std::collections::VecDeque<(u32, Vec<u8>)>> {
    let mut v = Vec::new();
    (&mut r).take(LO_TOC_MAX + 1).read_to_end(&mut v)?;
    if v.len() as u64 > LO_TOC_MAX {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what}: its large-object list is longer than {LO_TOC_MAX} bytes"),
        ));
    }
    lo::parse_lo_toc(&v, what)
}

/// Finds the large objects of `BLOBS` entry `id` (see [`lo::Objects`]).
fn open_los(
    src: &Source,
    id: i64,
    what: &str,
    file: &[u8],
    offset: u64,
) -> io::Result<lo::Objects> {
    use std::io::{Seek, SeekFrom};
    match src {
        Source::Custom(s) => {
            s.lock()
                .map_err(|_| io::Error::other("poisoned"))?
                .find_block_of(3, id, what)?;
            Ok(lo::Objects::Block(Arc::clone(s)))
        }
        Source::CustomFile {
            path,
            int_size,
            off_size,
        } => {
            let f = open_block(path, offset, what)?;
            let r: Box<dyn Read + Send> = Box::new(io::BufReader::with_capacity(1 << 16, f));
            let mut st = Stream::new(r, offset, *int_size, *off_size);
            st.find_block_of(3, id, what)?;
            Ok(lo::Objects::Block(Arc::new(Mutex::new(st))))
        }
        Source::Tar(s) => Ok(lo::Objects::TarStream(Arc::clone(s))),
        Source::TarFile { path, members } => {
            let toc_name = [
                format!("blobs_{id}.toc").into_bytes(),
                b"blobs.toc".to_vec(),
            ]
            .into_iter()
            .find_map(|n| members.get(&n).copied());
            let Some((at, size)) = toc_name else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{what}: the tar archive has no blobs.toc member listing them"),
                ));
            };
            let member = |at: u64, size: u64, what: &str| -> io::Result<Box<dyn Read + Send>> {
                let mut f = std::fs::File::open(path)?;
                f.seek(SeekFrom::Start(at))?;
                Ok(Box::new(data::Exact {
                    inner: io::BufReader::with_capacity(1 << 16, f),
                    left: size,
                    at,
                    what: what.to_string(),
                }))
            };
            let list = read_lo_toc(member(at, size, what)?, what)?;
            let members = members.clone();
            let path = path.clone();
            let what = what.to_string();
            Ok(lo::Objects::Listed {
                list,
                open: Box::new(move |name: &[u8]| {
                    let Some(&(at, size)) = members.get(name) else {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "{what}: the tar archive has no member {}",
                                String::from_utf8_lossy(name)
                            ),
                        ));
                    };
                    let mut f = std::fs::File::open(&path)?;
                    f.seek(SeekFrom::Start(at))?;
                    data::decode(
                        Box::new(data::Exact {
                            inner: io::BufReader::with_capacity(1 << 16, f),
                            left: size,
                            at,
                            what: what.clone(),
                        }),
                        data::member_compression(name),
                        Wrapper::File,
                        &what,
                        None,
                        false,
                    )
                }),
            })
        }
        Source::Dir(d) => {
            let (f, c, name) = data::open_dir_file(d, file, what)?;
            let r = data::decode(
                f,
                c,
                Wrapper::File,
                &format!("{what} in {name}"),
                None,
                false,
            )?;
            let list = read_lo_toc(r, what)?;
            Ok(lo::Objects::Listed {
                list,
                open: lo::dir_opener(d.clone(), what.to_string()),
            })
        }
    }
}

/// The member names pg_dump may have given a data file in a tar archive.
fn tar_names(file: &[u8]) -> Vec<Vec<u8>> {
    let mut names = vec![file.to_vec()];
    for suffix in [&b".gz"[..], b".lz4", b".zst"] {
        let mut n = file.to_vec();
        n.extend_from_slice(suffix);
        names.push(n);
    }
    names
}

impl Script {
    fn open_data(
        &self,
        id: i64,
        what: &str,
        file: &[u8],
        offset: u64,
    ) -> io::Result<Box<dyn Read + Send>> {
        open_entry(
            &self.src,
            self.compression,
            id,
            what,
            file,
            offset,
            self.thread,
        )
    }

    fn open_step(&self, i: usize) -> io::Result<Box<dyn Read + Send>> {
        match &self.steps[i] {
            Step::Data {
                id,
                what,
                file,
                offset,
            } => self.open_data(*id, what, file, *offset),
            Step::Text(_) | Step::Blobs { .. } => Err(io::Error::other("not a data step")),
        }
    }

    /// Opens the data entries after step `i`, up to `depth` of them, so their decompression
    /// runs while step `i` is converted. An error is kept for when its entry is reached, so
    /// the tables before it are still finished.
    fn read_ahead(&mut self, i: usize) {
        let mut j = self.ahead.back().map_or(i, |x| x.0.max(i)) + 1;
        while self.ahead.len() < self.depth && j < self.steps.len() {
            // Opening an entry beyond large objects would move a shared stream past them.
            if matches!(self.steps[j], Step::Blobs { .. }) {
                break;
            }
            if matches!(self.steps[j], Step::Data { .. }) {
                let r = self.open_step(j);
                self.ahead.push_back((j, r));
            }
            j += 1;
        }
    }

    fn finish_data(&mut self) -> io::Result<()> {
        match &*self.src {
            Source::Custom(s) | Source::Tar(s) => s
                .lock()
                .map_err(|_| io::Error::other("poisoned"))?
                .finish_entry(),
            Source::Dir(_) | Source::CustomFile { .. } | Source::TarFile { .. } => Ok(()),
        }
    }
}

impl Read for Script {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.text_pos < self.text.len() {
                let n = buf.len().min(self.text.len() - self.text_pos);
                buf[..n].copy_from_slice(&self.text[self.text_pos..self.text_pos + n]);
                self.text_pos += n;
                return Ok(n);
            }
            if let Some(r) = self.cur.as_mut() {
                let n = r.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                self.cur = None;
                self.finish_data()?;
                continue;
            }
            let i = self.next;
            self.next += 1;
            match self.steps.get_mut(i) {
                None => return Ok(0),
                Some(Step::Text(t)) => {
                    self.text = std::mem::take(t);
                    self.text_pos = 0;
                }
                Some(Step::Blobs {
                    id,
                    what,
                    file,
                    offset,
                    std_strings,
                }) => {
                    let objects = open_los(&self.src, *id, what, file, *offset)?;
                    self.cur = Some(Box::new(lo::LoText::new(
                        objects,
                        self.compression,
                        *std_strings,
                        what.clone(),
                    )));
                }
                Some(Step::Data { .. }) => {
                    let r = match self.ahead.front() {
                        Some((j, _)) if *j == i => self.ahead.pop_front().map(|x| x.1),
                        _ => None,
                    };
                    let r = match r {
                        Some(r) => r,
                        None => self.open_step(i),
                    };
                    self.read_ahead(i);
                    self.cur = Some(r?);
                }
            }
        }
    }
}

/// A custom archive opened at the data block that starts at `offset` (0: the TOC gave none and
/// the scan found none, so the archive ends before it).
fn open_block(path: &std::path::Path, offset: u64, what: &str) -> io::Result<std::fs::File> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    if offset == 0 {
        let end = f.metadata()?.len();
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "byte {end}: the archive ends before the data block of {what}: it is truncated"
            ),
        ));
    }
    f.seek(SeekFrom::Start(offset))?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(desc: &str, ns: Option<&str>, tag: &str, drop: &str) -> Entry {
        Entry {
            at: 0,
            id: 1,
            had_dumper: false,
            tag: Some(tag.as_bytes().to_vec()),
            desc: desc.as_bytes().to_vec(),
            section: 2,
            defn: None,
            drop_stmt: Some(drop.as_bytes().to_vec()),
            copy_stmt: None,
            namespace: ns.map(|n| n.as_bytes().to_vec()),
            tablespace: None,
            tableam: None,
            owner: Some(b"o".to_vec()),
            deps: Vec::new(),
            extra: Extra::File(Vec::new()),
        }
    }

    /// Issue 19 items 11 and 12: the object of ALTER ... OWNER TO as pg_restore names it.
    /// Before the fix: `TYPE public.t CASCADE` (from the DROP statement) and `TABLE` for a
    /// sequence, view or materialized view of pg_dump 17 and later.
    #[test]
    fn owner_object_names() {
        let d =
            |e: &Entry, major| String::from_utf8(object_description(e, major).unwrap()).unwrap();
        let t = entry("TYPE", Some("public"), "t", "DROP TYPE public.t CASCADE;\n");
        assert_eq!(d(&t, 17), "TYPE public.t");
        assert_eq!(d(&t, 15), "TYPE public.t");
        let q = entry(
            "TYPE",
            Some("My S"),
            "select",
            "DROP TYPE \"My S\".\"select\";\n",
        );
        assert_eq!(d(&q, 18), "TYPE \"My S\".\"select\"");
        for (desc, new) in [
            ("SEQUENCE", "SEQUENCE"),
            ("VIEW", "VIEW"),
            ("MATERIALIZED VIEW", "MATERIALIZED VIEW"),
        ] {
            let e = entry(desc, Some("s"), "x", "DROP X s.x;\n");
            assert_eq!(d(&e, 16), "TABLE s.x", "{desc}");
            assert_eq!(d(&e, 17), format!("{new} s.x"), "{desc}");
            assert_eq!(d(&e, 0), "TABLE s.x", "{desc}");
        }
        let f = entry(
            "FUNCTION",
            Some("s"),
            "f(integer)",
            "DROP FUNCTION s.f(integer);\n",
        );
        assert_eq!(d(&f, 17), "FUNCTION s.f(integer)");
        let s = entry("SCHEMA", None, "app", "DROP SCHEMA app;\n");
        assert_eq!(d(&s, 17), "SCHEMA app");
        assert!(
            object_description(&entry("INDEX", Some("s"), "i", "DROP INDEX s.i;"), 17).is_none()
        );
    }

    #[test]
    fn dump_major_versions() {
        let mut h = Header {
            version: (1, 16, 0),
            int_size: 4,
            off_size: 8,
            format: Format::Custom,
            compression: Compression::None,
            dbname: None,
            server_version: None,
            dump_version: None,
        };
        for (v, m) in [
            (&b"17.10"[..], 17),
            (b"18devel", 18),
            (b"9.6.24", 9),
            (b"", 0),
        ] {
            h.dump_version = Some(v.to_vec());
            assert_eq!(dump_major(&h), m);
        }
        h.dump_version = None;
        assert_eq!(dump_major(&h), 0);
    }
}
