//! The cases of the differential corpus (issue 60), by subject: chain shapes and key families,
//! signature algorithms and key types, versions, each extension OpenSSL reads (absent, with
//! other values, critical or not, twice, malformed), validity dates, issuer candidates,
//! signatures, encodings and root-file forms, revocation lists, key identifiers.

use super::corpus::{Case, Chain, HOST, ca_exts, vary, vary_exact};
use super::x509::*;

/// Every case of the corpus.
pub fn cases() -> Vec<Case> {
    let mut v = vec![];
    shapes(&mut v);
    algorithms(&mut v);
    versions(&mut v);
    basic_constraints(&mut v);
    key_usage(&mut v);
    ext_key_usage(&mut v);
    netscape(&mut v);
    name_constraints_cases(&mut v);
    duplicates(&mut v);
    critical(&mut v);
    dates(&mut v);
    issuers(&mut v);
    signatures(&mut v);
    encodings(&mut v);
    crls(&mut v);
    root_files(&mut v);
    key_ids(&mut v);
    misc(&mut v);
    v
}

fn shapes(v: &mut Vec<Case>) {
    for family in ["p256", "rsa", "p384", "ed25519", "mixed"] {
        for n in 1..=4 {
            let c = Chain::of(n, family);
            v.push(c.case(&format!("shape {family} length {n}"), false));
            if n > 1 {
                v.push(c.case(&format!("shape {family} length {n} root sent"), true));
            }
        }
    }
}

fn algorithms(v: &mut Vec<Case>) {
    use Hash::*;
    let rsa_sigs = [
        Sig::Rsa(Md5),
        Sig::Rsa(Sha1),
        Sig::Rsa(Sha224),
        Sig::Rsa(Sha256),
        Sig::Rsa(Sha384),
        Sig::Rsa(Sha512),
        Sig::Pss(Sha256, 32),
        Sig::Pss(Sha256, 20),
        Sig::Pss(Sha256, 222),
        Sig::Pss(Sha256, 0),
        Sig::Pss(Sha384, 48),
        Sig::Pss(Sha512, 64),
        Sig::Pss(Sha512, 190),
        Sig::Pss(Sha1, 20),
    ];
    for sig in rsa_sigs {
        // The server's certificate signed so (by an RSA intermediate), and the intermediate
        // signed so (by an RSA root).
        let mut c = Chain::of(3, "rsa");
        c.leaf().sig = Some(sig);
        let exact = matches!(sig, Sig::Pss(_, _));
        let case = c.case(&format!("server certificate signed {sig:?}"), false);
        v.push(if exact { case.exact() } else { case });
        let mut c = Chain::of(3, "rsa");
        c.specs[1].sig = Some(sig);
        let case = c.case(&format!("intermediate signed {sig:?}"), false);
        v.push(if exact { case.exact() } else { case });
    }
    for (fam, root_key) in [("p256", "p256-a"), ("p384", "p384-a")] {
        for h in [Sha1, Sha224, Sha256, Sha384, Sha512] {
            let mut c = Chain::new(&["p256-d", "p256-c", root_key]);
            c.leaf().sig = Some(Sig::Ecdsa(h));
            v.push(c.case(
                &format!("server certificate signed ECDSA {fam} {h:?}"),
                false,
            ));
            let mut c = Chain::new(&["p256-d", "p256-c", root_key]);
            c.specs[1].sig = Some(Sig::Ecdsa(h));
            v.push(c.case(
                &format!("intermediate signed by {fam} root ECDSA {h:?}"),
                false,
            ));
        }
    }
    // The root's own signature is not checked by OpenSSL (the trust anchor).
    for sig in [Sig::Rsa(Sha1), Sig::Rsa(Md5)] {
        let mut c = Chain::of(2, "rsa");
        c.root().sig = Some(sig);
        v.push(c.case(&format!("root self-signed {sig:?}"), false));
    }
    let kinds = [
        "rsa1024",
        "rsa3072",
        "rsa4096",
        "rsapss",
        "p224",
        "p521",
        "k256",
        "p256-explicit",
        "ed448",
        "dsa",
        "ed25519-a",
    ];
    for k in kinds {
        v.push(Chain::new(&[k, "p256-b", "p256-a"]).case(&format!("server key {k}"), false));
        v.push(Chain::new(&["p256-c", k, "p256-a"]).case(&format!("intermediate key {k}"), false));
        v.push(Chain::new(&["p256-c", "p256-b", k]).case(&format!("root key {k}"), false));
    }
}

fn versions(v: &mut Vec<Case>) {
    for (pos, what) in [(0, "server"), (1, "intermediate"), (2, "root")] {
        for ver in [Ver::V1, Ver::V1Explicit, Ver::V2, Ver::Other(3)] {
            vary(
                v,
                &format!("{what} version {ver:?} without extensions"),
                3,
                |c| {
                    c.specs[pos].version = ver;
                    c.specs[pos].exts.clear();
                    c.akid[pos] = false;
                },
            );
        }
        vary(v, &format!("{what} version V1 with extensions"), 3, |c| {
            c.specs[pos].version = Ver::V1;
        });
    }
    // PostgreSQL's recipe: a v1 server certificate under a v3 root, and a v1 root.
    vary(v, "v1 server certificate, v3 root (the recipe)", 2, |c| {
        c.leaf().version = Ver::V1;
        c.leaf().exts.clear();
    });
    vary(v, "v1 root and v1 server certificate", 2, |c| {
        for s in c.specs.iter_mut() {
            s.version = Ver::V1;
            s.exts.clear();
        }
    });
}

