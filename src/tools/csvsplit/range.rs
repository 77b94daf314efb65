//! `--by-range`: the split points that cut the key space into N ranges, from a uniform sample
//! of the input (as TeraSort does) or from a `--split-points` file, and the range of a key.
//!
//! Shard `i` holds the keys `k` with `p[i-1] <= k < p[i]` (encoded keys, so the typed order
//! of [`crate::keys`], NULLs where `--nulls` puts them), `p[-1]` and `p[N-1]` being minus and
//! plus infinity: the shards' key ranges are disjoint and in shard order, so sorting each shard
//! on its own (pksort) and concatenating them gives the whole input sorted.
//!
//! # How the sample size bounds the imbalance
//!
//! The sample is `s = N·m` records drawn uniformly (reservoir sampling, Vitter's algorithm R,
//! with a fixed seed so that a rerun cuts the same ranges); the split points are the sample's
//! keys of rank `m, 2m, …, (N-1)m`. Take the input's `n` records in key order (distinct keys).
//! A range holds more than `α·n/N` records only if, for some start position, the `α·n/N`
//! records from there hold fewer than `m` of the sample. For one start the sample count `X`
//! is binomial with mean `μ = s·α/N = α·m`, and the Chernoff bound gives
//! `P[X < (1-δ)μ] <= exp(-δ²μ/2)` with `δ = 1 - 1/α`. Over all `n` starts:
//!
//! `P[largest range > α·n/N] <= n · exp(-(1 - 1/α)² · α · m / 2)`
//!
//! (sampling without replacement only concentrates `X` more, by Hoeffding 1963, §6). This is
//! the bound of Blelloch et al., "A comparison of sorting algorithms for the Connection Machine
//! CM-2" (SPAA 1991), for sample sort with oversampling ratio `m`. With the default `m = 1000`
//! the largest range stays within 1.3× the mean except with probability below 10⁻⁶ for up to
//! 10⁹ records (exponent 34.6 > ln 10¹⁵), and within 1.5× below 10⁻³⁰. Duplicated keys are
//! outside the bound: all records of one key land in one range (they must, for the ranges to
//! be disjoint), so a key held by more than `n/N` records makes its range that large.
//!
//! Memory: the sample holds `s` encoded keys and two offsets (about `s · (key bytes + 40)`
//! bytes); `s` is capped at [`MAX_SAMPLE`] by lowering `m` when N is large.

use crate::csv::records::{Field, split_fields};
use crate::io::error::{Error, IoContext, Pos, Result};
use crate::keys::KeySpec;
use std::path::Path;

/// The largest sample, in records (bounds the sample's memory).
pub const MAX_SAMPLE: u64 = 1 << 20;

/// The seed of the sampler: fixed, so that the same input always gets the same ranges.
const SEED: u64 = 0x5eed_d0b5_4a2d;

/// How the split points were found.
#[derive(Debug, Clone)]
pub enum Source {
    /// From a sample of the input.
    Sample {
        /// Data records in the input.
        records: u64,
        /// Records in the sample.
        samples: u64,
        /// The sample size asked for per range (`m`).
        per_range: u64,
    },
    /// Read from this `--split-points` file.
    File(String),
}

/// The N-1 split points of N ranges.
#[derive(Debug, Clone)]
pub struct Points {
    /// Encoded keys, non-decreasing.
    pub encoded: Vec<Vec<u8>>,
    /// Each point as a CSV line without terminator: the key fields as they appear in the
    /// input (quotes kept), in key order.
    pub lines: Vec<Vec<u8>>,
    /// Each point's key values, for the manifest (`None` for NULL).
    pub values: Vec<Vec<Option<String>>>,
    /// Where they come from.
    pub source: Source,
}

impl Points {
    /// The range (shard) of an encoded key.
    #[inline]
    pub fn shard_of(&self, key: &[u8]) -> usize {
        self.encoded.partition_point(|p| p.as_slice() <= key)
    }

