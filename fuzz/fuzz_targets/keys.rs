//! Fuzzes the key encoder (`keys::encode`): encodings are deterministic and prefix-free, and
//! their byte order is the typed order wherever a plain reference can tell it (integers,
//! floats, text, character(n)). Values the type validators accept must encode.
//!
//! Input: one flag byte (type), then two values separated by the first NUL.
#![no_main]

use dumpshard::keys::{KeyType, encode};
use dumpshard::pg::types::PgType;
use libfuzzer_sys::fuzz_target;
use std::cmp::Ordering;

const TYPES: [KeyType; 10] = [
    KeyType::Int,
    KeyType::Numeric,
    KeyType::Float,
    KeyType::Text,
    KeyType::Bpchar,
    KeyType::Uuid,
    KeyType::Bool,
    KeyType::Date,
    KeyType::Timestamp,
    KeyType::Timestamptz,
];

fn enc(ty: KeyType, v: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let r = encode(ty, v, &mut out).ok().map(|()| out);
    let mut again = Vec::new();
    assert_eq!(
        r.is_some(),
        encode(ty, v, &mut again).is_ok(),
        "deterministic"
    );
    if let Some(e) = &r {
        assert_eq!(e, &again, "deterministic");
    }
    r
}

/// Integer order by sign, digit count and digits: exact for any length.
fn int_cmp(a: &[u8], b: &[u8]) -> Option<Ordering> {
    fn parts(v: &[u8]) -> Option<(bool, &[u8])> {
        let v = std::str::from_utf8(v).ok()?.trim().as_bytes();
        let (neg, d) = match v.first()? {
            b'-' => (true, &v[1..]),
            b'+' => (false, &v[1..]),
            _ => (false, v),
        };
        if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let d = &d[d.iter().position(|&c| c != b'0').unwrap_or(d.len())..];
        Some((neg && !d.is_empty(), d))
    }
    let ((na, da), (nb, db)) = (parts(a)?, parts(b)?);
    let mag = da.len().cmp(&db.len()).then(da.cmp(db));
    Some(match (na, nb) {
        (false, false) => mag,
        (true, true) => mag.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    })
}

fn float_cmp(a: &[u8], b: &[u8]) -> Option<Ordering> {
    let p = |v: &[u8]| -> Option<f64> {
        let f: f64 = std::str::from_utf8(v).ok()?.trim().parse().ok()?;
        f.is_finite().then_some(f)
    };
    p(a)?.partial_cmp(&p(b)?)
}

fn trim_spaces(v: &[u8]) -> &[u8] {
    let n = v.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    &v[..n]
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let ty = TYPES[flags as usize % TYPES.len()];
    let (a, b) = match rest.iter().position(|&c| c == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &rest[..0]),
    };

    // A value csvcheck accepts must also be a good sort key for pksort and csvsplit.
    let validator = match ty {
        KeyType::Int => Some(PgType::Int8),
        KeyType::Uuid => Some(PgType::Uuid),
        _ => None,
    };
    if let Some(t) = validator {
        for v in [a, b] {
            if t.check(v).is_ok() {
                assert!(
                    enc(ty, v).is_some(),
                    "{} accepts {v:?} but the key encoder does not",
                    t.name()
                );
            }
        }
    }

    let (Some(ea), Some(eb)) = (enc(ty, a), enc(ty, b)) else {
        return;
    };
    if ea != eb {
        assert!(
            !ea.starts_with(&eb) && !eb.starts_with(&ea),
            "prefix-free: {ea:?} {eb:?}"
        );
    }
    let want = match ty {
        KeyType::Int => int_cmp(a, b),
        KeyType::Float => float_cmp(a, b),
        KeyType::Text => Some(a.cmp(b)),
        KeyType::Bpchar => Some(trim_spaces(a).cmp(trim_spaces(b))),
        _ => None,
    };
    if let Some(want) = want {
        assert_eq!(ea.cmp(&eb), want, "{ty} order of {a:?} and {b:?}");
    }
});