fn basic_constraints(v: &mut Vec<Case>) {
    vary(
        v,
        "intermediate without basicConstraints, keyUsage keyCertSign",
        3,
        |c| {
            c.specs[1].drop_ext(id::BC);
        },
    );
    vary(
        v,
        "intermediate without basicConstraints nor keyUsage",
        3,
        |c| {
            c.specs[1].drop_ext(id::BC);
            c.specs[1].drop_ext(id::KU);
        },
    );
    vary(v, "intermediate CA:FALSE", 3, |c| {
        c.specs[1].set_ext(Ext::new(id::BC, Crit::Yes, bc(false, None)));
    });
    vary(v, "intermediate basicConstraints not critical", 3, |c| {
        c.specs[1].set_ext(Ext::new(id::BC, Crit::No, bc(true, None)));
    });
    vary(
        v,
        "root without basicConstraints, keyUsage keyCertSign",
        2,
        |c| {
            c.root().drop_ext(id::BC);
        },
    );
    vary(v, "root without basicConstraints nor keyUsage", 2, |c| {
        c.root().drop_ext(id::BC);
        c.root().drop_ext(id::KU);
    });
    vary(v, "root CA:FALSE", 2, |c| {
        c.root()
            .set_ext(Ext::new(id::BC, Crit::Yes, bc(false, None)));
    });
    vary(v, "server certificate CA:TRUE", 2, |c| {
        c.leaf()
            .set_ext(Ext::new(id::BC, Crit::Yes, bc(true, None)));
    });
    vary(v, "server certificate CA:FALSE critical", 2, |c| {
        c.leaf()
            .set_ext(Ext::new(id::BC, Crit::Yes, bc(false, None)));
    });
    // pathLenConstraint: of the root and of each intermediate, over chains of 2 to 4.
    for n in 2..=4 {
        for pl in 0..=2 {
            let exact = n == 3 && pl == 0;
            let name = format!("root pathlen:{pl}, chain of {n}");
            let mut c = Chain::of(n, "p256");
            c.root()
                .set_ext(Ext::new(id::BC, Crit::Yes, bc(true, Some(pl))));
            let case = c.case(&name, false);
            v.push(if exact { case.exact() } else { case });
        }
    }
    for pl in 0..=1 {
        vary(
            v,
            &format!("upper intermediate pathlen:{pl}, chain of 4"),
            4,
            |c| {
                c.specs[2].set_ext(Ext::new(id::BC, Crit::Yes, bc(true, Some(pl))));
            },
        );
        vary(
            v,
            &format!("lower intermediate pathlen:{pl}, chain of 4"),
            4,
            |c| {
                c.specs[1].set_ext(Ext::new(id::BC, Crit::Yes, bc(true, Some(pl))));
            },
        );
    }
    for (pos, what) in [(1, "intermediate"), (2, "root")] {
        vary(v, &format!("{what} negative pathlen"), 3, |c| {
            c.specs[pos].set_ext(Ext::new(id::BC, Crit::Yes, bc(true, Some(-1))));
        });
        vary_exact(v, &format!("{what} pathlen:300"), 3, |c| {
            c.specs[pos].set_ext(Ext::new(id::BC, Crit::Yes, bc(true, Some(300))));
        });
    }
    vary(v, "intermediate CA:FALSE with pathlen", 3, |c| {
        c.specs[1].set_ext(Ext::new(id::BC, Crit::Yes, bc(false, Some(0))));
    });
    vary(v, "server certificate CA:FALSE with pathlen", 2, |c| {
        c.leaf()
            .set_ext(Ext::new(id::BC, Crit::Yes, bc(false, Some(0))));
    });
    // A self-issued intermediate (the root's name, another key) under a pathlen:0 root.
    for pl in [None, Some(0)] {
        vary(
            v,
            &format!("self-issued intermediate under root pathlen {pl:?}"),
            3,
            |c| {
                let root_name = c.root().subject.clone();
                c.specs[1].subject = root_name;
                c.root().set_ext(Ext::new(id::BC, Crit::Yes, bc(true, pl)));
            },
        );
    }
}

fn key_usage(v: &mut Vec<Case>) {
    let leaf = [
        ("absent", None),
        ("empty", Some(0)),
        ("digitalSignature", Some(ku::DIGITAL_SIGNATURE)),
        ("keyEncipherment", Some(ku::KEY_ENCIPHERMENT)),
        ("keyAgreement", Some(ku::KEY_AGREEMENT)),
        ("keyCertSign", Some(ku::KEY_CERT_SIGN)),
        ("cRLSign", Some(ku::CRL_SIGN)),
    ];
    for (what, mask) in leaf {
        vary(v, &format!("server keyUsage {what}"), 2, |c| match mask {
            None => c.leaf().drop_ext(id::KU),
            Some(m) => c.leaf().set_ext(Ext::new(id::KU, Crit::Yes, named_bits(m))),
        });
    }
    let ca = [
        ("absent", None),
        ("empty", Some(0)),
        ("digitalSignature only", Some(ku::DIGITAL_SIGNATURE)),
        ("cRLSign only", Some(ku::CRL_SIGN)),
        ("keyCertSign only", Some(ku::KEY_CERT_SIGN)),
    ];
    for (pos, who) in [(1, "intermediate"), (2, "root")] {
        for (what, mask) in ca {
            vary(v, &format!("{who} keyUsage {what}"), 3, |c| match mask {
                None => c.specs[pos].drop_ext(id::KU),
                Some(m) => c.specs[pos].set_ext(Ext::new(id::KU, Crit::Yes, named_bits(m))),
            });
        }
    }
    vary(v, "root keyUsage without keyCertSign, chain of 2", 2, |c| {
        c.root()
            .set_ext(Ext::new(id::KU, Crit::Yes, named_bits(ku::CRL_SIGN)));
    });
    vary(v, "server keyUsage not critical", 2, |c| {
        c.leaf().set_ext(Ext::new(
            id::KU,
            Crit::No,
            named_bits(ku::DIGITAL_SIGNATURE),
        ));
    });
    vary(
        v,
        "intermediate keyUsage not critical without keyCertSign",
        3,
        |c| {
            c.specs[1].set_ext(Ext::new(id::KU, Crit::No, named_bits(ku::CRL_SIGN)));
        },
    );
}

