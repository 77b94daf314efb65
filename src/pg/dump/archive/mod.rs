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
mod plan;
mod print;
mod script;
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

use crate::io::error::{Error, IoContext, Result};
use crate::io::input::Input;
use data::{Shared, Stream, Wrapper};
use plan::{Step, count_large_objects, plan};
use script::{Script, open_entry, tar_names};
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
    if let Some(p) = path.filter(|p| !crate::io::stream::is_stdin(p))
        && p.is_dir()
    {
        return open_dir(p, want, ahead, concurrent, thread);
    }
    let Input {
        name,
        reader,
        path: file,
        compression,
        counted: _,
    } = crate::io::input::open_with(path, thread)?;
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
        o.inflating |= thread && compression != crate::io::input::Compression::None;
        return Ok(o);
    }
    if head.len() == 512 && &head[257..262] == b"ustar" {
        if head.starts_with(b"toc.dat\0") {
            let seekable = file.filter(|f| concurrent && f.is_file());
            let mut o = open_tar(name, rest, want, seekable, thread)?;
            o.inflating |= thread && compression != crate::io::input::Compression::None;
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
        inflating: thread && compression != crate::io::input::Compression::None,
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
        crate::io::progress::message(&format!(
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

#[cfg(test)]
mod tests {
    use super::print::{dump_major, object_description};
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
