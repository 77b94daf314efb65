//! The splitter: decides which shard each record goes to (`-r`, `-b`, `-n` fill shards one
//! after the other with runs of whole records; `--by-hash` and `--by-range` buffer records
//! per shard) and hands the bytes to the writer [`Pipeline`]. [`Run`] ties the splitter to
//! the pipeline for one pass over the input, fed one [`View`] (a block of records) at a time.

use super::KeyTracker;
use super::cut;
use super::pipeline::{Payload, Pipeline};
use super::{CHUNK, Config, Mode, Shared, Split, column_names, hash_encoded, push_value, range};
use crate::csv::records::{Chunk, Field, split_fields};
use crate::io::error::{Error, Pos, Result};
use crate::io::progress;
use crate::keys::KeySpec;
use std::sync::Arc;

/// One splitting run: the splitter, the writer pool, and whether the first record was seen.
pub(super) struct Run<'a> {
    cfg: &'a Config,
    sp: Splitter<'a>,
    pipe: Pipeline,
    first: bool,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        cfg: &'a Config,
        name: String,
        total: u64,
        points: Option<range::Points>,
    ) -> Run<'a> {
        let mut sp = Splitter::new(cfg, name, total);
        sp.points = points;
        Run {
            cfg,
            sp,
            pipe: Pipeline::start(
                cfg.workers,
                cfg.template.gzip().then_some(cfg.level),
                cfg.write_manifest.is_some(),
                cfg.filter.as_deref(),
            ),
            first: true,
        }
    }

    pub(super) fn feed(&mut self, v: &View) -> Result<()> {
        let mut from = 0;
        progress::add_records(v.ends.len() as u64);
        if self.first {
            self.first = false;
            if self.cfg.header && !v.ends.is_empty() {
                self.sp.set_header(v.record(0).to_vec())?;
                from = 1;
            }
            self.sp.begin(&mut self.pipe)?;
        }
        self.sp.chunk(&mut self.pipe, v, from)
    }

    pub(super) fn finish(mut self) -> Result<Split> {
        if self.first {
            self.sp.begin(&mut self.pipe)?;
        }
        self.sp.finish(&mut self.pipe)?;
        let shards = self.pipe.finish()?;
        let keys = self.sp.keys.as_ref().map(|k| k.finish(shards.len()));
        Ok(Split {
            shards,
            keys,
            points: self.sp.points.take(),
        })
    }
}

