//! A table's [`Shape`]: its columns, the form each one's values are compared in and its
//! primary key, from the manifest's types and the target's catalog (`pg_attribute`,
//! `pg_type`, `pg_range`). Apart because it is the one part that asks the catalog.

use crate::io::error::{Error, Result};
use crate::pg::types::PgType;
use crate::pg::types::canon::Form;
use crate::tools::csvload::plan::TablePlan;
use crate::tools::csvload::server_message;
use std::collections::HashMap;

/// The columns of a table as both sides are read: their types and which form the key.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Column names, in the CSV's order.
    pub names: Vec<String>,
    /// The forms their values are compared in: the manifest's types where it names them
    /// (the CSV holds values of those types; a target column of another type that cannot
    /// hold them exactly must show as a difference, issue 35), else the target's.
    pub types: Vec<Form>,
    /// Indexes (into `names`) of the primary key's columns, in the CSV's order (the buckets
    /// hash them so); empty: buckets by whole record.
    pub key: Vec<usize>,
    /// The same columns in the primary key's order, for messages (`key (b, a)=(10, 1)` for
    /// `PRIMARY KEY (b, a)`); the CSV's order when the catalog does not say.
    pub key_shown: Vec<usize>,
    /// Columns whose type's text is the same for equal values whatever the session that
    /// printed it ([`Form::prints_alike`]): compared as text in the first pass.
    pub plain: Vec<bool>,
    /// Columns whose target type is not the manifest's: `c (double precision in the
    /// manifest, real on the target)`.
    pub retyped: Vec<String>,
}

/// Reads the table's columns, types and primary key from the target's catalog, and puts
/// each column's values in the form of the manifest's type (or the target's, where the
/// manifest names none). Columns the catalog does not describe (a server without
/// `pg_attribute`) are compared as text.
pub fn shape(client: &mut postgres::Client, t: &TablePlan) -> Result<Shape> {
    let rows = client
        .query(
            "SELECT a.attname::text, a.atttypid::int8, a.atttypmod, \
                    format_type(a.atttypid, a.atttypmod), \
                    EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = a.attrelid \
                            AND i.indisprimary AND a.attnum = ANY (i.indkey)) \
             FROM pg_catalog.pg_attribute a \
             WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attnum",
            &[&t.sql_name()],
        )
        .map_err(|e| Error::Usage(format!("table {}: {}", t.display(), server_message(&e))))?;
    let mut cache = HashMap::new();
    let cat: Vec<(String, Form, String, bool)> = rows
        .iter()
        .map(|r| {
            let form = describe(client, r.get(1), r.get(2), &mut cache, 0);
            (r.get(0), form, r.get(3), r.get(4))
        })
        .collect();
    let names: Vec<String> = if t.columns.is_empty() {
        cat.iter().map(|c| c.0.clone()).collect()
    } else {
        t.columns.clone()
    };
    let mut types = Vec::with_capacity(names.len());
    let mut key = Vec::new();
    let mut retyped = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let manifest = t.types.get(i).and_then(|m| m.as_deref());
        let found = cat.iter().find(|c| &c.0 == n);
        if let Some((_, _, _, true)) = found {
            key.push(i);
        }
        let form = match (manifest, found) {
            (Some(m), Some((_, target, tname, _))) => {
                let mf = manifest_form(client, m, &mut cache);
                if !comparable(&mf, target) {
                    retyped.push(format!("{n} ({m} in the manifest, {tname} on the target)"));
                }
                mf
            }
            (Some(m), None) => manifest_form(client, m, &mut cache),
            (None, Some((_, target, _, _))) => target.clone(),
            (None, None) => Form::Base(PgType::Unknown("(not in the catalog)".into())),
        };
        types.push(form);
    }
    let pk_cols = cat.iter().filter(|c| c.3).count();
    if key.len() != pk_cols {
        // Part of the key is not loaded: buckets by whole record.
        key.clear();
    }
    let plain = types.iter().map(Form::prints_alike).collect();
    // The key's order for messages; a server whose catalog cannot say keeps the CSV's.
    let mut key_shown = key.clone();
    if let Ok(rows) = client.query(
        "SELECT a.attname::text FROM pg_catalog.pg_index i          JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)          WHERE i.indrelid = $1::text::regclass AND i.indisprimary          ORDER BY array_position(i.indkey::int2[], a.attnum)",
        &[&t.sql_name()],
    ) {
        let order: Vec<usize> = rows
            .iter()
            .filter_map(|r| names.iter().position(|n| *n == r.get::<_, String>(0)))
            .collect();
        let mut a = order.clone();
        let mut b = key.clone();
        a.sort_unstable();
        b.sort_unstable();
        if a == b {
            key_shown = order;
        }
    }
    Ok(Shape {
        names,
        types,
        key,
        key_shown,
        plain,
        retyped,
    })
}

