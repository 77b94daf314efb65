//! A property of the verifier: mutate the extensions of a valid chain (remove, repeat, flip
//! criticality, write other values, add extensions) and the verifier never accepts what
//! `openssl verify` with libpq's settings refuses, and refuses what it accepts only in a
//! documented way.

use super::corpus::{Chain, HOST, openssl_verdict};
use super::x509::*;
use proptest::prelude::*;

/// Values an extension may be given.
fn values(oid: &str) -> Vec<Vec<u8>> {
    let garbage = utf8("garbage");
    match oid {
        id::BC => vec![
            bc(true, None),
            bc(false, None),
            bc(true, Some(0)),
            bc(true, Some(1)),
            bc(false, Some(0)),
            bc(true, Some(-1)),
            bc(true, Some(300)),
            garbage,
        ],
        id::KU => vec![
            named_bits(0),
            named_bits(ku::DIGITAL_SIGNATURE),
            named_bits(ku::KEY_CERT_SIGN),
            named_bits(ku::KEY_CERT_SIGN | ku::CRL_SIGN),
            named_bits(ku::KEY_ENCIPHERMENT),
            named_bits(ku::KEY_AGREEMENT | ku::DIGITAL_SIGNATURE),
            garbage,
        ],
        id::EKU => vec![
            eku(&[id::SERVER_AUTH]),
            eku(&[id::CLIENT_AUTH]),
            eku(&[id::ANY_EKU]),
            eku(&[id::NS_SGC]),
            eku(&[]),
            garbage,
        ],
        id::SAN => vec![
            general_names(&[Gn::dns(HOST)]),
            general_names(&[Gn::dns("other.example.org")]),
            general_names(&[Gn::Ip(vec![127, 0, 0, 1])]),
            general_names(&[]),
            garbage,
        ],
        id::SKID => vec![octets(b"0123456789abcdefghij"), octets(&[]), garbage],
        id::AKID => vec![akid(b"0123456789abcdefghij"), seq(&[]), garbage],
        id::NS_CERT_TYPE => vec![
            named_bits(ns::SSL_SERVER),
            named_bits(ns::SSL_CLIENT),
            named_bits(ns::SSL_CA),
            garbage,
        ],
        id::NC => vec![
            name_constraints(&[Gn::dns("example.com")], &[]),
            name_constraints(&[], &[Gn::dns(HOST)]),
        ],
        id::CRLDP => vec![
            crldp("http://crl.example.com/x.crl"),
            seq(&[seq(&[])]),
            garbage,
        ],
        id::POLICIES => vec![policies(&["2.23.140.1.2.1"]), garbage],
        _ => vec![utf8("x"), garbage],
    }
}

const OIDS: [&str; 12] = [
    id::BC,
    id::KU,
    id::EKU,
    id::SAN,
    id::SKID,
    id::AKID,
    id::NS_CERT_TYPE,
    id::NC,
    id::CRLDP,
    id::POLICIES,
    "1.2.3.4.7",
    id::AIA,
];

/// One change to one certificate's extensions.
#[derive(Debug, Clone)]
enum Edit {
    Remove(usize),
    Repeat(usize),
    Critical(usize, u8),
    Value(usize, usize),
    Add(usize, usize, u8),
}

fn crit_of(n: u8) -> Crit {
    [Crit::No, Crit::Yes, Crit::BerYes, Crit::ExplicitNo][n as usize % 4]
}

fn apply(c: &mut Chain, at: usize, e: &Edit) {
    let s = &mut c.specs[at];
    let n = s.exts.len();
    match *e {
        Edit::Remove(i) if n > 0 => {
            let removed = s.exts.remove(i % n);
            if removed.id == id::AKID {
                c.akid[at] = false;
            }
        }
        Edit::Repeat(i) if n > 0 => {
            let e = s.exts[i % n].clone();
            s.exts.push(e);
        }
        Edit::Critical(i, k) if n > 0 => s.exts[i % n].crit = crit_of(k),
        Edit::Value(i, v) if n > 0 => {
            let ext = &mut s.exts[i % n];
            let vals = values(&ext.id);
            ext.value = vals[v % vals.len()].clone();
            if ext.id == id::AKID {
                c.akid[at] = false;
            }
        }
        Edit::Add(o, v, k) => {
            let oid = OIDS[o % OIDS.len()];
            let vals = values(oid);
            if oid == id::AKID {
                c.akid[at] = false;
            }
            s.exts
                .push(Ext::new(oid, crit_of(k), vals[v % vals.len()].clone()));
        }
        _ => {}
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Remove),
        any::<usize>().prop_map(Edit::Repeat),
        (any::<usize>(), any::<u8>()).prop_map(|(i, k)| Edit::Critical(i, k)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, v)| Edit::Value(i, v)),
        (any::<usize>(), any::<usize>(), any::<u8>()).prop_map(|(o, v, k)| Edit::Add(o, v, k)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 160,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_extensions_never_accepted_where_openssl_refuses(
        edits in proptest::collection::vec((0usize..3, edit()), 1..4)
    ) {
        let mut c = Chain::of(3, "p256");
        for (at, e) in &edits {
            apply(&mut c, *at, e);
        }
        let case = c.case("mutated", false);
        let dir = tempfile::tempdir().unwrap();
        let reference = openssl_verdict(&case, dir.path());
        let verdict = super::ours(&case);
        match (&reference, &verdict) {
            (Err(e), Ok(())) => prop_assert!(false, "accepted what OpenSSL refuses ({e}): {edits:?}"),
            (Ok(()), Err((documented, why))) => prop_assert!(
                *documented,
                "refused what OpenSSL accepts, not documented: {why}: {edits:?}"
            ),
            _ => {}
        }
    }
}