    /// Writes the points to `path`, one CSV line each (`--write-split-points`).
    pub fn write(&self, path: &Path) -> Result<()> {
        use std::io::Write;
        let mut f = crate::io::output::AtomicFile::create(path)?;
        for l in &self.lines {
            f.write_all(l).at(path)?;
            f.write_all(b"\n").at(path)?;
        }
        f.commit()
    }
}

/// The sample size per range actually used for `n` ranges: `per_range`, lowered so that the
/// whole sample stays within [`MAX_SAMPLE`].
pub fn per_range(n: u64, per_range: u64) -> u64 {
    per_range.min(MAX_SAMPLE / n.max(1)).max(1)
}

/// Samples `data` (a whole CSV, `header` first when set) and picks the split points of `n`
/// ranges. Scans every record boundary, but parses the key only of records that enter the
/// reservoir (about `s·ln(records/s)` of them).
pub fn sample(
    data: &[u8],
    name: &str,
    header: bool,
    spec: &KeySpec,
    n: u64,
    per_range_asked: u64,
) -> Result<Points> {
    let m = per_range(n, per_range_asked);
    let cap = (n * m) as usize;
    let mut rng = fastrand::Rng::with_seed(SEED);
    // (encoded key, record start, record end)
    let mut res: Vec<(Vec<u8>, usize, usize)> = Vec::with_capacity(cap.min(1 << 16));
    let mut fields: Vec<Field> = Vec::new();
    let (mut pos, mut q) = (0usize, false);
    let mut ends = Vec::new();
    let mut start = 0usize;
    let mut skip_header = header;
    let mut seen = 0u64;
    let encode = |rec: &[u8], start: usize, i: u64, fields: &mut Vec<Field>| {
        let mut k = Vec::new();
        spec.encode_record(rec, fields, &mut k).map_err(|msg| {
            let before = data.get(..start).unwrap_or_default();
            Error::input(
                Pos {
                    file: name.to_string(),
                    line: 1 + memchr::memchr_iter(b'\n', before).count() as u64,
                    byte: start as u64,
                    record: Some(i + 1 + u64::from(header)),
                },
                msg,
            )
        })?;
        Ok::<_, Error>(k)
    };
    while pos < data.len() {
        ends.clear();
        let begin = pos;
        crate::csv::records::scan_ends(data, &mut pos, &mut q, begin + (1 << 20), &mut ends);
        if pos >= data.len() && !q && ends.last().copied().unwrap_or(begin) < data.len() {
            // A last record without a newline (one ending inside quotes is left to the
            // splitting pass, which reports it).
            ends.push(data.len());
        }
        for &end in &ends {
            let (s, e) = (start, end);
            start = end;
            if skip_header {
                skip_header = false;
                continue;
            }
            let rec = data.get(s..e).unwrap_or_default();
            let i = seen;
            seen += 1;
            if res.len() < cap {
                let k = encode(rec, s, i, &mut fields)?;
                res.push((k, s, e));
            } else {
                let j = rng.u64(0..=i) as usize;
                if j < cap {
                    let k = encode(rec, s, i, &mut fields)?;
                    if let Some(slot) = res.get_mut(j) {
                        *slot = (k, s, e);
                    }
                }
            }
        }
    }
    res.sort_by(|a, b| a.0.cmp(&b.0));
    let mut pts = Points {
        encoded: Vec::new(),
        lines: Vec::new(),
        values: Vec::new(),
        source: Source::Sample {
            records: seen,
            samples: res.len() as u64,
            per_range: m,
        },
    };
    if res.is_empty() {
        return Ok(pts);
    }
    for k in 1..n as usize {
        let idx = k * res.len() / n as usize;
        if let Some((key, s, e)) = res.get(idx) {
            let rec = data.get(*s..*e).unwrap_or_default();
            pts.encoded.push(key.clone());
            pts.lines.push(spec.raw_key(rec));
            pts.values.push(spec.values(rec));
        }
    }
    Ok(pts)
}

