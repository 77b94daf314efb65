//! gzip output as a series of members, one per fixed-size block of input, compressed with
//! libdeflate (on a pool's threads when one is given). The bytes depend only on the data,
//! the level and the block size, never on how the writes were cut or on the thread count,
//! and every gzip reader reads concatenated members (RFC 1952; pigz and bgzip write them).
//!
//! Hand-written because no crate does it: flate2 and libdeflater compress one stream on one
//! thread, and the parallel gzip crates (gzp) prime each block with the previous one's
//! dictionary, which ties a block to the one before it. Independent 1 MiB members cost
//! under 0.1% of size against one stream (the 32 KiB window is small next to the block).

use rayon::prelude::*;
use std::io::{self, Write};
use std::sync::Arc;

/// Input bytes per gzip member.
pub const BLOCK: usize = 1 << 20;

/// A writer compressing into gzip members of [`BLOCK`] bytes of input each.
///
/// Memory: up to `batch` blocks of input and their compressed members, `batch` being the
/// pool's thread count (1 without a pool): about 2 MiB per thread.
pub struct GzBlocks<W: Write> {
    w: W,
    level: libdeflater::CompressionLvl,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Full blocks waiting to be compressed, then the block being filled (last).
    blocks: Vec<Vec<u8>>,
    batch: usize,
    /// Compressed members, reused.
    outs: Vec<Vec<u8>>,
    /// True once a member was written (an empty input still gets one, empty, member).
    wrote: bool,
}

impl<W: Write> GzBlocks<W> {
    /// Compresses into `w` at `level` (1-9, as gzip's), on `pool` when given.
    pub fn new(w: W, level: u32, pool: Option<Arc<rayon::ThreadPool>>) -> GzBlocks<W> {
        let level = libdeflater::CompressionLvl::new(level.clamp(1, 9) as i32)
            .unwrap_or_else(|_| libdeflater::CompressionLvl::default());
        let batch = pool.as_ref().map_or(1, |p| p.current_num_threads().max(1));
        GzBlocks {
            w,
            level,
            pool,
            blocks: vec![Vec::with_capacity(BLOCK)],
            batch,
            outs: Vec::new(),
            wrote: false,
        }
    }

    /// The writer compressed into.
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Compresses and writes every block held (the last one may be partial).
    fn drain(&mut self, last: bool) -> io::Result<()> {
        let n = self.blocks.len();
        let full = if last { n } else { n - 1 };
        if full == 0 || (last && self.wrote && self.blocks[0].is_empty()) {
            return Ok(());
        }
        self.outs.resize_with(full, Vec::new);
        let level = self.level;
        let work = |(b, o): (&Vec<u8>, &mut Vec<u8>), c: &mut libdeflater::Compressor| {
            o.resize(c.gzip_compress_bound(b.len()), 0);
            let k = c
                .gzip_compress(b, o)
                .map_err(|e| io::Error::other(format!("gzip: {e}")))?;
            o.truncate(k);
            Ok::<_, io::Error>(())
        };
        let res: Vec<io::Result<()>> = match &self.pool {
            Some(p) if full > 1 => p.install(|| {
                self.blocks[..full]
                    .par_iter()
                    .zip(self.outs.par_iter_mut())
                    .map_init(|| libdeflater::Compressor::new(level), |c, x| work(x, c))
                    .collect()
            }),
            _ => {
                let mut c = libdeflater::Compressor::new(level);
                let pairs = self.blocks[..full].iter().zip(self.outs.iter_mut());
                pairs.map(|x| work(x, &mut c)).collect()
            }
        };
        for r in res {
            r?;
        }
        for o in &self.outs[..full] {
            self.w.write_all(o)?;
        }
        self.wrote = true;
        // Keep the emptied blocks' memory for the next ones.
        let rest = self.blocks.split_off(full);
        let mut old = std::mem::replace(&mut self.blocks, rest);
        if self.blocks.is_empty() {
            let mut b = old.pop().unwrap_or_default();
            b.clear();
            self.blocks.push(b);
        }
        Ok(())
    }

    /// Writes the last member and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.drain(true)?;
        Ok(self.w)
    }
}

impl<W: Write> Write for GzBlocks<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let len = buf.len();
        while !buf.is_empty() {
            let cur = self.blocks.last_mut().expect("a block being filled");
            let k = (BLOCK - cur.len()).min(buf.len());
            cur.extend_from_slice(&buf[..k]);
            buf = &buf[k..];
            if cur.len() == BLOCK {
                self.blocks.push(Vec::with_capacity(BLOCK));
                if self.blocks.len() > self.batch {
                    self.drain(false)?;
                }
            }
        }
        Ok(len)
    }

    /// Flushes what was written before; a partial block stays (flushing it would make the
    /// bytes depend on when flushes happen).
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gz(data: &[u8], pool: Option<Arc<rayon::ThreadPool>>, cut: usize) -> Vec<u8> {
        let mut g = GzBlocks::new(Vec::new(), 6, pool);
        for c in data.chunks(cut) {
            g.write_all(c).unwrap();
        }
        g.finish().unwrap()
    }

    #[test]
    fn same_bytes_whatever_the_writes_and_threads() {
        let data: Vec<u8> = (0..3 * BLOCK + 12345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let one = gz(&data, None, 1000);
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        );
        assert_eq!(one, gz(&data, Some(pool), 77777));
        assert_eq!(one, gz(&data, None, BLOCK));
        let mut back = Vec::new();
        flate2::read::MultiGzDecoder::new(&one[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, data);
        let empty = gz(b"", None, 1);
        let mut back = Vec::new();
        flate2::read::MultiGzDecoder::new(&empty[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back.is_empty() && !empty.is_empty());
        // Exactly one block: one member, no empty one after it.
        assert_eq!(
            gz(&data[..BLOCK], None, 5000),
            gz(&data[..BLOCK], None, BLOCK)
        );
    }
}