fn ext_key_usage(v: &mut Vec<Case>) {
    let sets: [(&str, Option<&[&str]>); 9] = [
        ("absent", None),
        ("serverAuth", Some(&[id::SERVER_AUTH])),
        ("clientAuth only", Some(&[id::CLIENT_AUTH])),
        ("anyExtendedKeyUsage only", Some(&[id::ANY_EKU])),
        ("Netscape SGC", Some(&[id::NS_SGC])),
        ("Microsoft SGC", Some(&[id::MS_SGC])),
        (
            "clientAuth and serverAuth",
            Some(&[id::CLIENT_AUTH, id::SERVER_AUTH]),
        ),
        ("codeSigning only", Some(&["1.3.6.1.5.5.7.3.3"])),
        ("empty", Some(&[])),
    ];
    for (what, set) in sets {
        vary(
            v,
            &format!("server extendedKeyUsage {what}"),
            2,
            |c| match set {
                None => c.leaf().drop_ext(id::EKU),
                Some(s) => c.leaf().set_ext(Ext::new(id::EKU, Crit::No, eku(s))),
            },
        );
    }
    for (pos, who) in [(1, "intermediate"), (2, "root")] {
        for (what, set) in [
            ("clientAuth only", &[id::CLIENT_AUTH][..]),
            ("serverAuth", &[id::SERVER_AUTH][..]),
            ("anyExtendedKeyUsage", &[id::ANY_EKU][..]),
        ] {
            vary(v, &format!("{who} extendedKeyUsage {what}"), 3, |c| {
                c.specs[pos].set_ext(Ext::new(id::EKU, Crit::No, eku(set)));
            });
        }
    }
}

fn netscape(v: &mut Vec<Case>) {
    let nst = |m: u16| named_bits(m);
    for (what, m) in [
        ("SSL client only", ns::SSL_CLIENT),
        ("SSL server", ns::SSL_SERVER),
        ("SSL client and server", ns::SSL_CLIENT | ns::SSL_SERVER),
        ("empty", 0),
    ] {
        let case = format!("server nsCertType {what}");
        let exact = m == ns::SSL_CLIENT;
        let mut c = Chain::of(2, "p256");
        c.leaf()
            .set_ext(Ext::new(id::NS_CERT_TYPE, Crit::No, nst(m)));
        let case = c.case(&case, false);
        v.push(if exact { case.exact() } else { case });
    }
    vary(v, "intermediate nsCertType SSL CA", 3, |c| {
        c.specs[1].set_ext(Ext::new(id::NS_CERT_TYPE, Crit::No, nst(ns::SSL_CA)));
    });
    vary(v, "intermediate nsCertType SSL client only", 3, |c| {
        c.specs[1].set_ext(Ext::new(id::NS_CERT_TYPE, Crit::No, nst(ns::SSL_CLIENT)));
    });
    vary(
        v,
        "intermediate without basicConstraints and keyUsage, nsCertType SSL CA",
        3,
        |c| {
            c.specs[1].drop_ext(id::BC);
            c.specs[1].drop_ext(id::KU);
            c.specs[1].set_ext(Ext::new(id::NS_CERT_TYPE, Crit::No, nst(ns::SSL_CA)));
        },
    );
    vary(
        v,
        "root without basicConstraints and keyUsage, nsCertType SSL CA",
        2,
        |c| {
            c.root().drop_ext(id::BC);
            c.root().drop_ext(id::KU);
            c.root()
                .set_ext(Ext::new(id::NS_CERT_TYPE, Crit::No, nst(ns::SSL_CA)));
        },
    );
    vary(
        v,
        "root without basicConstraints and keyUsage, nsCertType S/MIME CA",
        2,
        |c| {
            c.root().drop_ext(id::BC);
            c.root().drop_ext(id::KU);
            c.root()
                .set_ext(Ext::new(id::NS_CERT_TYPE, Crit::No, nst(ns::SMIME_CA)));
        },
    );
}

fn name_constraints_cases(v: &mut Vec<Case>) {
    let sets: [(&str, Vec<Gn>, Vec<Gn>); 3] = [
        (
            "permitting the server's name",
            vec![Gn::dns("example.com")],
            vec![],
        ),
        (
            "permitting another name",
            vec![Gn::dns("example.org")],
            vec![],
        ),
        ("excluding the server's name", vec![], vec![Gn::dns(HOST)]),
    ];
    for (pos, who) in [(1, "intermediate"), (2, "root")] {
        for crit in [Crit::Yes, Crit::No] {
            for (what, p, e) in &sets {
                let name = format!("{who} nameConstraints {what} ({crit:?} critical)");
                vary(v, &name, 3, |c| {
                    c.specs[pos].set_ext(Ext::new(id::NC, crit, name_constraints(p, e)));
                });
            }
        }
    }
}