/// Reads a `--split-points` file: one key per line (a CSV record of the key's columns in key
/// order, typed as `spec` says), non-decreasing in key order.
pub fn read(path: &Path, spec: &KeySpec) -> Result<Points> {
    let data = std::fs::read(path).at(path)?;
    let name = path.display().to_string();
    let pspec = spec.positional();
    let want = spec.parts.len();
    let (mut pos, mut q) = (0usize, false);
    let mut ends = Vec::new();
    crate::csv::records::scan_ends(&data, &mut pos, &mut q, usize::MAX, &mut ends);
    let at = |off: usize, i: usize| Pos {
        file: name.clone(),
        line: 1 + memchr::memchr_iter(b'\n', data.get(..off).unwrap_or_default()).count() as u64,
        byte: off as u64,
        record: Some(i as u64 + 1),
    };
    if q {
        let last = ends.last().copied().unwrap_or(0);
        return Err(Error::input(
            at(last, ends.len()),
            "the last split point ends inside a quoted value",
        ));
    }
    if ends.last().copied().unwrap_or(0) < data.len() {
        ends.push(data.len());
    }
    let mut pts = Points {
        encoded: Vec::new(),
        lines: Vec::new(),
        values: Vec::new(),
        source: Source::File(name.clone()),
    };
    let mut fields = Vec::new();
    let mut start = 0;
    for (i, &end) in ends.iter().enumerate() {
        let rec = data.get(start..end).unwrap_or_default();
        let s = start;
        start = end;
        split_fields(rec, &mut fields).map_err(|m| Error::input(at(s, i), m.to_string()))?;
        if fields.len() != want {
            return Err(Error::input(
                at(s, i),
                format!(
                    "a split point has {} field(s); the key has {want} column(s)",
                    fields.len()
                ),
            ));
        }
        let mut k = Vec::new();
        pspec
            .encode_record(rec, &mut fields, &mut k)
            .map_err(|m| Error::input(at(s, i), m))?;
        if pts.encoded.last().is_some_and(|p| *p > k) {
            return Err(Error::input(
                at(s, i),
                format!(
                    "split point {} is less than the one before: the points must be in key order",
                    pspec.display(rec)
                ),
            ));
        }
        pts.encoded.push(k);
        pts.lines
            .push(crate::csv::records::strip_terminator(rec).to_vec());
        pts.values.push(pspec.values(rec));
    }
    Ok(pts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyArg;

    fn spec(s: &str) -> KeySpec {
        let args: Vec<KeyArg> = s.split(',').map(|a| KeyArg::parse(a).unwrap()).collect();
        KeySpec::resolve("csvsplit", &args, &[], None, None, Vec::new()).unwrap()
    }

    #[test]
    fn sampled_points_cut_evenly() {
        let data: Vec<u8> = (0..10_000)
            .rev()
            .flat_map(|i| format!("x,{i}\n").into_bytes())
            .collect();
        let sp = spec("2:int");
        let p = sample(&data, "t", false, &sp, 4, 1000).unwrap();
        assert_eq!(p.encoded.len(), 3);
        let mut count = [0usize; 4];
        for i in 0..10_000 {
            let mut k = Vec::new();
            sp.encode_record(format!("x,{i}\n").as_bytes(), &mut Vec::new(), &mut k)
                .unwrap();
            count[p.shard_of(&k)] += 1;
        }
        // 4000 samples of 10000 records: every range near 2500.
        assert!(
            count.iter().all(|&c| (2000..3000).contains(&c)),
            "{count:?}"
        );
        let mid: i64 = String::from_utf8(p.lines[1].clone())
            .unwrap()
            .parse()
            .unwrap();
        assert!((4500..5500).contains(&mid), "{mid}");
    }

    #[test]
    fn file_points() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p");
        std::fs::write(&f, "2,\"a\"\n10,b\n").unwrap();
        let p = read(&f, &spec("3:int,1")).unwrap();
        assert_eq!(p.lines, vec![b"2,\"a\"".to_vec(), b"10,b".to_vec()]);
        std::fs::write(&f, "10,b\n2,a\n").unwrap();
        assert!(read(&f, &spec("3:int,1")).is_err(), "decreasing");
        std::fs::write(&f, "10\n").unwrap();
        assert!(
            read(&f, &spec("3:int,1")).is_err(),
            "one field for two columns"
        );
    }
}
