//! The header and table of contents of a pg_dump archive (custom `-Fc`, and the `toc.dat` of
//! directory `-Fd` and tar `-Ft` archives), read as PostgreSQL's `pg_backup_archiver.c`
//! writes them (`WriteHead`/`WriteToc`), versions 1.12 to 1.16.
//!
//! Written by hand: no maintained Rust crate reads this format. Every length field is
//! checked before use and nothing is allocated from a length: strings are read through
//! `Read::take`, so memory follows the bytes actually present, never a claimed size.

use std::io::{self, Read};

/// The first bytes of every custom archive and `toc.dat`.
pub const MAGIC: &[u8; 5] = b"PGDMP";
/// A TOC string longer than this is refused: PostgreSQL's text values stop at 1 GB.
const MAX_STR: i64 = 1 << 30;

/// Archive format byte of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `-Fc`: data blocks follow the TOC in the same file.
    Custom,
    /// `-Ft`, and the `toc.dat` of `-Fd`: data in separate files or members.
    Tar,
}

/// How data is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Raw bytes.
    None,
    /// zlib streams (custom blocks) or gzip files (directory members).
    Gzip,
    /// LZ4 frames.
    Lz4,
    /// Zstandard frames.
    Zstd,
}

impl Compression {
    /// The name used in the manifest and messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// The archive header.
#[derive(Debug, Clone)]
pub struct Header {
    /// Archive version (major, minor, revision).
    pub version: (u8, u8, u8),
    /// Bytes of an Int's magnitude.
    pub int_size: u8,
    /// Bytes of an Offset's value.
    pub off_size: u8,
    /// Format byte.
    pub format: Format,
    /// Data compression.
    pub compression: Compression,
    /// Database name.
    pub dbname: Option<Vec<u8>>,
    /// Server version ("Dumped from database version").
    pub server_version: Option<Vec<u8>>,
    /// pg_dump version ("Dumped by pg_dump version").
    pub dump_version: Option<Vec<u8>>,
}

impl Header {
    fn at_least(&self, min: u8) -> bool {
        self.version.1 >= min
    }
}

/// Where an entry's data is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extra {
    /// Custom format: a block, at this offset when pg_dump could seek back to record it.
    Block {
        /// Offset of the block, when set.
        offset: Option<u64>,
        /// `K_OFFSET_NO_DATA`: the entry has no block.
        no_data: bool,
    },
    /// Directory and tar formats: the data file name (empty when none).
    File(Vec<u8>),
}

impl Extra {
    /// The data file name (directory and tar formats; empty for custom).
    pub fn file(&self) -> Vec<u8> {
        match self {
            Extra::File(f) => f.clone(),
            Extra::Block { .. } => Vec::new(),
        }
    }

    /// The block's offset (custom format, when recorded; else 0).
    pub fn offset(&self) -> u64 {
        match self {
            Extra::Block {
                offset: Some(o), ..
            } => *o,
            _ => 0,
        }
    }
}

/// One TOC entry. Strings are kept as bytes, exactly as stored (`None` = SQL NULL).
#[derive(Debug, Clone)]
pub struct Entry {
    /// Byte offset of the entry in the TOC's file, for messages.
    pub at: u64,
    /// dumpId.
    pub id: i64,
    /// Whether the entry has data (a dumper).
    pub had_dumper: bool,
    /// Object name.
    pub tag: Option<Vec<u8>>,
    /// Object type (`TABLE`, `TABLE DATA`, ...).
    pub desc: Vec<u8>,
    /// Section (1 none, 2 pre-data, 3 data, 4 post-data).
    pub section: i64,
    /// CREATE/ALTER text.
    pub defn: Option<Vec<u8>>,
    /// DROP text.
    pub drop_stmt: Option<Vec<u8>>,
    /// `COPY ... FROM stdin;` statement of a TABLE DATA entry.
    pub copy_stmt: Option<Vec<u8>>,
    /// Schema.
    pub namespace: Option<Vec<u8>>,
    /// Tablespace ("" = default).
    pub tablespace: Option<Vec<u8>>,
    /// Table access method.
    pub tableam: Option<Vec<u8>>,
    /// Owner.
    pub owner: Option<Vec<u8>>,
    /// dumpIds this entry depends on.
    pub deps: Vec<i64>,
    /// Where the data is.
    pub extra: Extra,
}