impl Run<'_> {
    /// Whether [`Run::cut`] can do this run: `-b` or `-n` into plain files, no key to read
    /// from every record. `DUMPSHARD_CSVSPLIT_SCAN=records` keeps the record-by-record path (to
    /// compare the two).
    pub(super) fn can_cut(cfg: &Config) -> bool {
        matches!(cfg.mode, Mode::Bytes(_) | Mode::Chunks(_))
            && cfg.key.is_none()
            && !cfg.template.gzip()
            && cfg.filter.is_none()
            && std::env::var_os("DUMPSHARD_CSVSPLIT_SCAN").is_none_or(|v| v != "records")
    }

    /// `-b` or `-n` over the whole mapped input `shared`, as [`Run::feed`] would split it
    /// record by record, but finding each shard's end with the `cut` module's pass over the
    /// rare bytes and handing the shard to the writer in pieces of [`CUT_PIECE`] bytes that
    /// end at record ends (no worker reads them again unless a checksum is wanted). `count`:
    /// the bytes are input read here (for the progress counter).
    pub(super) fn cut(mut self, shared: &Shared, count: bool) -> Result<Split> {
        let data: &[u8] = (**shared).as_ref();
        let len = data.len();
        // Records seen so far, the header included (as the record scanner numbers them).
        let mut seen = 0u64;
        let mut b = 0usize;
        if self.cfg.header && len > 0 {
            let (mut pos, mut q, mut ends) = (0usize, false, Vec::new());
            crate::csv::records::scan_ends(data, &mut pos, &mut q, 0, &mut ends);
            b = match ends.first() {
                Some(&e) => e,
                None if !q => len,
                None => return Err(self.unterminated(data, 0, 0)),
            };
            self.sp
                .set_header(data.get(..b).unwrap_or_default().to_vec())?;
            seen = 1;
            progress::add_records(1);
            if count {
                progress::add_read(b as u64);
            }
        }
        self.first = false;
        self.sp.begin(&mut self.pipe)?;
        match self.cfg.mode {
            Mode::Bytes(max) => self.cut_bytes(shared, count, b, seen, max)?,
            Mode::Chunks(n) => self.cut_chunks(shared, count, b, seen, n)?,
            _ => return Err(Error::internal("cut without --bytes or --chunks")),
        }
        self.finish()
    }

    /// `-n N` from the record start `b` (after the header; `seen` records before it): shard
    /// k ends at the first record end at or past `h + ceil((k+1)·T/N)` (`h` the header's
    /// bytes, `T` the data's), the rule of [`Splitter::seq_chunk`], which closes shard k after
    /// the first record that brings the data consumed to `(k+1)/N` of `T`; every shard gets at
    /// least one record while records last, the last shard the rest. The shards the records
    /// do not reach are opened empty by [`Run::finish`].
    fn cut_chunks(
        &mut self,
        shared: &Shared,
        count: bool,
        mut b: usize,
        mut seen: u64,
        n: u64,
    ) -> Result<()> {
        let len = (**shared).as_ref().len();
        let head = b;
        let total = self.sp.data_total;
        while b < len {
            let s = self.sp.open_next(&mut self.pipe)?;
            let k = s as u64;
            let at = if k + 1 >= n {
                len
            } else {
                let part = ((k as u128 + 1) * total as u128).div_ceil(n as u128);
                let t = head.saturating_add(usize::try_from(part).unwrap_or(usize::MAX));
                t.max(b + 1).min(len)
            };
            let end = self.cut_until(shared, s, b, at, seen, count)?;
            seen += self.sp.recs;
            self.sp.close_cur(&mut self.pipe)?;
            b = end;
        }
        Ok(())
    }

    /// Hands shard `s` the records from the record start `b` (`seen` records before it) to
    /// the first record end at or past `at` (`b < at <= len`), or to the end of the input;
    /// returns that end. Pieces end at record ends found by walking back from every
    /// [`CUT_PIECE`] of the pass; the end itself is found by the record scanner from `at - 1`
    /// forward, with the pass's quote state there.
    fn cut_until(
        &mut self,
        shared: &Shared,
        s: usize,
        b: usize,
        at: usize,
        seen: u64,
        count: bool,
    ) -> Result<usize> {
        let data: &[u8] = (**shared).as_ref();
        let len = data.len();
        // A record end e >= at is a newline outside quotes at e - 1 >= lim.
        let lim = at.saturating_sub(1).max(b);
        // Pieces [x, y) end at record ends; the pass has read [x, to); `walked`: no record
        // end in (x, walked].
        let (mut x, mut to, mut walked) = (b, b, b);
        let mut pass = cut::Pass::default();
        while to < lim {
            let next = to.saturating_add(CUT_PIECE).min(lim);
            pass.advance(data, to, next);
            to = next;
            if to == lim {
                break;
            }
            // Only back to where the last walk began: a long record is walked once.
            if let Some(y) = cut::last_end(data, walked, to, pass.in_quote) {
                let tail = cut::Pass::over(data, y, to);
                let mut done = pass;
                done.quoted_newlines -= tail.quoted_newlines;
                done.newlines -= tail.newlines;
                done.end_lines -= tail.end_lines;
                self.piece(shared, s, x, y, done, count)?;
                (x, pass) = (y, tail);
            }
            walked = to;
        }
        let (mut pos, mut q, mut ends) = (to, pass.in_quote, Vec::new());
        crate::csv::records::scan_ends(data, &mut pos, &mut q, 0, &mut ends);
        let e = match ends.first() {
            Some(&e) => e,
            None if !q => len,
            None => return Err(self.unterminated(data, x, seen + self.sp.recs)),
        };
        pass.advance(data, to, e);
        self.piece(shared, s, x, e, pass, count)?;
        Ok(e)
    }

    /// `-b SIZE` from the record start `b` (after the header; `seen` records before it).
    fn cut_bytes(
        &mut self,
        shared: &Shared,
        count: bool,
        mut b: usize,
        mut seen: u64,
        max: u64,
    ) -> Result<()> {
        let data: &[u8] = (**shared).as_ref();
        let len = data.len();
        while b < len {
            let s = self.sp.open_next(&mut self.pipe)?;
            let room = usize::try_from(max.saturating_sub(self.sp.bytes)).unwrap_or(usize::MAX);
            let limit = b.saturating_add(room).min(len);
            // Pieces [x, y) end at record ends; the pass has read [x, to).
            let (mut x, mut to) = (b, b);
            let mut pass = cut::Pass::default();
            let end = loop {
                let next = to.saturating_add(CUT_PIECE).min(limit);
                pass.advance(data, to, next);
                to = next;
                if to == len {
                    if pass.in_quote {
                        return Err(self.unterminated(data, x, seen + self.sp.recs));
                    }
                    self.piece(shared, s, x, len, pass, count)?;
                    break len;
                }
                match cut::last_end(data, x, to, pass.in_quote) {
                    Some(y) => {
                        // What the pass saw past y belongs to the next piece.
                        let tail = cut::Pass::over(data, y, to);
                        let mut head = pass;
                        head.quoted_newlines -= tail.quoted_newlines;
                        head.newlines -= tail.newlines;
                        head.end_lines -= tail.end_lines;
                        self.piece(shared, s, x, y, head, count)?;
                        (x, pass) = (y, tail);
                        if to == limit {
                            break y;
                        }
                    }
                    None if to < limit => {}
                    None if x > b => break x,
                    None => {
                        // Not even one record fits: it gets the shard of its own.
                        let (mut pos, mut q, mut ends) = (to, pass.in_quote, Vec::new());
                        crate::csv::records::scan_ends(data, &mut pos, &mut q, 0, &mut ends);
                        let e = match ends.first() {
                            Some(&e) => e,
                            None if !q => len,
                            None => return Err(self.unterminated(data, x, seen)),
                        };
                        pass.advance(data, to, e);
                        self.oversized(data, b, e - b, seen + 1, s, max);
                        self.piece(shared, s, x, e, pass, count)?;
                        break e;
                    }
                }
            };
            seen += self.sp.recs;
            self.sp.close_cur(&mut self.pipe)?;
            b = end;
        }
        Ok(())
    }

    /// Hands `data[x..y]`, records from a record start to a record end, to shard `s`.
    fn piece(
        &mut self,
        shared: &Shared,
        s: usize,
        x: usize,
        y: usize,
        pass: cut::Pass,
        count: bool,
    ) -> Result<()> {
        if y <= x {
            return Ok(());
        }
        let data: &[u8] = (**shared).as_ref();
        let recs = cut::records(data, x, y, &pass);
        self.sp.recs += recs;
        self.sp.bytes += (y - x) as u64;
        progress::add_records(recs);
        if count {
            progress::add_read((y - x) as u64);
        }
        self.pipe
            .data_counted(s, Payload::Slice(Arc::clone(shared), x..y), pass.end_lines)
    }

    /// The oversized-record warning of [`Splitter::seq_chunk`], for the record `record` at
    /// byte `at`.
    fn oversized(&mut self, data: &[u8], at: usize, len: usize, record: u64, s: usize, max: u64) {
        self.sp.oversized += 1;
        if !self.cfg.quiet && self.sp.oversized <= MAX_WARNINGS {
            let pos = Pos {
                file: self.sp.name.clone(),
                line: 1 + cut::newlines(data.get(..at).unwrap_or_default()),
                byte: at as u64,
                record: Some(record),
            };
            progress::message(&format!(
                "csvsplit: warning: {pos} record of {len} bytes is larger than --bytes \
                 {max}; it gets shard {s} of its own"
            ));
        }
    }

    /// The error of an input ending inside a quoted field, as the record scanner words it:
    /// the last record, which starts at or after `from`, the `seen`th + 1 of the input.
    fn unterminated(&self, data: &[u8], from: usize, seen: u64) -> Error {
        let (mut pos, mut q, mut ends) = (from, false, Vec::new());
        let (mut last, mut n) = (from, seen);
        while pos < data.len() {
            ends.clear();
            let until = pos.saturating_add(CHUNK);
            crate::csv::records::scan_ends(data, &mut pos, &mut q, until, &mut ends);
            n += ends.len() as u64;
            last = ends.last().copied().unwrap_or(last);
        }
        let name = &self.sp.name;
        let at = |off: usize| Pos {
            file: name.clone(),
            line: 1 + cut::newlines(data.get(..off).unwrap_or_default()),
            byte: off as u64,
            record: Some(n + 1),
        };
        crate::csv::records::unterminated(data.get(last..).unwrap_or_default(), last, at)
    }
}

