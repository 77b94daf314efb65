//! The last stage: records arrive in key order and are written byte for byte, with the
//! duplicate-key policy applied on the way (equal keys are adjacent by then).

use super::batch::Loc;
use super::spec::KeySpec;
use crate::io::error::{Error, IoContext, Pos, Result};
use std::io::Write;

/// What to do with records whose keys are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnDup {
    /// Stop with an error naming both records (a primary-key import would fail anyway).
    Error,
    /// Keep them all, in input order.
    Keep,
    /// Keep the first in input order, drop the others.
    First,
    /// Keep the last in input order, drop the others.
    Last,
}

/// The error for two records with the same key under `--on-dup error`.
pub fn dup_error(spec: &KeySpec, rec: &[u8], first: Pos, second: Pos) -> Error {
    let of = if first.file == second.file {
        String::new()
    } else {
        format!(" of {}", first.file)
    };
    Error::input(
        second,
        format!(
            "duplicate key {}: same key as line {} (record {}){of}; use --on-dup \
             keep|first|last to allow duplicates",
            spec.display(rec),
            first.line,
            first.record.unwrap_or(0),
        ),
    )
}

/// Writes sorted records, applying the duplicate policy.
pub struct Emitter<'a, W: Write, D: Write> {
    out: &'a mut W,
    out_name: String,
    dups: Option<&'a mut D>,
    dups_name: String,
    policy: OnDup,
    spec: &'a KeySpec,
    prev_key: Vec<u8>,
    prev_loc: Loc,
    has_prev: bool,
    held: Vec<u8>,
    has_held: bool,
    group_reported: bool,
    /// Records written to the main output.
    pub written: u64,
    /// Records that shared their key with another (written to `--dups-out` when given).
    pub duplicates: u64,
}

/// Writes `rec`, adding a newline when the input's last record had none.
#[inline]
fn put(w: &mut impl Write, rec: &[u8]) -> std::io::Result<()> {
    w.write_all(rec)?;
    if rec.last() != Some(&b'\n') {
        w.write_all(b"\n")?;
    }
    Ok(())
}

impl<'a, W: Write, D: Write> Emitter<'a, W, D> {
    /// A new stage writing to `out` (and dropped or duplicated records to `dups`).
    pub fn new(
        out: &'a mut W,
        out_name: String,
        dups: Option<(&'a mut D, String)>,
        policy: OnDup,
        spec: &'a KeySpec,
    ) -> Self {
        let (dups, dups_name) = match dups {
            Some((d, n)) => (Some(d), n),
            None => (None, String::new()),
        };
        Emitter {
            out,
            out_name,
            dups,
            dups_name,
            policy,
            spec,
            prev_key: Vec::new(),
            prev_loc: Loc::default(),
            has_prev: false,
            held: Vec::new(),
            has_held: false,
            group_reported: false,
            written: 0,
            duplicates: 0,
        }
    }

    fn out(&mut self, rec: &[u8]) -> Result<()> {
        self.written += 1;
        put(self.out, rec).at(&self.out_name)
    }

    fn dup(&mut self, rec: &[u8]) -> Result<()> {
        self.duplicates += 1;
        match self.dups.as_mut() {
            Some(d) => put(d, rec).at(&self.dups_name),
            None => Ok(()),
        }
    }

    /// Takes the next record in key order. `pos` turns a [`Loc`] into a position for the
    /// duplicate error.
    pub fn push(
        &mut self,
        key: &[u8],
        rec: &[u8],
        loc: Loc,
        pos: &dyn Fn(Loc) -> Pos,
    ) -> Result<()> {
        let same = self.has_prev && key == self.prev_key.as_slice();
        match self.policy {
            OnDup::Error => {
                if same {
                    return Err(dup_error(self.spec, rec, pos(self.prev_loc), pos(loc)));
                }
                self.out(rec)?;
            }
            OnDup::Keep => {
                self.out(rec)?;
                if same {
                    // The group's first record is only known to be a duplicate now.
                    if !self.group_reported {
                        self.group_reported = true;
                        let held = std::mem::take(&mut self.held);
                        self.dup(&held)?;
                        self.held = held;
                    }
                    self.dup(rec)?;
                } else {
                    self.group_reported = false;
                    if self.dups.is_some() {
                        self.held.clear();
                        self.held.extend_from_slice(rec);
                    }
                }
            }
            OnDup::First => {
                if same {
                    self.dup(rec)?;
                } else {
                    self.out(rec)?;
                }
            }
            OnDup::Last => {
                if self.has_held {
                    let held = std::mem::take(&mut self.held);
                    if same {
                        self.dup(&held)?;
                    } else {
                        self.out(&held)?;
                    }
                    self.held = held;
                }
                self.held.clear();
                self.held.extend_from_slice(rec);
                self.has_held = true;
            }
        }
        self.prev_key.clear();
        self.prev_key.extend_from_slice(key);
        self.prev_loc = loc;
        self.has_prev = true;
        Ok(())
    }

    /// Writes what is still held back (the last group under `--on-dup last`).
    pub fn finish(mut self) -> Result<(u64, u64)> {
        if self.has_held {
            let held = std::mem::take(&mut self.held);
            self.out(&held)?;
        }
        Ok((self.written, self.duplicates))
    }
}
