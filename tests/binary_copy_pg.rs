//! The binary COPY encoders (dumpshard::pg::types::binary) held to PostgreSQL: every value,
//! loaded once as CSV (the server's text input) and once in binary (the encoder's bytes),
//! must read back as the same text, and a value the text input refuses must not load in
//! binary. The values are edge cases and values PostgreSQL printed itself (random, seeded),
//! in a session whose TimeZone is not UTC, so an offset read wrongly shows.

use crate::support::pg;
use dumpshard::pg::types::binary::{BinType, HEADER, TRAILER, push_null, push_value};
use std::io::Write;

/// Column types under test: (SQL type, type OID of the column's base type).
const TYPES: &[(&str, u32)] = &[
    ("boolean", 16),
    ("smallint", 21),
    ("integer", 23),
    ("bigint", 20),
    ("numeric", 1700),
    ("numeric(10,2)", 1700),
    ("numeric(4,-2)", 1700),
    ("date", 1082),
    ("timestamp", 1114),
    ("timestamp(3)", 1114),
    ("timestamptz", 1184),
    ("timestamptz(0)", 1184),
    ("text", 25),
    ("varchar(5)", 1043),
    ("char(4)", 1042),
    ("json", 114),
    ("jsonb", 3802),
    ("uuid", 2950),
    ("double precision", 701),
    ("time", 1083),
    ("time(2)", 1083),
];

/// Values every column is tried with, whatever its type (most are refused by most types).
const EDGES: &[&str] = &[
    "",
    "0",
    "-0",
    "007",
    "-32768",
    "32767",
    "32768",
    "-2147483648",
    "2147483648",
    "9223372036854775807",
    "-9223372036854775809",
    "+1",
    " 1",
    "1 ",
    "t",
    "f",
    "true",
    "0.00",
    "-0.00",
    "-0.0001",
    ".5",
    "5.",
    "1.005",
    "12345678.995",
    "99999999.995",
    "-150",
    "149.99",
    "1e5",
    "NaN",
    "Infinity",
    "100000000000000000000000000000000000000.000000000000000000000000000000001",
    "2000-01-01",
    "1999-12-31",
    "0001-01-01",
    "9999-12-31",
    "2024-02-29",
    "2023-02-29",
    "2000-01-01 00:00:00",
    "2000-01-01 24:00:00",
    "2026-10-27 20:56:04.281841+00",
    "2026-10-27 20:56:04.2818415+00",
    "2026-10-27 20:56:04.9999995",
    "1970-01-01 00:00:00.5-03:30",
    "1900-06-30 23:59:59.999999+15",
    "2026-01-01 00:00:00+05:45",
    "2026-01-01 00:00:00+00:53:28",
    "0001-01-01 00:00:00+01",
    "9999-12-31 23:59:59.999999-15:59",
    "2026-01-01 12:00:00 BC",
    "infinity",
    "abcde",
    "abcdef",
    "abcde   ",
    "ab",
    "x\u{e9}\u{20ac}\u{1f600}",
    "{\"a\": [1, 2.50, \"x\\\"y\"], \"a\": null}",
    "[1, {}]",
    "{bad json",
    "\"\\u0000\"",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
    "{a0eebc999c0b4ef8bb6d6bb9bd380a11}",
    "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
    "1.5e+30",
    "-1.5E+30",
    "1e-05",
    "3.4028235e+38",
    "3.4028236e+38",
    "1e39",
    "1e-46",
    "1.4e-45",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e+308",
    "1.8e+308",
    "-0",
    "0.000",
    "0e5",
    "0.1",
    "123456789012345678901234567890",
    "1.e5",
    ".5e1",
    "NaN",
    "-Infinity",
    "00:00:00",
    "23:59:59.999999",
    "23:59:59.9999995",
    "24:00:00",
    "12:30",
    "12:30:00.123",
    "12:30:60",
];