/// Bytes per piece of a shard handed to the writer by [`Run::cut`]: several pieces per
/// shard so that checksums (`--write-manifest`) run on every worker, and small enough that
/// the scan, which the writer's bounded queue keeps a few pieces ahead, has just read the
/// bytes the writer copies: with 8 MiB pieces (about 50 MB ahead) the kernel's copy read
/// them from memory again and took 1x-5x the system time of cp in one run out of two.
#[cfg(not(test))]
const CUT_PIECE: usize = CHUNK;
/// In unit tests a few bytes, so that their short inputs cross many pieces.
#[cfg(test)]
const CUT_PIECE: usize = 7;

/// A block of records seen by the splitter: a [`Chunk`] borrowing its bytes from `data`
/// (a chunk read into memory, or the whole mapped file), so workers get ranges of `data`
/// without a copy.
pub(super) struct View<'a> {
    pub(super) data: &'a Shared,
    pub(super) recs: Chunk<&'a [u8]>,
}

impl<'a> std::ops::Deref for View<'a> {
    type Target = Chunk<&'a [u8]>;
    fn deref(&self) -> &Self::Target {
        &self.recs
    }
}

impl View<'_> {
    /// Where the block's last record ends (where it starts, if it has none).
    fn end(&self) -> usize {
        self.ends.last().copied().unwrap_or(self.begin)
    }

    fn slice(&self, r: std::ops::Range<usize>) -> Payload {
        Payload::Slice(Arc::clone(self.data), r)
    }
}

