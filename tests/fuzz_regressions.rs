//! Inputs found by the fuzz targets in fuzz/ (see fuzz/run.sh), each kept as a test so the
//! defect stays fixed without running a fuzzer.

use dumpshard::keys::{KeyType, encode};
use dumpshard::pg::types::PgType;

fn key(ty: KeyType, v: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    encode(ty, v, &mut out).ok().map(|()| out)
}

/// fuzz target `keys`: `0\v` passed csvcheck's bigint check (PostgreSQL trims C `isspace`,
/// which includes vertical tab) but the key encoder trimmed only `trim_ascii` whitespace and
/// rejected it, so pksort and csvsplit refused a value csvcheck and PostgreSQL accept.
#[test]
fn key_trims_vertical_tab_like_postgres() {
    assert!(PgType::Int8.check(b"0\x0b").is_ok());
    assert_eq!(key(KeyType::Int, b"0\x0b"), key(KeyType::Int, b"0"));
    assert_eq!(
        key(KeyType::Int, b"\x0b\x0c 42\x0b"),
        key(KeyType::Int, b"42")
    );
    // uuid_in trims nothing: a padded uuid is refused by PostgreSQL, csvcheck and the key
    // layer alike (one uuid parser, types::uuid_bytes).
    let u = b"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
    let mut padded = b"\x0b".to_vec();
    padded.extend_from_slice(u);
    assert!(key(KeyType::Uuid, u).is_some());
    assert!(PgType::Uuid.check(&padded).is_err());
    assert_eq!(key(KeyType::Uuid, &padded), None);
}