/// Whether values of forms `a` and `b` compare alike: equal forms, where two types without a
/// form (compared as exact text either way) count as alike.
fn comparable(a: &Form, b: &Form) -> bool {
    match (a, b) {
        (Form::Base(PgType::Unknown(_)), Form::Base(PgType::Unknown(_))) => true,
        (Form::Range(x), Form::Range(y))
        | (Form::Multirange(x), Form::Multirange(y))
        | (Form::Array(x), Form::Array(y)) => comparable(x, y),
        (Form::Composite(x), Form::Composite(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| comparable(x, y))
        }
        _ => a == b,
    }
}

/// The form of a manifest's type name: a built-in type by its name; an enum, domain,
/// composite or range of the dump's schema as the target's catalog describes the type of
/// that name (the schema was loaded from the same dump).
fn manifest_form(
    client: &mut postgres::Client,
    name: &str,
    cache: &mut HashMap<(i64, i32), Form>,
) -> Form {
    let f = Form::from_name(name);
    if f.kind().is_some() {
        return f;
    }
    match client.query_opt("SELECT to_regtype($1)::oid::int8", &[&name]) {
        Ok(Some(r)) => match r.get::<_, Option<i64>>(0) {
            Some(oid) => describe(client, oid, -1, cache, 0),
            None => f,
        },
        _ => f,
    }
}

/// The form of type `oid` with modifier `typmod` on the target: domains as their base,
/// enums as text, ranges and multiranges by their subtype, composites by their fields,
/// arrays by their element, the rest by name ([`Form::from_name`]). A catalog that cannot
/// answer (another server kind) gives an unknown type, compared as exact text.
fn describe(
    client: &mut postgres::Client,
    oid: i64,
    typmod: i32,
    cache: &mut HashMap<(i64, i32), Form>,
    depth: usize,
) -> Form {
    if let Some(f) = cache.get(&(oid, typmod)) {
        return f.clone();
    }
    let f = describe_uncached(client, oid, typmod, cache, depth);
    cache.insert((oid, typmod), f.clone());
    f
}

fn describe_uncached(
    client: &mut postgres::Client,
    oid: i64,
    typmod: i32,
    cache: &mut HashMap<(i64, i32), Form>,
    depth: usize,
) -> Form {
    let unknown = |n: String| Form::Base(PgType::Unknown(n));
    if depth > 8 {
        return unknown(format!("(type {oid} nested too deeply)"));
    }
    let row = client.query_opt(
        "SELECT t.typtype::text, t.typcategory::text, t.typelem::int8, t.typbasetype::int8, \
                t.typtypmod, t.typrelid::int8, format_type(t.oid, $2) \
         FROM pg_catalog.pg_type t WHERE t.oid = $1::int8::oid",
        &[&oid, &typmod],
    );
    let Ok(Some(r)) = row else {
        return unknown(format!("(type {oid})"));
    };
    let (typtype, category, elem, base, base_mod, rel, name): (
        String,
        String,
        i64,
        i64,
        i32,
        i64,
        String,
    ) = (
        r.get(0),
        r.get(1),
        r.get(2),
        r.get(3),
        r.get(4),
        r.get(5),
        r.get(6),
    );
    match typtype.as_str() {
        "d" => describe(client, base, base_mod, cache, depth + 1),
        "e" => Form::Base(PgType::Text),
        "r" | "m" => {
            let col = if typtype == "r" {
                "rngtypid"
            } else {
                "rngmultitypid"
            };
            let sql = format!(
                "SELECT rngsubtype::int8 FROM pg_catalog.pg_range WHERE {col} = $1::int8::oid"
            );
            match client.query_opt(&sql, &[&oid]) {
                Ok(Some(r)) => {
                    let sub = Box::new(describe(client, r.get(0), -1, cache, depth + 1));
                    if typtype == "r" {
                        Form::Range(sub)
                    } else {
                        Form::Multirange(sub)
                    }
                }
                _ => unknown(name),
            }
        }
        "c" => {
            let fields = client.query(
                "SELECT a.atttypid::int8, a.atttypmod FROM pg_catalog.pg_attribute a \
                 WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped \
                 ORDER BY a.attnum",
                &[&rel],
            );
            match fields {
                Ok(rows) => Form::Composite(
                    rows.iter()
                        .map(|f| describe(client, f.get(0), f.get(1), cache, depth + 1))
                        .collect(),
                ),
                Err(_) => unknown(name),
            }
        }
        _ if category == "A" && elem != 0 => {
            Form::Array(Box::new(describe(client, elem, typmod, cache, depth + 1)))
        }
        _ => Form::from_name(&name),
    }
}