/// Decides where each record goes.
struct Splitter<'a> {
    cfg: &'a Config,
    name: String,
    header: Vec<u8>,
    /// Data bytes (after the header) for `-n`.
    data_total: u64,
    /// Open shard in sequential modes.
    cur: Option<usize>,
    /// Next shard number to open in sequential modes.
    next: usize,
    recs: u64,
    bytes: u64,
    consumed: u64,
    /// `--by-hash` state.
    hash_cols: Vec<usize>,
    bufs: Vec<Vec<u8>>,
    counts: Vec<u64>,
    block: usize,
    /// Bytes waiting in `bufs`.
    buffered: usize,
    /// Records that got a shard of their own for being larger than `--bytes`.
    oversized: u64,
    fields: Vec<Field>,
    keybuf: Vec<u8>,
    /// `-k` key ranges.
    keys: Option<KeyTracker>,
    /// `--by-range` split points (sampled before the split, or read at `begin`).
    points: Option<range::Points>,
}

impl<'a> Splitter<'a> {
    fn new(cfg: &'a Config, name: String, total: u64) -> Splitter<'a> {
        Splitter {
            cfg,
            name,
            header: Vec::new(),
            data_total: total,
            cur: None,
            next: 0,
            recs: 0,
            bytes: 0,
            consumed: 0,
            hash_cols: Vec::new(),
            bufs: Vec::new(),
            counts: Vec::new(),
            block: CHUNK,
            buffered: 0,
            oversized: 0,
            fields: Vec::new(),
            keybuf: Vec::new(),
            keys: None,
            points: None,
        }
    }

    fn set_header(&mut self, h: Vec<u8>) -> Result<()> {
        if let Mode::Bytes(max) = self.cfg.mode
            && h.len() as u64 >= max
        {
            return Err(Error::Usage(format!(
                "--bytes {max} leaves no room for records after the {}-byte header",
                h.len()
            )));
        }
        self.data_total = self.data_total.saturating_sub(h.len() as u64);
        self.header = h;
        Ok(())
    }

    /// Column names, for resolving key and `--by-hash` columns.
    fn column_names(&self) -> Result<Vec<String>> {
        column_names(self.cfg, &self.header, &self.name)
    }

    /// Called once before the first record (or at end of an empty input).
    fn begin(&mut self, pipe: &mut Pipeline) -> Result<()> {
        if let Some(args) = &self.cfg.key {
            let names = self.column_names()?;
            let spec = KeySpec::resolve(
                "csvsplit",
                args,
                &names,
                self.cfg.table.as_ref(),
                self.cfg.nulls,
                self.cfg.null.as_bytes().to_vec(),
            )?;
            if let Mode::Range {
                points: Some(file), ..
            } = &self.cfg.mode
            {
                self.points = Some(range::read(file, &spec)?);
            }
            self.keys = Some(KeyTracker::new(spec));
        }
        let n = match &self.cfg.mode {
            Mode::Hash { columns, n } => {
                let names = self.column_names()?;
                self.hash_cols = resolve_columns(columns, &names)?;
                Some(*n)
            }
            Mode::Range { n, .. } => Some(*n),
            _ => None,
        };
        if let Some(n) = n {
            let n = n as usize;
            // Bound the memory held in per-shard buffers when there are many shards.
            self.block = HASH_BUDGET
                .checked_div(n)
                .unwrap_or(CHUNK)
                .clamp(64 << 10, CHUNK);
            self.bufs = (0..n).map(|_| Vec::new()).collect();
            self.counts = vec![0; n];
            progress::phase(if matches!(self.cfg.mode, Mode::Range { .. }) {
                format!("{n} shards by key range")
            } else {
                format!("{n} shards by hash")
            });
            raise_open_files_limit(n as libc::rlim_t + 64);
            for s in 0..n {
                self.open_shard(pipe, s)?;
            }
        }
        Ok(())
    }

    fn open_shard(&mut self, pipe: &mut Pipeline, s: usize) -> Result<()> {
        let path = self.cfg.template.render(s);
        if !matches!(self.cfg.mode, Mode::Hash { .. }) {
            progress::phase(format!("shard {}", path.display()));
        }
        pipe.open(s, path)?;
        self.recs = 0;
        self.bytes = 0;
        if !self.header.is_empty() && (self.cfg.repeat_header || s == 0) {
            pipe.data(s, Payload::Owned(self.header.clone()))?;
            self.bytes = self.header.len() as u64;
        }
        Ok(())
    }

    fn open_next(&mut self, pipe: &mut Pipeline) -> Result<usize> {
        let s = self.next;
        self.open_shard(pipe, s)?;
        self.cur = Some(s);
        self.next += 1;
        Ok(s)
    }

    fn close_cur(&mut self, pipe: &mut Pipeline) -> Result<()> {
        if let Some(c) = self.cur.take() {
            pipe.close(c, self.recs)?;
        }
        Ok(())
    }

    fn chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize) -> Result<()> {
        match self.cfg.mode {
            Mode::Hash { n, .. } => self.hash_chunk(pipe, v, from, n),
            Mode::Range { .. } => self.range_chunk(pipe, v, from),
            _ => self.seq_chunk(pipe, v, from),
        }
    }

