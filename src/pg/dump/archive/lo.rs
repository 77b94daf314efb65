//! The text pg_restore prints for a `BLOBS` entry's data (large objects): per object
//! `lo_open`, its bytes as `lowrite` calls of 16 KiB each (`LOBBUFSIZE`) in hex bytea
//! literals, `lo_close`, the whole in `BEGIN;`/`COMMIT;` (pg_backup_archiver.c
//! `StartRestoreLOs`, `StartRestoreLO`, `dump_lo_buf`, `EndRestoreLO`, `EndRestoreLOs`).
//! Streamed: one object's 16 KiB at a time, whatever the objects' sizes.

use super::data::{self, Shared, Wrapper};
use super::toc::Compression;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::PathBuf;

/// pg_restore's large-object write buffer: one `lowrite` per this many bytes.
const LOBBUFSIZE: usize = 16384;
/// `INV_WRITE`, the mode `lo_open` is called with.
const INV_WRITE: u32 = 0x20000;

/// Opens one large object's decompressed data by its file or member name.
pub(super) type Opener = Box<dyn Fn(&[u8]) -> io::Result<Box<dyn Read + Send>> + Send>;

/// Where the objects of one `BLOBS` entry come from.
pub(super) enum Objects {
    /// Custom format: a stream inside the entry's large-object block.
    Block(Shared),
    /// Tar format read forward: the `blob_OID.dat` members from the stream's position on.
    TarStream(Shared),
    /// The objects listed by the entry's LO TOC (directory: `blobs[_N].toc`; tar file: the
    /// member of that name): OID and file or member name, opened by `open`.
    Listed {
        list: VecDeque<(u32, Vec<u8>)>,
        open: Opener,
    },
}

/// Reads an LO TOC (`OID NAME` lines, pg_dump's `"%u %s\n"`).
pub(super) fn parse_lo_toc(text: &[u8], what: &str) -> io::Result<VecDeque<(u32, Vec<u8>)>> {
    let mut out = VecDeque::new();
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{what}: line {} of its large-object list is not \"OID FILE\"",
                    n + 1
                ),
            )
        };
        let sp = line.iter().position(|&b| b == b' ').ok_or_else(bad)?;
        let oid = std::str::from_utf8(&line[..sp])
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .filter(|&o| o != 0)
            .ok_or_else(bad)?;
        let name = &line[sp + 1..];
        if name.is_empty() || name.contains(&b'/') || name.contains(&b' ') || name == b".." {
            return Err(bad());
        }
        out.push_back((oid, name.to_vec()));
    }
    Ok(out)
}

/// The script text of one `BLOBS` entry's data.
pub(super) struct LoText {
    objects: Objects,
    compression: Compression,
    std_strings: bool,
    what: String,
    /// The object being written, and whether it is a block reader (finished by skipping the
    /// rest of its chunks).
    cur: Option<Box<dyn Read + Send>>,
    found: bool,
    lo_buf: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    started: bool,
    done: bool,
}

impl LoText {
    pub(super) fn new(
        objects: Objects,
        compression: Compression,
        std_strings: bool,
        what: String,
    ) -> LoText {
        LoText {
            objects,
            compression,
            std_strings,
            what,
            cur: None,
            found: false,
            lo_buf: Vec::with_capacity(LOBBUFSIZE),
            out: Vec::new(),
            out_pos: 0,
            started: false,
            done: false,
        }
    }

