//! The entry readers: the [`Script`] that reads out the planned steps, opening each
//! entry's data (decompressed, in a custom archive's blocks, a tar member or a directory's
//! data file) and printing large objects as pg_restore does.

use super::*;

/// The script reader.
pub(super) struct Script {
    pub(super) steps: Vec<Step>,
    /// Index of the next step.
    pub(super) next: usize,
    /// Data entries opened ahead (their decompression already running), by step index.
    pub(super) ahead: VecDeque<(usize, io::Result<Box<dyn Read + Send>>)>,
    /// How many entries may be opened ahead.
    pub(super) depth: usize,
    pub(super) text: Vec<u8>,
    pub(super) text_pos: usize,
    pub(super) cur: Option<Box<dyn Read + Send>>,
    pub(super) src: Arc<Source>,
    pub(super) compression: Compression,
    /// Whether each entry is decompressed on a thread of its own (not with one job).
    pub(super) thread: bool,
}

/// Opens one data entry's decompressed data (its decompression running on a thread of its
/// own). For a pipe (`Source::Custom`, `Source::Tar`) the entry must come after the last one
/// opened.
pub(super) fn open_entry(
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
                let r: Box<dyn Read + Send> = Box::new(crate::io::progress::Reading(
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
                let r = crate::io::progress::Reading(data::Exact {
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
pub(super) const LO_TOC_MAX: u64 = 1 << 30;

/// Reads an LO TOC whole (at most [`LO_TOC_MAX`] bytes) and parses it.
pub(super) fn read_lo_toc(
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
pub(super) fn open_los(
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
pub(super) fn tar_names(file: &[u8]) -> Vec<Vec<u8>> {
    let mut names = vec![file.to_vec()];
    for suffix in [&b".gz"[..], b".lz4", b".zst"] {
        let mut n = file.to_vec();
        n.extend_from_slice(suffix);
        names.push(n);
    }
    names
}

impl Script {
    pub(super) fn open_data(
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

    pub(super) fn open_step(&self, i: usize) -> io::Result<Box<dyn Read + Send>> {
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
    pub(super) fn read_ahead(&mut self, i: usize) {
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

    pub(super) fn finish_data(&mut self) -> io::Result<()> {
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
pub(super) fn open_block(
    path: &std::path::Path,
    offset: u64,
    what: &str,
) -> io::Result<std::fs::File> {
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