    /// `--by-range`: each record to the shard of its key's range.
    fn range_chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize) -> Result<()> {
        for i in from..v.ends.len() {
            let rec = v.record(i);
            let (Some(k), Some(p)) = (&mut self.keys, &self.points) else {
                return Err(Error::Usage(
                    "internal error: --by-range without a key or split points".into(),
                ));
            };
            let s = k
                .record_with(rec, |key| p.shard_of(key))
                .map_err(|m| Error::input(v.pos(i, &self.name), m))?;
            self.push_record(pipe, s, rec)?;
        }
        Ok(())
    }

    /// `-r`, `-b`, `-n`: shards are filled one after the other with runs of whole records,
    /// handed over as slices of the chunk (no copy).
    fn seq_chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize) -> Result<()> {
        let mut seg = v.start(from);
        for i in from..v.ends.len() {
            let (rs, re) = (v.start(i), v.ends[i]);
            let len = (re - rs) as u64;
            let full = match (self.cur, &self.cfg.mode) {
                (None, _) => true,
                (Some(_), Mode::Rows(n)) => self.recs >= *n,
                (Some(_), Mode::Bytes(max)) => self.recs > 0 && self.bytes + len > *max,
                _ => false,
            };
            if full {
                if let Some(c) = self.cur
                    && rs > seg
                {
                    pipe.data(c, v.slice(seg..rs))?;
                }
                seg = rs;
                self.close_cur(pipe)?;
                let s = self.open_next(pipe)?;
                if let Mode::Bytes(max) = self.cfg.mode
                    && self.bytes + len > max
                {
                    self.oversized += 1;
                    // Positions count lines from the start: only for the first few.
                    if !self.cfg.quiet && self.oversized <= MAX_WARNINGS {
                        progress::message(&format!(
                            "csvsplit: warning: {} record of {len} bytes is larger than --bytes \
                             {max}; it gets shard {s} of its own",
                            v.pos(i, &self.name)
                        ));
                    }
                }
            }
            if let (Some(k), Some(c)) = (&mut self.keys, self.cur) {
                k.record(c, v.record(i))
                    .map_err(|m| Error::input(v.pos(i, &self.name), m))?;
            }
            self.recs += 1;
            self.bytes += len;
            self.consumed += len;
            if let (Mode::Chunks(n), Some(c)) = (&self.cfg.mode, self.cur)
                && (c as u64) + 1 < *n
                && (self.consumed as u128) * (*n as u128)
                    >= (c as u128 + 1) * (self.data_total as u128)
            {
                pipe.data(c, v.slice(seg..re))?;
                seg = re;
                self.close_cur(pipe)?;
            }
        }
        let end = v.end();
        if let Some(c) = self.cur
            && end > seg
        {
            pipe.data(c, v.slice(seg..end))?;
        }
        Ok(())
    }

    fn hash_chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize, n: u64) -> Result<()> {
        let null = self.cfg.null.as_bytes();
        for i in from..v.ends.len() {
            let rec = v.record(i);
            split_fields(rec, &mut self.fields)
                .map_err(|m| Error::input(v.pos(i, &self.name), m.to_string()))?;
            self.keybuf.clear();
            for &c in &self.hash_cols {
                let f = self.fields.get(c).ok_or_else(|| {
                    Error::input(
                        v.pos(i, &self.name),
                        format!(
                            "record has {} fields; --by-hash column {} is field {}",
                            self.fields.len(),
                            c + 1,
                            c + 1
                        ),
                    )
                })?;
                if f.is_null(rec, null) {
                    push_value(&mut self.keybuf, None);
                } else {
                    push_value(&mut self.keybuf, Some(&f.value(rec)));
                }
            }
            let s = (hash_encoded(&self.keybuf) % n) as usize;
            if let Some(k) = &mut self.keys {
                k.record(s, rec)
                    .map_err(|m| Error::input(v.pos(i, &self.name), m))?;
            }
            self.push_record(pipe, s, rec)?;
        }
        Ok(())
    }

    /// `--by-hash`, `--by-range`: appends `rec` to shard `s`'s buffer, handing buffers over
    /// when full, or when all of them together hold more than [`HASH_BUDGET`].
    fn push_record(&mut self, pipe: &mut Pipeline, s: usize, rec: &[u8]) -> Result<()> {
        let (Some(buf), Some(count)) = (self.bufs.get_mut(s), self.counts.get_mut(s)) else {
            return Ok(());
        };
        buf.extend_from_slice(rec);
        if !rec.ends_with(b"\n") {
            // Only the input's last record can lack one; here it may not be last.
            buf.push(b'\n');
        }
        *count += 1;
        self.buffered += rec.len() + 1;
        if buf.len() >= self.block {
            let fresh = pipe
                .spare()
                .unwrap_or_else(|| Vec::with_capacity(self.block));
            let full = std::mem::replace(buf, fresh);
            self.buffered = self.buffered.saturating_sub(full.len());
            pipe.data(s, Payload::Owned(full))?;
        }
        if self.buffered > HASH_BUDGET {
            // Many shards, each with a little: hand over everything, small as it is.
            for (s, buf) in self.bufs.iter_mut().enumerate() {
                if !buf.is_empty() {
                    pipe.data(s, Payload::Owned(std::mem::take(buf)))?;
                }
            }
            self.buffered = 0;
        }
        Ok(())
    }

    fn finish(&mut self, pipe: &mut Pipeline) -> Result<()> {
        match self.cfg.mode {
            Mode::Hash { .. } | Mode::Range { .. } => {
                for s in 0..self.bufs.len() {
                    let buf = std::mem::take(&mut self.bufs[s]);
                    if !buf.is_empty() {
                        pipe.data(s, Payload::Owned(buf))?;
                    }
                    pipe.close(s, self.counts.get(s).copied().unwrap_or(0))?;
                }
            }
            Mode::Chunks(n) => {
                self.close_cur(pipe)?;
                while (self.next as u64) < n {
                    self.open_next(pipe)?;
                    self.close_cur(pipe)?;
                }
            }
            _ => self.close_cur(pipe)?,
        }
        if self.oversized > MAX_WARNINGS && !self.cfg.quiet {
            eprintln!(
                "csvsplit: warning: {} more records were larger than --bytes",
                self.oversized - MAX_WARNINGS
            );
        }
        Ok(())
    }
}