impl Entry {
    /// True if the entry's desc is `d`.
    pub fn is(&self, d: &str) -> bool {
        self.desc == d.as_bytes()
    }

    /// `schema.table` for messages.
    pub fn display_name(&self) -> String {
        let s =
            |v: &Option<Vec<u8>>| String::from_utf8_lossy(v.as_deref().unwrap_or(b"")).into_owned();
        let name = if self.namespace.as_deref().is_some_and(|n| !n.is_empty()) {
            format!("{}.{}", s(&self.namespace), s(&self.tag))
        } else {
            s(&self.tag)
        };
        // Printed in messages: a tag from the archive must not drive the terminal.
        crate::io::names::display_name(&name)
    }
}

/// A reader that counts the bytes it has delivered, so errors can name the offset.
pub struct Counted<R> {
    /// The underlying reader.
    pub inner: R,
    /// Bytes read so far (plus the starting offset).
    pub pos: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// A problem in the archive at a byte offset.
#[derive(Debug)]
pub struct FormatError {
    /// Byte offset in the archive file (or `toc.dat`).
    pub at: u64,
    /// What is wrong.
    pub msg: String,
}

impl FormatError {
    /// Turns it into an `io::Error` whose text carries the offset.
    pub fn into_io(self) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("byte {}: {}", self.at, self.msg),
        )
    }
}

type Res<T> = Result<T, FormatError>;

/// Reads the primitive encodings of `pg_backup_archiver.c` (`ReadInt`, `ReadStr`, `ReadOffset`).
pub struct Prim<'a, R> {
    /// The counted input.
    pub r: &'a mut Counted<R>,
    /// Int magnitude width.
    pub int_size: u8,
    /// Offset width.
    pub off_size: u8,
}

impl<R: Read> Prim<'_, R> {
    fn eof(&self, what: &str) -> FormatError {
        FormatError {
            at: self.r.pos,
            msg: format!("the archive ends inside {what}: it is truncated"),
        }
    }

    fn io(&self, e: io::Error, what: &str) -> FormatError {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            self.eof(what)
        } else {
            FormatError {
                at: self.r.pos,
                msg: format!("reading {what}: {e}"),
            }
        }
    }

    /// One byte.
    pub fn byte(&mut self, what: &str) -> Res<u8> {
        let mut b = [0u8; 1];
        self.r.read_exact(&mut b).map_err(|e| self.io(e, what))?;
        Ok(b[0])
    }

    /// One byte, or `None` at a clean end of input.
    pub fn byte_or_eof(&mut self, what: &str) -> Res<Option<u8>> {
        let mut b = [0u8; 1];
        loop {
            return match self.r.read(&mut b) {
                Ok(0) => Ok(None),
                Ok(_) => Ok(Some(b[0])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(self.io(e, what)),
            };
        }
    }

    /// Little-endian magnitude of `n` bytes; bytes beyond 8 must be zero.
    fn magnitude(&mut self, n: u8, what: &str) -> Res<u64> {
        let start = self.r.pos;
        let mut v = 0u64;
        for i in 0..n {
            let b = self.byte(what)?;
            if i >= 8 {
                if b != 0 {
                    return Err(FormatError {
                        at: start,
                        msg: format!("{what} does not fit in 64 bits"),
                    });
                }
            } else {
                v |= u64::from(b) << (8 * i);
            }
        }
        Ok(v)
    }

    /// An Int: sign byte, then `int_size` bytes.
    pub fn int(&mut self, what: &str) -> Res<i64> {
        let start = self.r.pos;
        let sign = self.byte(what)?;
        let m = self.magnitude(self.int_size, what)?;
        let m = i64::try_from(m).map_err(|_| FormatError {
            at: start,
            msg: format!("{what} does not fit in 64 bits"),
        })?;
        Ok(if sign == 0 { m } else { -m })
    }

    /// A Str: Int length (-1 = NULL), then the bytes.
    pub fn str(&mut self, what: &str) -> Res<Option<Vec<u8>>> {
        let start = self.r.pos;
        let len = self.int(what)?;
        if len == -1 {
            return Ok(None);
        }
        if !(0..=MAX_STR).contains(&len) {
            return Err(FormatError {
                at: start,
                msg: format!("{what} claims a length of {len} bytes: the archive is corrupt"),
            });
        }
        // Grows with the bytes that really arrive, 64 KiB at a time, never sized from `len`.
        let mut v = Vec::new();
        let mut left = len as u64;
        while left > 0 {
            let got = (&mut *self.r)
                .take(left.min(1 << 16))
                .read_to_end(&mut v)
                .map_err(|e| self.io(e, what))?;
            if got == 0 {
                return Err(self.eof(what));
            }
            left -= got as u64;
        }
        Ok(Some(v))
    }

    /// An Offset: flag byte, then `off_size` bytes.
    pub fn offset(&mut self, what: &str) -> Res<Extra> {
        let start = self.r.pos;
        let flag = self.byte(what)?;
        let v = self.magnitude(self.off_size, what)?;
        match flag {
            1 => Ok(Extra::Block {
                offset: None,
                no_data: false,
            }),
            2 => Ok(Extra::Block {
                offset: Some(v),
                no_data: false,
            }),
            3 => Ok(Extra::Block {
                offset: None,
                no_data: true,
            }),
            f => Err(FormatError {
                at: start,
                msg: format!("{what}: unknown offset flag {f}"),
            }),
        }
    }
}

