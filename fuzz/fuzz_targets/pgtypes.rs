//! Fuzzes the PostgreSQL type validators (`pgtypes`): `parse_type` on arbitrary type names and
//! `PgType::check` on arbitrary values, with the helpers that must agree with `check`.
//!
//! Input: one flag byte; below 0xC0 it picks a type from a list and the rest is the value;
//! from 0xC0 up the rest is a type name, a NUL, and the value.
#![no_main]

use dumpshard::pg::types::{Catalog, PgType, int_value, parse_type, uuid_bytes};
use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &[
    "smallint",
    "integer",
    "bigint",
    "numeric",
    "numeric(10,2)",
    "numeric(3,0)",
    "numeric(5,-2)",
    "real",
    "double precision",
    "boolean",
    "date",
    "time",
    "time with time zone",
    "timestamp",
    "timestamp with time zone",
    "interval",
    "uuid",
    "json",
    "jsonb",
    "bytea",
    "text",
    "character varying(3)",
    "character(4)",
    "integer[]",
    "text[]",
    "numeric(4,1)[]",
    "date[]",
    "bytea[]",
    "jsonb[]",
    "character varying(2)[]",
    "_int4",
    "timestamp(3) with time zone[]",
];

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let cat = Catalog::default();
    let (ty, v) = if flags < 0xC0 {
        (parse_type(NAMES[flags as usize % NAMES.len()], &cat), rest)
    } else {
        let i = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
        let name = String::from_utf8_lossy(&rest[..i]);
        let ty = parse_type(&name, &cat);
        let _ = ty.name();
        (ty, rest.get(i + 1..).unwrap_or_default())
    };
    let ok = ty.check(v).is_ok();
    if matches!(ty, PgType::Int8) {
        assert_eq!(
            int_value(v).is_some(),
            ok,
            "int_value and bigint disagree on {v:?}"
        );
    }
    if matches!(ty, PgType::Uuid) && ok {
        assert!(
            uuid_bytes(v).is_some(),
            "uuid accepted without its bytes: {v:?}"
        );
    }
});
