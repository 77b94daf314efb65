//! Reading each side of a table: the CSV files (side 0), the target by `COPY ... TO STDOUT`
//! (side 1), and the sample of the first file that lets UTC `timestamptz` columns be compared
//! as text. Apart because it is where the files and the connection are read.

use super::catalog::Shape;
use super::diff::Pass;
use super::digest::{How, scan};
use crate::csv::records::{ChunkReader, split_fields_fast, strip_terminator};
use crate::io::error::{Error, Result};
use crate::pg::types::PgType;
use crate::pg::types::canon::Form;
use crate::tools::csvload::plan::{Plan, TablePlan, quote_ident};
use crate::tools::csvload::{load, server_message};

/// `COPY (SELECT <columns> FROM t) TO STDOUT (FORMAT csv, NULL '')`: NULL unquoted and
/// empty, '' quoted.
fn copy_out_sql(client: &mut postgres::Client, t: &TablePlan, shape: &Shape) -> String {
    let cols: Vec<String> = shape.names.iter().map(|c| quote_ident(c)).collect();
    format!(
        "COPY (SELECT {} FROM {}) TO STDOUT WITH (FORMAT csv, NULL '')",
        cols.join(", "),
        load::from_item(client, t)
    )
}

/// Records of a table's first CSV file that [`utc_columns`] looks at.
const SAMPLE_RECORDS: usize = 1000;

/// Compares the table's `timestamptz` columns as text in the first pass (marks them
/// [`Shape::plain`]) when the first records of its first CSV file print every one of them
/// in UTC, as the target's session does ([`SESSION`]): a dump taken under UTC then costs
/// no parse of them on either side. Sound whatever the rest of the file holds: equal texts
/// are equal instants, and a record whose text differs (another offset for the same
/// instant) only sends its bucket to the canonical pass, as a dump taken in another zone
/// sends every bucket. Measured on the issue-36 notes table (one `timestamptz` of five
/// columns, 1M rows): docs/benchmarks.md, "Ninth run". Only a regular file is looked at
/// (a pipe would be read twice), and best effort: a file that cannot be read here is
/// reported by the pass that reads it whole, as before.
///
/// [`SESSION`]: super::SESSION
pub(super) fn utc_columns(plan: &Plan, ti: usize, shape: &mut Shape) {
    let cols: Vec<usize> = (0..shape.types.len())
        .filter(|&i| !shape.plain[i] && shape.types[i] == Form::Base(PgType::TimestampTz))
        .collect();
    let Some(f) = plan.files.iter().find(|f| f.table == ti) else {
        return;
    };
    if cols.is_empty() || !std::fs::metadata(&f.path).is_ok_and(|m| m.is_file()) {
        return;
    }
    // Decompressed on this thread: a sample needs no reader threads left to wind down.
    let Ok(inp) = crate::io::input::open_with(Some(&f.path), false) else {
        return;
    };
    let mut cr = ChunkReader::new(inp.reader, &inp.name, 1 << 16);
    let Ok(Some(c)) = cr.next_chunk(Vec::new()) else {
        return;
    };
    let skip = usize::from(f.header);
    let recs = (skip..c.len().min(skip + SAMPLE_RECORDS)).map(|i| c.record(i));
    for k in utc_in(recs, &cols, plan.tables[ti].null.as_bytes()) {
        shape.plain[k] = true;
    }
}

/// Of the columns `cols`, those that hold a value in `recs` and whose every value there
/// ends in `+00` (a `timestamptz` printed in UTC; not `infinity`, nor a BC date). None
/// when a record does not split.
fn utc_in<'a>(recs: impl Iterator<Item = &'a [u8]>, cols: &[usize], null: &[u8]) -> Vec<usize> {
    let mut fields = Vec::new();
    let mut seen = vec![false; cols.len()];
    for rec in recs {
        let body = strip_terminator(rec);
        if split_fields_fast(rec, body, &mut fields).is_err() {
            return Vec::new();
        }
        for (j, &k) in cols.iter().enumerate() {
            match fields.get(k) {
                Some(f) if !f.is_null(body, null) => {
                    if !f.value(body).ends_with(b"+00") {
                        return Vec::new();
                    }
                    seen[j] = true;
                }
                _ => {}
            }
        }
    }
    cols.iter()
        .zip(seen)
        .filter_map(|(&k, s)| s.then_some(k))
        .collect()
}

/// Reads the CSV side (side 0) of table `ti` into `pass`.
pub(super) fn csv_side(
    plan: &Plan,
    ti: usize,
    shape: &Shape,
    how: How,
    pass: &mut Pass,
) -> Result<u64> {
    let t = &plan.tables[ti];
    let mut n = 0;
    // A file loaded as parts is read once, whole.
    for f in plan
        .files
        .iter()
        .filter(|f| f.table == ti && f.first_of_file())
    {
        let inp = crate::io::input::open(Some(&f.path))?;
        let name = inp.name.clone();
        n += scan(
            inp.reader,
            &name,
            f.header,
            shape,
            t.null.as_bytes(),
            how,
            &mut |h, x, rec| pass.take(0, shape, h, x, rec),
        )?;
    }
    Ok(n)
}

/// Reads the target side (side 1) of table `t` into `pass`.
pub(super) fn target_side(
    client: &mut postgres::Client,
    t: &TablePlan,
    shape: &Shape,
    how: How,
    pass: &mut Pass,
) -> Result<u64> {
    let sql = copy_out_sql(client, t, shape);
    let name = format!("table {} on the target", t.display());
    let err = |e: postgres::Error| Error::Usage(format!("{name}: {}", server_message(&e)));
    let r = client.copy_out(&sql).map_err(err)?;
    scan(r, &name, false, shape, b"", how, &mut |h, x, rec| {
        pass.take(1, shape, h, x, rec)
    })
}

#[cfg(test)]
mod tests {
    /// Which `timestamptz` columns the first pass may take as text: every value in the
    /// sample in UTC, NULLs (unquoted, equal to the NULL string) skipped; none when one
    /// value is at another offset, `infinity` or BC, or a record does not split.
    #[test]
    fn utc_columns_only_when_every_sampled_value_is_in_utc() {
        let utc = |csv: &str, null: &str| {
            let recs: Vec<&[u8]> = csv.split_inclusive('\n').map(str::as_bytes).collect();
            super::utc_in(recs.into_iter(), &[1, 2], null.as_bytes())
        };
        let a = "1,2026-01-01 00:00:00+00,\"2026-01-02 10:00:00.5+00\"\n";
        let b = "2,,2026-03-01 00:00:00+00\n";
        assert_eq!(utc(&format!("{a}{b}"), ""), vec![1, 2]);
        // A column with only NULLs in the sample stays canonical; a quoted empty field is a
        // value (COPY's CSV rule).
        assert_eq!(utc(b, ""), vec![2]);
        assert_eq!(
            utc("3,\"\",2026-03-01 00:00:00+00\n", ""),
            Vec::<usize>::new()
        );
        // Another NULL string: the empty field is a value.
        assert_eq!(utc(b, "\\N"), Vec::<usize>::new());
        for other in [
            "2026-01-01 05:45:00+05:45",
            "2026-01-01 01:00:00+01",
            "infinity",
            "0044-03-15 00:00:00+00 BC",
        ] {
            let c = format!("4,{other},2026-01-01 00:00:00+00\n");
            assert_eq!(utc(&format!("{a}{c}"), ""), Vec::<usize>::new(), "{other}");
        }
        assert_eq!(utc(&format!("{a}5,\"x\"y,1\n"), ""), Vec::<usize>::new());
    }
}