/// Reads the header, after the caller has checked (or not) the magic bytes.
pub fn read_header<R: Read>(r: &mut Counted<R>) -> Res<Header> {
    let mut p = Prim {
        r,
        int_size: 4,
        off_size: 8,
    };
    let start = p.r.pos;
    let mut magic = [0u8; 5];
    for m in &mut magic {
        *m = p.byte("the archive header")?;
    }
    if &magic != MAGIC {
        return Err(FormatError {
            at: start,
            msg: "not a pg_dump archive (no PGDMP magic)".into(),
        });
    }
    let vat = p.r.pos;
    let version = (
        p.byte("the archive version")?,
        p.byte("the archive version")?,
        p.byte("the archive version")?,
    );
    if version.0 != 1 || !(12..=16).contains(&version.1) {
        return Err(FormatError {
            at: vat,
            msg: format!(
                "unsupported archive version {}.{}.{} (pgdump2csv reads 1.12 to 1.16, written by pg_dump 9.0 to 18)",
                version.0, version.1, version.2
            ),
        });
    }
    let iat = p.r.pos;
    let int_size = p.byte("the header")?;
    if !(1..=32).contains(&int_size) {
        return Err(FormatError {
            at: iat,
            msg: format!("integer size {int_size} in the header is not sane"),
        });
    }
    let oat = p.r.pos;
    let off_size = p.byte("the header")?;
    if !(1..=32).contains(&off_size) {
        return Err(FormatError {
            at: oat,
            msg: format!("offset size {off_size} in the header is not sane"),
        });
    }
    p.int_size = int_size;
    p.off_size = off_size;
    let fat = p.r.pos;
    let format = match p.byte("the header")? {
        1 => Format::Custom,
        3 => Format::Tar,
        f => {
            return Err(FormatError {
                at: fat,
                msg: format!(
                    "archive format {f} is not one pgdump2csv reads (1 = custom, 3 = tar/directory)"
                ),
            });
        }
    };
    let cat = p.r.pos;
    let compression = if version.1 >= 15 {
        match p.byte("the header")? {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Lz4,
            3 => Compression::Zstd,
            c => {
                return Err(FormatError {
                    at: cat,
                    msg: format!("unknown compression algorithm {c} in the header"),
                });
            }
        }
    } else {
        match p.int("the header's compression level")? {
            0 => Compression::None,
            -1 | 1..=9 => Compression::Gzip,
            l => {
                return Err(FormatError {
                    at: cat,
                    msg: format!("unknown compression level {l} in the header"),
                });
            }
        }
    };
    for _ in 0..7 {
        p.int("the header's creation date")?;
    }
    let dbname = p.str("the database name")?;
    let server_version = p.str("the server version")?;
    let dump_version = p.str("the pg_dump version")?;
    Ok(Header {
        version,
        int_size,
        off_size,
        format,
        compression,
        dbname,
        server_version,
        dump_version,
    })
}