/// Oversized-record warnings printed before they are only counted.
const MAX_WARNINGS: u64 = 10;

/// Most bytes `--by-hash` keeps in its per-shard buffers before handing them to the writer.
const HASH_BUDGET: usize = 64 << 20;

/// `--by-hash` keeps every shard open: lift the soft limit on open files towards the hard
/// one when `want` descriptors would not fit (failure just leaves the limit as it was, and
/// opening a shard then reports "Too many open files").
fn raise_open_files_limit(want: libc::rlim_t) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit on this process with a valid, initialised struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < want {
            r.rlim_cur = r.rlim_max.min(want);
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// Column references to 0-based indexes, by the toolkit's one rule
/// ([`crate::keys::resolve_column`]).
fn resolve_columns(cols: &[String], names: &[String]) -> Result<Vec<usize>> {
    cols.iter()
        .map(|c| crate::keys::resolve_column(c, names))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_resolve() {
        let names = vec!["a".to_string(), "b".to_string()];
        assert_eq!(
            resolve_columns(&["b".into(), "1".into()], &names).unwrap(),
            vec![1, 0]
        );
        assert!(resolve_columns(&["c".into()], &names).is_err());
        assert!(resolve_columns(&["3".into()], &names).is_err());
        assert_eq!(resolve_columns(&["3".into()], &[]).unwrap(), vec![2]);
        assert!(resolve_columns(&["x".into()], &[]).is_err());
        assert!(resolve_columns(&["0".into()], &[]).is_err());
    }

    /// The shards (content, records) that record-by-record splitting gives, by the rules of
    /// [`Splitter::seq_chunk`] for `-n` and `-b` (`None`: the run must fail).
    fn model(data: &[u8], mode: &Mode, header: bool, repeat: bool) -> Option<Vec<(Vec<u8>, u64)>> {
        let (mut pos, mut q, mut ends) = (0, false, Vec::new());
        crate::csv::records::scan_ends(data, &mut pos, &mut q, usize::MAX, &mut ends);
        if q {
            return None;
        }
        if ends.last().copied().unwrap_or(0) < data.len() {
            ends.push(data.len());
        }
        let mut start = 0;
        let mut head: &[u8] = &[];
        if header && !ends.is_empty() {
            start = ends.remove(0);
            head = &data[..start];
            if let Mode::Bytes(max) = mode
                && head.len() as u64 >= *max
            {
                return None;
            }
        }
        let total = (data.len() - start) as u128;
        let mut shards: Vec<(Vec<u8>, u64)> = Vec::new();
        let mut open = false;
        for e in ends {
            let len = (e - start) as u64;
            let full = match (open, mode) {
                (false, _) => true,
                (true, Mode::Bytes(max)) => {
                    let last = shards.last().expect("open");
                    last.1 > 0 && last.0.len() as u64 + len > *max
                }
                _ => false,
            };
            if full {
                let with = repeat || shards.is_empty();
                shards.push((if with { head.to_vec() } else { Vec::new() }, 0));
                open = true;
            }
            let c = shards.len() - 1;
            let last = shards.last_mut().expect("open");
            last.0.extend_from_slice(&data[start..e]);
            last.1 += 1;
            start = e;
            if let Mode::Chunks(n) = mode
                && (c as u64) + 1 < *n
                && (e - head.len()) as u128 * (*n as u128) >= (c as u128 + 1) * total
            {
                open = false;
            }
        }
        if let Mode::Chunks(n) = mode {
            while (shards.len() as u64) < *n {
                let with = repeat || shards.is_empty();
                shards.push((if with { head.to_vec() } else { Vec::new() }, 0));
            }
        }
        Some(shards)
    }

    fn csv_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            proptest::sample::select(b"aaaa,,\"\n\n\n\r\\.".to_vec()),
            0..160,
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]

        /// `Run::cut` (with pieces of a few bytes here, so every input crosses many) gives
        /// the shards of the record-by-record rules, for `-n` and `-b`, with and without a
        /// (repeated) header, and fails where they fail (an unterminated quote, a header that
        /// leaves no room).
        #[test]
        fn cuts_follow_the_record_rules(
            data in csv_bytes(),
            chunks in proptest::prelude::any::<bool>(),
            n in 1u64..9,
            max in 1u64..40,
            header in proptest::prelude::any::<bool>(),
            repeat in proptest::prelude::any::<bool>(),
        ) {
            use clap::Parser;
            let dir = tempfile::tempdir().unwrap();
            let tmpl = dir.path().join("{n:02}.csv");
            let (flag, val) = if chunks { ("-n", n) } else { ("-b", max) };
            let mut argv = vec![
                "csvsplit".to_string(),
                flag.into(),
                val.to_string(),
                "-q".into(),
                "-o".into(),
                tmpl.to_string_lossy().into_owned(),
            ];
            if header {
                argv.push("--header".into());
                if !repeat {
                    argv.push("--no-repeat-header".into());
                }
            }
            let cfg = Config::from_args(super::super::Args::try_parse_from(argv).unwrap()).unwrap();
            let shared: Shared = Arc::new(data.clone());
            let got = Run::new(&cfg, "in.csv".into(), data.len() as u64, None).cut(&shared, false);
            let want = model(&data, &cfg.mode, header, repeat);
            match (got, want) {
                (Err(_), None) => {}
                (Ok(split), Some(want)) => {
                    let got: Vec<(Vec<u8>, u64)> = split
                        .shards
                        .iter()
                        .map(|d| (std::fs::read(&d.path).unwrap(), d.records))
                        .collect();
                    proptest::prop_assert_eq!(got, want);
                }
                (got, want) => proptest::prop_assert!(false, "{:?} against {:?}", got.map(|s| s.shards), want),
            }
        }
    }
}