    /// `SELECT pg_catalog.lowrite(0, '\x...');` for the buffered bytes (`dump_lo_buf`).
    fn lowrite(&mut self) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.out
            .extend_from_slice(b"SELECT pg_catalog.lowrite(0, '");
        if !self.std_strings {
            self.out.push(b'\\');
        }
        self.out.extend_from_slice(b"\\x");
        for &c in &self.lo_buf {
            self.out.push(HEX[usize::from(c >> 4)]);
            self.out.push(HEX[usize::from(c & 15)]);
        }
        self.out.extend_from_slice(b"');\n");
        self.lo_buf.clear();
    }

    /// The next object: its OID and decompressed data.
    fn next_object(&mut self) -> io::Result<Option<(u32, Box<dyn Read + Send>)>> {
        match &mut self.objects {
            Objects::Block(s) => {
                let oid = s
                    .lock()
                    .map_err(|_| io::Error::other("archive reader poisoned"))?
                    .next_lo()?;
                let Some(oid) = oid else { return Ok(None) };
                let r = data::decode(
                    Box::new(data::BlockReader(std::sync::Arc::clone(s))),
                    self.compression,
                    Wrapper::Block,
                    &format!("large object {oid} of {}", self.what),
                    Some(std::sync::Arc::clone(s)),
                    false,
                )?;
                Ok(Some((oid, r)))
            }
            Objects::TarStream(s) => {
                let m = s
                    .lock()
                    .map_err(|_| io::Error::other("archive reader poisoned"))?
                    .next_lo_member(self.found)?;
                let Some((oid, name)) = m else {
                    return Ok(None);
                };
                let r = data::decode(
                    Box::new(data::MemberReader(std::sync::Arc::clone(s))),
                    data::member_compression(&name),
                    Wrapper::File,
                    &format!("large object {oid} of {}", self.what),
                    Some(std::sync::Arc::clone(s)),
                    false,
                )?;
                Ok(Some((oid, r)))
            }
            Objects::Listed { list, open } => {
                let Some((oid, name)) = list.pop_front() else {
                    return Ok(None);
                };
                Ok(Some((oid, open(&name)?)))
            }
        }
    }

    /// Moves past what is left of the current object in a shared stream.
    fn finish_object(&mut self) -> io::Result<()> {
        match &self.objects {
            Objects::Block(s) | Objects::TarStream(s) => s
                .lock()
                .map_err(|_| io::Error::other("archive reader poisoned"))?
                .finish_entry(),
            Objects::Listed { .. } => Ok(()),
        }
    }

    /// Makes the next piece of text in `out`; false when all is written.
    fn produce(&mut self) -> io::Result<bool> {
        self.out.clear();
        self.out_pos = 0;
        if self.done {
            return Ok(false);
        }
        if !self.started {
            self.started = true;
            self.out.extend_from_slice(b"BEGIN;\n\n");
            return Ok(true);
        }
        if let Some(r) = self.cur.as_mut() {
            // Fill the 16 KiB buffer (or reach the object's end).
            let mut eof = false;
            while self.lo_buf.len() < LOBBUFSIZE {
                let have = self.lo_buf.len();
                self.lo_buf.resize(LOBBUFSIZE, 0);
                match r.read(&mut self.lo_buf[have..]) {
                    Ok(0) => {
                        self.lo_buf.truncate(have);
                        eof = true;
                        break;
                    }
                    Ok(n) => self.lo_buf.truncate(have + n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                        self.lo_buf.truncate(have);
                    }
                    Err(e) => {
                        self.lo_buf.truncate(have);
                        return Err(e);
                    }
                }
            }
            if !self.lo_buf.is_empty() {
                self.lowrite();
            }
            if eof {
                self.cur = None;
                self.finish_object()?;
                self.out
                    .extend_from_slice(b"SELECT pg_catalog.lo_close(0);\n\n");
            }
            return Ok(true);
        }
        match self.next_object()? {
            Some((oid, r)) => {
                self.found = true;
                self.cur = Some(r);
                self.out.extend_from_slice(
                    format!("SELECT pg_catalog.lo_open('{oid}', {INV_WRITE});\n").as_bytes(),
                );
            }
            None => {
                self.done = true;
                self.out.extend_from_slice(b"COMMIT;\n\n");
            }
        }
        Ok(true)
    }
}

impl Read for LoText {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_pos >= self.out.len() {
            if !self.produce()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

/// The directory of a directory archive, for [`Objects::Listed`].
pub(super) fn dir_opener(dir: PathBuf, what: String) -> Opener {
    Box::new(move |name: &[u8]| {
        let (f, c, file) = data::open_dir_file(&dir, name, &what)?;
        data::decode(
            f,
            c,
            Wrapper::File,
            &format!("{what} in {file}"),
            None,
            false,
        )
    })
}