fn duplicates(v: &mut Vec<Case>) {
    vary(
        v,
        "intermediate basicConstraints CA:FALSE then CA:TRUE",
        3,
        |c| {
            c.specs[1]
                .exts
                .insert(0, Ext::new(id::BC, Crit::Yes, bc(false, None)));
        },
    );
    vary(v, "intermediate basicConstraints twice CA:TRUE", 3, |c| {
        c.specs[1]
            .exts
            .insert(0, Ext::new(id::BC, Crit::Yes, bc(true, None)));
    });
    vary(v, "root basicConstraints twice", 2, |c| {
        c.root()
            .exts
            .push(Ext::new(id::BC, Crit::Yes, bc(true, None)));
    });
    vary(v, "intermediate keyUsage twice", 3, |c| {
        c.specs[1]
            .exts
            .push(Ext::new(id::KU, Crit::Yes, named_bits(ku::KEY_CERT_SIGN)));
    });
    for (what, e) in [
        (
            "subjectAltName",
            Ext::new(id::SAN, Crit::No, general_names(&[Gn::dns(HOST)])),
        ),
        (
            "keyUsage",
            Ext::new(id::KU, Crit::Yes, named_bits(ku::DIGITAL_SIGNATURE)),
        ),
        (
            "extendedKeyUsage",
            Ext::new(id::EKU, Crit::No, eku(&[id::SERVER_AUTH])),
        ),
        (
            "subjectKeyIdentifier",
            Ext::new(id::SKID, Crit::No, octets(b"0123456789abcdefghij")),
        ),
        (
            "an unknown extension",
            Ext::new("1.2.3.4.5", Crit::No, utf8("x")),
        ),
    ] {
        vary(v, &format!("server {what} twice"), 2, |c| {
            c.leaf().exts.push(e.clone());
            if what.contains("unknown") {
                c.leaf().exts.push(e.clone());
            }
        });
    }
}

fn critical(v: &mut Vec<Case>) {
    for (pos, who) in [(0, "server"), (1, "intermediate"), (2, "root")] {
        vary(v, &format!("{who} unknown critical extension"), 3, |c| {
            c.specs[pos]
                .exts
                .push(Ext::new("1.2.3.4", Crit::Yes, utf8("test")));
        });
    }
    let known = [
        (
            "certificatePolicies",
            id::POLICIES,
            policies(&["2.23.140.1.2.1"]),
        ),
        (
            "policyConstraints",
            id::POLICY_CONSTRAINTS,
            seq(&[ctx_prim(0, &[0])]),
        ),
        ("inhibitAnyPolicy", id::INHIBIT_ANY, int(0)),
        (
            "policyMappings",
            id::POLICY_MAPPINGS,
            seq(&[seq(&[oid("2.23.140.1.2.1"), oid("2.23.140.1.2.2")])]),
        ),
        (
            "cRLDistributionPoints",
            id::CRLDP,
            crldp("http://crl.example.com/root.crl"),
        ),
        (
            "subjectKeyIdentifier",
            id::SKID,
            octets(b"0123456789abcdefghij"),
        ),
        (
            "authorityInfoAccess",
            id::AIA,
            seq(&[seq(&[
                oid("1.3.6.1.5.5.7.48.1"),
                ctx_prim(6, b"http://ocsp.example.com"),
            ])]),
        ),
        (
            "issuerAltName",
            id::IAN,
            general_names(&[Gn::dns("ca.example.com")]),
        ),
        ("subjectAltName", id::SAN, general_names(&[Gn::dns(HOST)])),
        ("extendedKeyUsage", id::EKU, eku(&[id::SERVER_AUTH])),
    ];
    for (what, oid_, value) in known {
        for (pos, who) in [(0, "server"), (1, "intermediate")] {
            vary(v, &format!("{who} {what} critical"), 3, |c| {
                c.specs[pos].set_ext(Ext::new(oid_, Crit::Yes, value.clone()));
            });
        }
    }
    vary(v, "server authorityKeyIdentifier critical", 2, |c| {
        c.akid[0] = false;
        let k = pool().key(&c.specs[1].key).keyid.clone();
        c.leaf().set_ext(Ext::new(id::AKID, Crit::Yes, akid(&k)));
    });
    // Malformed values of extensions OpenSSL parses (it then takes the certificate as invalid)
    // and of one it does not look at.
    let garbage = utf8("not what it should be");
    for (what, oid_) in [
        ("subjectAltName", id::SAN),
        ("keyUsage", id::KU),
        ("basicConstraints", id::BC),
        ("extendedKeyUsage", id::EKU),
        ("cRLDistributionPoints", id::CRLDP),
        ("authorityKeyIdentifier", id::AKID),
        ("subjectKeyIdentifier", id::SKID),
        ("nsCertType", id::NS_CERT_TYPE),
        ("nameConstraints", id::NC),
        ("certificatePolicies", id::POLICIES),
        ("an unknown extension", "1.2.3.4.6"),
    ] {
        vary(v, &format!("server {what} malformed"), 2, |c| {
            if oid_ == id::AKID {
                c.akid[0] = false;
            }
            c.leaf().set_ext(Ext::new(oid_, Crit::No, garbage.clone()));
        });
    }
    vary(
        v,
        "server cRLDistributionPoints with an empty point",
        2,
        |c| {
            c.leaf()
                .set_ext(Ext::new(id::CRLDP, Crit::No, seq(&[seq(&[])])));
        },
    );
    vary(v, "server cRLDistributionPoints", 2, |c| {
        c.leaf().set_ext(Ext::new(
            id::CRLDP,
            Crit::No,
            crldp("http://crl.example.com/int.crl"),
        ));
    });
}