/// Reads the TOC that follows the header.
pub fn read_toc<R: Read>(r: &mut Counted<R>, h: &Header) -> Res<Vec<Entry>> {
    let mut p = Prim {
        r,
        int_size: h.int_size,
        off_size: h.off_size,
    };
    let cat = p.r.pos;
    let count = p.int("the TOC entry count")?;
    if count < 0 {
        return Err(FormatError {
            at: cat,
            msg: format!("negative TOC entry count {count}"),
        });
    }
    // Not preallocated: a corrupt count must not size an allocation.
    let mut entries = Vec::new();
    // Dump id -> offset of the entry: a data block is found by its entry's id, so two
    // entries with one id would both read the first one's data (pg_dump never repeats one).
    let mut ids = std::collections::HashMap::new();
    for _ in 0..count {
        let at = p.r.pos;
        let id = p.int("a TOC entry")?;
        if id <= 0 {
            return Err(FormatError {
                at,
                msg: format!("TOC entry with invalid dump id {id}"),
            });
        }
        if let Some(first) = ids.insert(id, at) {
            return Err(FormatError {
                at,
                msg: format!(
                    "TOC entry with dump id {id}, which the entry at byte {first} has too: dump ids are unique in an archive pg_dump wrote (a table could get another one's data); refusing the archive"
                ),
            });
        }
        let what = format!("TOC entry {id}");
        let had_dumper = p.int(&what)? != 0;
        p.str(&what)?; // catalog tableoid
        p.str(&what)?; // catalog oid
        let tag = p.str(&what)?;
        let desc = p.str(&what)?.unwrap_or_default();
        let section = p.int(&what)?;
        let defn = p.str(&what)?;
        let drop_stmt = p.str(&what)?;
        let copy_stmt = p.str(&what)?;
        let namespace = p.str(&what)?;
        let tablespace = p.str(&what)?;
        let tableam = if h.at_least(14) { p.str(&what)? } else { None };
        if h.at_least(16) {
            p.int(&what)?; // relkind
        }
        let owner = p.str(&what)?;
        p.str(&what)?; // withOids
        let mut deps = Vec::new();
        while let Some(d) = p.str(&what)? {
            let d = std::str::from_utf8(&d)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
                .ok_or_else(|| FormatError {
                    at: p.r.pos,
                    msg: format!("{what}: dependency is not a number"),
                })?;
            deps.push(d);
        }
        let extra = match h.format {
            Format::Custom => p.offset(&what)?,
            Format::Tar => Extra::File(p.str(&what)?.unwrap_or_default()),
        };
        entries.push(Entry {
            at,
            id,
            had_dumper,
            tag,
            desc,
            section,
            defn,
            drop_stmt,
            copy_stmt,
            namespace,
            tablespace,
            tableam,
            owner,
            deps,
            extra,
        });
    }
    Ok(entries)
}

/// Entry point for the fuzz harness: parses a header and TOC from `bytes` and throws the
/// result away. It must return (never panic, never allocate beyond the input's size) for
/// any input.
pub fn fuzz_toc(bytes: &[u8]) {
    let mut r = Counted {
        inner: bytes,
        pos: 0,
    };
    if let Ok(h) = read_header(&mut r) {
        let _ = read_toc(&mut r, &h);
    }
}