/// Random values PostgreSQL prints for `ty` (seeded), as pg_dump's session would write them.
fn printed(c: &mut postgres::Client, ty: &str) -> Vec<String> {
    let expr = match ty {
        "boolean" => "random() < 0.5",
        "smallint" => "(floor(random() * 65536) - 32768)::smallint",
        "integer" => "(floor(random() * 4294967296) - 2147483648)::bigint::integer",
        "bigint" => "floor((random() - 0.5) * 1.8e19)::numeric::bigint",
        "date" => "'0001-01-01'::date + floor(random() * 3652058)::int",
        "uuid" => "md5(random()::text)::uuid",
        "double precision" => {
            "(CASE WHEN random() < 0.05 THEN '-0' ELSE (random() - 0.5) * 10 ^ (random() * 600 - 300) END)"
        }
        "time" | "time(2)" => "'00:00:00'::time + random() * interval '24 hours'",
        "timestamp" | "timestamp(3)" | "timestamptz" | "timestamptz(0)" => {
            "'0001-01-01 00:00:00+00'::timestamptz + random() * interval '3652058 days'"
        }
        // Within the typmod's range, with more digits than its scale (rounded on input).
        "numeric(10,2)" => "round(((random() - 0.5) * 1.99e8)::numeric, floor(random() * 5)::int)",
        "numeric(4,-2)" => "round(((random() - 0.5) * 1.99e6)::numeric, floor(random() * 3)::int)",
        "numeric" => {
            "round(((random() - 0.5) * 10 ^ (random() * 40 - 20))::numeric, floor(random() * 25)::int)"
        }
        _ => return Vec::new(),
    };
    let q = format!("SELECT (({expr})::{ty})::text FROM generate_series(1, 150)");
    c.batch_execute("SELECT setseed(0.42)").unwrap();
    c.query(&q, &[])
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect()
}

fn csv_quote(v: &str) -> String {
    format!("\"{}\"", v.replace('"', "\"\""))
}

/// The value `v` loaded into `tab`'s one column as CSV; the column's text, or the error.
fn via_text(c: &mut postgres::Client, tab: &str, v: &str) -> Result<String, String> {
    c.batch_execute(&format!("TRUNCATE {tab}")).unwrap();
    let mut w = c
        .copy_in(&format!("COPY {tab} (v) FROM STDIN (FORMAT csv)"))
        .unwrap();
    w.write_all(format!("{}\n", csv_quote(v)).as_bytes())
        .unwrap();
    w.finish().map_err(|e| e.to_string())?;
    Ok(c.query_one(&format!("SELECT v::text FROM {tab}"), &[])
        .unwrap()
        .get(0))
}

/// The same through the binary encoder: `None` when it leaves the value to text.
fn via_binary(
    c: &mut postgres::Client,
    tab: &str,
    t: BinType,
    v: &str,
) -> Option<Result<String, String>> {
    let mut data = HEADER.to_vec();
    data.extend_from_slice(&1i16.to_be_bytes());
    if !push_value(t, v.as_bytes(), &mut data) {
        return None;
    }
    // A second tuple with a NULL, so the field count and NULL are exercised too.
    data.extend_from_slice(&1i16.to_be_bytes());
    push_null(&mut data);
    data.extend_from_slice(TRAILER);
    c.batch_execute(&format!("TRUNCATE {tab}")).unwrap();
    let mut w = c
        .copy_in(&format!("COPY {tab} (v) FROM STDIN (FORMAT binary)"))
        .unwrap();
    w.write_all(&data).unwrap();
    if let Err(e) = w.finish() {
        return Some(Err(e.to_string()));
    }
    let rows = c
        .query(
            &format!("SELECT v::text FROM {tab} ORDER BY v IS NULL"),
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].get::<_, Option<String>>(0), None);
    Some(Ok(rows[0].get(0)))
}

#[test]
fn binary_values_load_as_their_text_does() {
    let Some(pg) = pg::Pg::start() else {
        return;
    };
    pg.createdb("bin");
    let mut c = postgres::Config::new()
        .host_path(pg.socket_dir())
        .port(pg.port())
        .user(pg::SUPERUSER)
        .dbname("bin")
        .connect(postgres::NoTls)
        .unwrap();
    // Not UTC, and with a DST rule: an offset taken as local time shows as a different text.
    c.batch_execute("SET TimeZone = 'America/St_Johns'; SET DateStyle = ISO")
        .unwrap();
    let mut encoded = 0;
    for (k, &(ty, oid)) in TYPES.iter().enumerate() {
        let t = BinType::from_oid(oid).expect("an encoder");
        let (ta, tb) = (format!("a{k}"), format!("b{k}"));
        for tab in [&ta, &tb] {
            c.batch_execute(&format!("CREATE TABLE {tab} (v {ty})"))
                .unwrap();
        }
        let mut values: Vec<String> = EDGES.iter().map(|s| s.to_string()).collect();
        values.extend(printed(&mut c, ty));
        for v in &values {
            let Some(bin) = via_binary(&mut c, &tb, t, v) else {
                continue;
            };
            encoded += 1;
            let text = via_text(&mut c, &ta, v);
            match (&text, &bin) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{ty} {v:?}: text and binary differ"),
                (Err(_), Err(_)) => {}
                _ => panic!("{ty} {v:?}: text {text:?}, binary {bin:?}"),
            }
        }
    }
    assert!(encoded > 1000, "only {encoded} values encoded");
}