fn dates(v: &mut Vec<Case>) {
    let t = now();
    for (pos, who) in [(0, "server"), (1, "intermediate"), (2, "root")] {
        vary(v, &format!("{who} expired"), 3, |c| {
            c.specs[pos].not_before = Time::at(t - 400 * DAY);
            c.specs[pos].not_after = Time::at(t - 30 * DAY);
        });
        vary(v, &format!("{who} not valid yet"), 3, |c| {
            c.specs[pos].not_before = Time::at(t + 30 * DAY);
            c.specs[pos].not_after = Time::at(t + 400 * DAY);
        });
        vary_exact(v, &format!("{who} notBefore in 1960"), 3, |c| {
            c.specs[pos].not_before = Time::Utc(-315_619_200);
        });
        vary(v, &format!("{who} validity as GeneralizedTime"), 3, |c| {
            c.specs[pos].not_before = Time::Gen(t - DAY);
            c.specs[pos].not_after = Time::Gen(t + 30 * DAY);
        });
    }
    vary(v, "server notAfter 99991231235959Z", 2, |c| {
        c.leaf().not_after = Time::Raw(0x18, b"99991231235959Z".to_vec());
    });
    for (what, tag, text) in [
        ("without seconds", 0x17, &b"2001010000Z"[..]),
        ("with a time zone offset", 0x17, b"200101000000+0100"),
        ("with fractional seconds", 0x18, b"20200101000000.5Z"),
        ("month 13", 0x17, b"201301000000Z"),
        ("day 31 of April", 0x17, b"200431000000Z"),
    ] {
        vary(v, &format!("server notBefore {what}"), 2, |c| {
            c.leaf().not_before = Time::Raw(tag, text.to_vec());
        });
    }
    // A renewed root: an expired copy (same name and key) beside the valid one.
    for expired_first in [true, false] {
        let c = Chain::of(2, "p256");
        let certs = c.build();
        let mut old = c.specs[1].clone();
        old.not_before = Time::at(t - 800 * DAY);
        old.not_after = Time::at(t - 400 * DAY);
        old.serial += 7;
        let old_der = old.build(&old.key);
        let roots = if expired_first {
            pem("CERTIFICATE", &old_der) + &pem("CERTIFICATE", &certs[1])
        } else {
            pem("CERTIFICATE", &certs[1]) + &pem("CERTIFICATE", &old_der)
        };
        let case = Case {
            name: format!("renewed root, expired copy listed first: {expired_first}"),
            roots,
            sent: vec![certs[0].clone()],
            crl: None,
            exact: true,
            key: c.specs[0].key.clone(),
        };
        v.push(case);
    }
    // An expired intermediate sent beside the valid one (same name and key).
    for expired_first in [true, false] {
        let c = Chain::of(3, "p256");
        let certs = c.build();
        let mut old = c.specs[1].clone();
        old.not_before = Time::at(t - 800 * DAY);
        old.not_after = Time::at(t - 400 * DAY);
        old.serial += 9;
        old.issuer = c.specs[2].subject.clone();
        old.set_ext(Ext::new(
            id::AKID,
            Crit::No,
            akid(&pool().key(&c.specs[2].key).keyid),
        ));
        let old_der = old.build(&c.specs[2].key);
        let sent = if expired_first {
            vec![certs[0].clone(), old_der, certs[1].clone()]
        } else {
            vec![certs[0].clone(), certs[1].clone(), old_der]
        };
        v.push(Case {
            name: format!("expired intermediate sent beside the valid one, first: {expired_first}"),
            roots: pem("CERTIFICATE", &certs[2]),
            sent,
            crl: None,
            exact: true,
            key: c.specs[0].key.clone(),
        });
    }
}

fn issuers(v: &mut Vec<Case>) {
    // A same-named ECDSA root listed before the RSA root that signed the chain, with key
    // identifiers and without (then only the key type tells them apart).
    for with_ids in [true, false] {
        let mut c = Chain::of(2, "rsa");
        if !with_ids {
            c.akid[0] = false;
            c.root().drop_ext(id::SKID);
        }
        let certs = c.build();
        let mut ec_root = Chain::new(&["p256-a"]).specs.remove(0);
        ec_root.subject = c.specs[1].subject.clone();
        ec_root.issuer = c.specs[1].subject.clone();
        ec_root.exts = ca_exts("p256-a");
        if !with_ids {
            ec_root.drop_ext(id::SKID);
        }
        let ec_der = ec_root.build("p256-a");
        v.push(Case {
            name: format!("same-named ECDSA root listed before the RSA root, key ids: {with_ids}"),
            roots: pem("CERTIFICATE", &ec_der) + &pem("CERTIFICATE", &certs[1]),
            sent: vec![certs[0].clone()],
            crl: None,
            exact: true,
            key: c.specs[0].key.clone(),
        });
    }
    // A same-named root of another key of the same type listed first: with and without
    // key identifiers to tell them apart.
    for with_ids in [true, false] {
        let mut c = Chain::of(2, "p256");
        if !with_ids {
            c.akid[0] = false;
            c.root().drop_ext(id::SKID);
        }
        let certs = c.build();
        let mut other = c.specs[1].clone();
        other.key = "p256-e".into();
        if with_ids {
            other.set_ext(Ext::new(
                id::SKID,
                Crit::No,
                octets(&pool().key("p256-e").keyid),
            ));
        }
        let other_der = other.build("p256-e");
        v.push(Case {
            name: format!("same-named root of another key listed first, key ids: {with_ids}"),
            roots: pem("CERTIFICATE", &other_der) + &pem("CERTIFICATE", &certs[1]),
            sent: vec![certs[0].clone()],
            crl: None,
            exact: with_ids,
            key: c.specs[0].key.clone(),
        });
    }
    // Names that OpenSSL compares after canonicalising (case, spaces, string types).
    let variants: [(&str, Vec<u8>, Vec<u8>); 8] = [
        ("differing in case", name("Root CA"), name("ROOT ca")),
        ("differing in spaces", name("Root CA"), name("  Root   CA ")),
        (
            "PrintableString against UTF8String",
            name("Root CA"),
            name_of(&[&[(CN, Val::Printable("Root CA".into()))]]),
        ),
        (
            "BMPString against UTF8String",
            name("Root CA"),
            name_of(&[&[(CN, Val::Bmp("Root CA".into()))]]),
        ),
        (
            "NumericString against PrintableString",
            name_of(&[&[(CN, Val::Printable("123".into()))]]),
            name_of(&[&[(CN, Val::Raw(0x12, b"123".to_vec()))]]),
        ),
        (
            "attributes of a multi-valued RDN in another order",
            name_of(&[&[
                (O, Val::Utf8("Org".into())),
                (CN, Val::Utf8("Root CA".into())),
            ]]),
            name_of(&[&[
                (CN, Val::Utf8("Root CA".into())),
                (O, Val::Utf8("Org".into())),
            ]]),
        ),
        (
            "RDNs in another order",
            name_of(&[
                &[(O, Val::Utf8("Org".into()))],
                &[(CN, Val::Utf8("Root CA".into()))],
            ]),
            name_of(&[
                &[(CN, Val::Utf8("Root CA".into()))],
                &[(O, Val::Utf8("Org".into()))],
            ]),
        ),
        (
            "a non-ASCII letter differing in case",
            name("Root É"),
            name("Root é"),
        ),
    ];
    for (what, root_name, issuer_name) in variants {
        let mut c = Chain::of(2, "p256");
        c.root().subject = root_name.clone();
        c.root().issuer = root_name;
        c.keep_issuer[0] = true;
        c.leaf().issuer = issuer_name;
        v.push(c.case(&format!("issuer name {what}"), false).exact());
    }
    // What the server sends: the leaf twice, unrelated extra certificates, out of order.
    {
        let c = Chain::of(3, "p256");
        let certs = c.build();
        let stranger = Chain::of(2, "rsa").build();
        let roots = pem("CERTIFICATE", &certs[2]);
        for (what, sent) in [
            (
                "server certificate sent twice",
                vec![certs[0].clone(), certs[0].clone(), certs[1].clone()],
            ),
            (
                "intermediates out of order",
                vec![certs[0].clone(), certs[2].clone(), certs[1].clone()],
            ),
            (
                "unrelated certificates sent too",
                vec![
                    certs[0].clone(),
                    stranger[0].clone(),
                    stranger[1].clone(),
                    certs[1].clone(),
                ],
            ),
            ("intermediate not sent", vec![certs[0].clone()]),
        ] {
            v.push(Case {
                name: what.into(),
                roots: roots.clone(),
                sent,
                crl: None,
                exact: false,
                key: c.specs[0].key.clone(),
            });
        }
    }
    // Trusted first: the intermediate is in the root file too (and sent).
    {
        let c = Chain::of(3, "p256");
        let certs = c.build();
        v.push(Case {
            name: "intermediate in the root file and sent".into(),
            roots: pem("CERTIFICATE", &certs[2]) + &pem("CERTIFICATE", &certs[1]),
            sent: vec![certs[0].clone(), certs[1].clone()],
            crl: None,
            exact: false,
            key: c.specs[0].key.clone(),
        });
        v.push(Case {
            name: "intermediate in the root file, not sent".into(),
            roots: pem("CERTIFICATE", &certs[1]) + &pem("CERTIFICATE", &certs[2]),
            sent: vec![certs[0].clone()],
            crl: None,
            exact: false,
            key: c.specs[0].key.clone(),
        });
    }
}

fn signatures(v: &mut Vec<Case>) {
    vary(v, "server certificate signature bad", 3, |c| {
        c.leaf().bad_signature = true
    });
    vary(v, "intermediate signature bad", 3, |c| {
        c.specs[1].bad_signature = true
    });
    vary(
        v,
        "signature of the link into the root bad, chain of 2",
        2,
        |c| c.leaf().bad_signature = true,
    );
    vary(
        v,
        "signature of the link into the root bad, chain of 3",
        3,
        |c| c.specs[1].bad_signature = true,
    );
    vary(v, "root self-signature bad", 2, |c| {
        c.root().bad_signature = true
    });
    for (pos, who) in [(0, "server"), (1, "intermediate"), (2, "root")] {
        vary(
            v,
            &format!("{who} inner signature algorithm differs"),
            3,
            |c| {
                c.specs[pos].inner_alg = Some(Sig::Ecdsa(Hash::Sha384).alg_id());
            },
        );
    }
    {
        let mut c = Chain::of(2, "rsa");
        c.leaf().alg_override = Some(seq(&[oid("1.2.840.113549.1.1.11")]));
        v.push(c.case("RSA signature algorithm without NULL parameters", false));
    }
    vary(
        v,
        "ECDSA signature algorithm with NULL parameters",
        2,
        |c| {
            c.leaf().alg_override = Some(seq(&[oid("1.2.840.10045.4.3.2"), null()]));
        },
    );
    vary(
        v,
        "server certificate signed by another key of the issuer's name",
        3,
        |c| {
            c.signer[0] = Some("p256-f".into());
        },
    );
}

fn encodings(v: &mut Vec<Case>) {
    for (pos, who) in [(0, "server"), (1, "intermediate")] {
        vary_exact(v, &format!("{who} critical flag BER-encoded"), 3, |c| {
            let s = &mut c.specs[pos];
            let ku_ext = s.exts.iter_mut().find(|e| e.id == id::KU).unwrap();
            ku_ext.crit = Crit::BerYes;
        });
        vary(v, &format!("{who} critical FALSE written out"), 3, |c| {
            let s = &mut c.specs[pos];
            s.exts.push(Ext::new(
                id::POLICIES,
                Crit::ExplicitNo,
                policies(&["2.23.140.1.2.1"]),
            ));
        });
    }
    vary_exact(v, "server subjectAltName with a raw UTF-8 byte", 2, |c| {
        c.leaf().set_ext(Ext::new(
            id::SAN,
            Crit::No,
            general_names(&[
                Gn::dns(HOST),
                Gn::Dns("bücher.example.com".as_bytes().to_vec()),
            ]),
        ));
    });
    vary(v, "server subjectAltName with a NUL byte", 2, |c| {
        c.leaf().set_ext(Ext::new(
            id::SAN,
            Crit::No,
            general_names(&[Gn::Dns(b"db.example.com\0.evil.org".to_vec())]),
        ));
    });
    // The root file: text around and between the PEM blocks, bytes after the DER.
    let c = Chain::of(2, "p256");
    let certs = c.build();
    let other = Chain::of(2, "rsa").build();
    let root_pem = pem("CERTIFICATE", &certs[1]);
    let with_tail = {
        let mut d = certs[1].clone();
        d.extend([0x0a, 0x0a]);
        pem("CERTIFICATE", &d)
    };
    let files: Vec<(&str, String, bool)> = vec![
        (
            "text before the root",
            format!("My CA\nissued 2024\n{root_pem}"),
            true,
        ),
        (
            "text between roots",
            format!("{}xx\n{root_pem}", pem("CERTIFICATE", &other[1])),
            true,
        ),
        (
            "two stray bytes after the root",
            format!("{root_pem}xx"),
            true,
        ),
        ("two bytes after the root's DER", with_tail, true),
        (
            "root as X509 CERTIFICATE",
            pem("X509 CERTIFICATE", &certs[1]),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE without trust settings",
            pem("TRUSTED CERTIFICATE", &certs[1]),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE trusted for serverAuth",
            pem(
                "TRUSTED CERTIFICATE",
                &[certs[1].clone(), seq(&[seq(&[oid(id::SERVER_AUTH)])])].concat(),
            ),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE trusted for clientAuth only",
            pem(
                "TRUSTED CERTIFICATE",
                &[certs[1].clone(), seq(&[seq(&[oid(id::CLIENT_AUTH)])])].concat(),
            ),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE rejected for serverAuth",
            pem(
                "TRUSTED CERTIFICATE",
                &[certs[1].clone(), seq(&[ctx(0, &oid(id::SERVER_AUTH))])].concat(),
            ),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE trusted for any purpose",
            pem(
                "TRUSTED CERTIFICATE",
                &[certs[1].clone(), seq(&[seq(&[oid(id::ANY_EKU)])])].concat(),
            ),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE with an alias only",
            pem(
                "TRUSTED CERTIFICATE",
                &[certs[1].clone(), seq(&[utf8("my root")])].concat(),
            ),
            true,
        ),
        (
            "root as TRUSTED CERTIFICATE with bytes that are no trust settings",
            pem(
                "TRUSTED CERTIFICATE",
                &[certs[1].clone(), vec![0x0a, 0x0a]].concat(),
            ),
            true,
        ),
        (
            "a private key block beside the root",
            format!(
                "{}{root_pem}",
                pem("PRIVATE KEY", &pool().key("p256-a").pkcs8)
            ),
            false,
        ),
        (
            "a root whose DER is cut short",
            pem("CERTIFICATE", &certs[1][..certs[1].len() - 10]),
            false,
        ),
    ];
    for (what, roots, exact) in files {
        v.push(Case {
            name: format!("root file: {what}"),
            roots,
            sent: vec![certs[0].clone()],
            crl: None,
            exact,
            key: c.specs[0].key.clone(),
        });
    }
    vary(
        v,
        "bytes after the server certificate's signature",
        2,
        |c| {
            c.leaf().trailing_inside = vec![0x05, 0x00];
        },
    );
    {
        let c = Chain::of(2, "p256");
        let mut certs = c.build();
        let mut leaf = certs[0].clone();
        leaf.extend([0, 0]);
        certs[0] = leaf;
        v.push(Case {
            name: "bytes after the server certificate".into(),
            roots: pem("CERTIFICATE", &certs[1]),
            sent: vec![certs[0].clone()],
            crl: None,
            exact: false,
            key: c.specs[0].key.clone(),
        });
    }
    {
        // A non-minimal length on the outer SEQUENCE of the server's certificate.
        let c = Chain::of(2, "p256");
        let certs = c.build();
        let (hl, l) = if certs[0][1] < 0x80 {
            (2, certs[0][1] as usize)
        } else {
            let n = (certs[0][1] & 0x7f) as usize;
            (
                2 + n,
                certs[0][2..2 + n]
                    .iter()
                    .fold(0, |a, &b| a << 8 | b as usize),
            )
        };
        let mut long = vec![0x30, 0x84];
        long.extend((l as u32).to_be_bytes());
        long.extend(&certs[0][hl..]);
        v.push(Case {
            name: "server certificate with a non-minimal length".into(),
            roots: pem("CERTIFICATE", &certs[1]),
            sent: vec![long],
            crl: None,
            exact: false,
            key: c.specs[0].key.clone(),
        });
    }
    for (what, serial) in [("negative", -5), ("zero", 0)] {
        vary(v, &format!("server serial {what}"), 2, |c| {
            c.leaf().serial = serial
        });
    }
    vary(
        v,
        "server with an empty subject and a subjectAltName",
        2,
        |c| {
            c.leaf().subject = seq(&[]);
        },
    );
    vary(v, "root with an empty name", 2, |c| {
        c.root().subject = seq(&[]);
        c.root().issuer = seq(&[]);
    });
    vary(v, "name with an invalid UTF8String", 2, |c| {
        c.leaf().subject = name_of(&[&[(CN, Val::Raw(0x0c, vec![0xff, 0xfe]))]]);
    });
    vary(v, "name with an odd-length BMPString", 2, |c| {
        c.leaf().subject = name_of(&[&[(CN, Val::Raw(0x1e, vec![0, 0x41, 0]))]]);
    });
}

fn crls(v: &mut Vec<Case>) {
    let t = now();
    for (what, n, revoke, whose, next) in [
        (
            "revoking the server certificate",
            2,
            true,
            0,
            Some(t + 30 * DAY),
        ),
        ("revoking nothing", 2, false, 0, Some(t + 30 * DAY)),
        (
            "of the root only, chain of 3",
            3,
            false,
            0,
            Some(t + 30 * DAY),
        ),
        ("revoking the intermediate", 3, true, 1, Some(t + 30 * DAY)),
        ("expired", 2, false, 0, Some(t - DAY)),
        ("without nextUpdate", 2, false, 0, None),
    ] {
        let c = Chain::of(n, "p256");
        let root = &c.specs[n - 1];
        let revoked: Vec<i64> = if revoke {
            vec![c.specs[whose].serial]
        } else {
            vec![]
        };
        let crl_der = crl(&root.subject, &root.key, &revoked, t - DAY, next);
        let mut case = c.case(&format!("root.crl {what}"), false);
        case.crl = Some(pem("X509 CRL", &crl_der));
        v.push(case);
    }
    // Both CRLs of a chain of 3, nothing revoked.
    let c = Chain::of(3, "p256");
    let t0 = t - DAY;
    let root_crl = crl(
        &c.specs[2].subject,
        &c.specs[2].key,
        &[],
        t0,
        Some(t + 30 * DAY),
    );
    let int_crl = crl(
        &c.specs[1].subject,
        &c.specs[1].key,
        &[],
        t0,
        Some(t + 30 * DAY),
    );
    let mut case = c.case("root.crl with the CRLs of root and intermediate", false);
    case.crl = Some(pem("X509 CRL", &root_crl) + &pem("X509 CRL", &int_crl));
    v.push(case);
}

fn root_files(v: &mut Vec<Case>) {
    let c = Chain::of(3, "p256");
    let certs = c.build();
    let stranger = Chain::of(2, "rsa").build();
    let self_signed = Chain::of(1, "p256").build();
    for (what, roots, sent) in [
        (
            "the server certificate only",
            pem("CERTIFICATE", &certs[0]),
            vec![certs[0].clone(), certs[1].clone()],
        ),
        (
            "the intermediate only",
            pem("CERTIFICATE", &certs[1]),
            vec![certs[0].clone(), certs[1].clone()],
        ),
        (
            "an unrelated root",
            pem("CERTIFICATE", &stranger[1]),
            vec![certs[0].clone(), certs[1].clone()],
        ),
        (
            "no certificate",
            String::new(),
            vec![certs[0].clone(), certs[1].clone()],
        ),
        (
            "another root, self-signed server not in it",
            pem("CERTIFICATE", &certs[2]),
            vec![self_signed[0].clone()],
        ),
    ] {
        v.push(Case {
            name: format!("root file holds {what}"),
            roots,
            sent,
            crl: None,
            exact: false,
            key: c.specs[0].key.clone(),
        });
    }
}

fn key_ids(v: &mut Vec<Case>) {
    vary(v, "server authorityKeyIdentifier of another key", 3, |c| {
        c.akid[0] = false;
        c.leaf()
            .set_ext(Ext::new(id::AKID, Crit::No, akid(b"not-the-issuers-key!")));
    });
    vary(v, "issuer without subjectKeyIdentifier", 3, |c| {
        c.specs[1].drop_ext(id::SKID);
    });
    vary(v, "root authorityKeyIdentifier not its own", 2, |c| {
        c.akid[1] = false;
        c.root()
            .set_ext(Ext::new(id::AKID, Crit::No, akid(b"someone-else-s-key!!")));
    });
    vary(v, "root authorityKeyIdentifier its own", 2, |c| {
        c.akid[1] = true;
    });
    vary(
        v,
        "server authorityKeyIdentifier with issuer and serial of another",
        3,
        |c| {
            c.akid[0] = false;
            let dn = c.specs[2].subject.clone();
            c.leaf().set_ext(Ext::new(
                id::AKID,
                Crit::No,
                seq(&[ctx(1, &Gn::Dir(dn).der()), ctx_prim(2, &[0x7f, 0x01])]),
            ));
        },
    );
}

fn misc(v: &mut Vec<Case>) {
    vary(v, "server proxyCertInfo", 2, |c| {
        c.leaf().exts.push(Ext::new(
            id::PROXY,
            Crit::No,
            seq(&[seq(&[oid("1.3.6.1.5.5.7.21.1")])]),
        ));
    });
    vary(v, "intermediate ipAddrBlocks (RFC 3779)", 3, |c| {
        c.specs[1].exts.push(Ext::new(
            id::IP_ADDR_BLOCKS,
            Crit::No,
            seq(&[seq(&[octets(&[0, 1]), null()])]),
        ));
    });
    vary(v, "server with its Common Name only", 2, |c| {
        c.leaf().drop_ext(id::SAN)
    });
    vary(v, "server with an iPAddress only", 2, |c| {
        c.leaf().set_ext(Ext::new(
            id::SAN,
            Crit::No,
            general_names(&[Gn::Ip(vec![127, 0, 0, 1])]),
        ));
    });
    vary(v, "server with a directoryName only", 2, |c| {
        c.leaf().set_ext(Ext::new(
            id::SAN,
            Crit::No,
            general_names(&[Gn::Dir(name("x"))]),
        ));
    });
    vary(v, "server with an empty subjectAltName", 2, |c| {
        c.leaf().set_ext(Ext::new(id::SAN, Crit::No, seq(&[])));
    });
    // A chain of 12 and one of 102 (over OpenSSL's depth of 100).
    for n in [12usize, 102, 103] {
        let keys: Vec<&str> = (0..n)
            .map(|i| ["p256-a", "p256-b", "p256-c", "p256-d"][i % 4])
            .collect();
        let c = Chain::new(&keys);
        v.push(c.case(&format!("chain of {n}"), false));
    }
}
