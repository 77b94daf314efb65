//! The differential corpus (issue 60): a few hundred certificate setups, each checked by
//! `openssl verify` with libpq's settings (purpose and trust "SSL server", OpenSSL's
//! default security level 2 as the TLS library applies it, trusted-first chain building,
//! the root file as `sslrootcert`, the server's certificates as the untrusted chain, CRLs
//! checked for the whole chain when a `root.crl` is present) and by csvload's verifier.
//!
//! The rule: csvload never accepts what OpenSSL refuses; where it refuses what OpenSSL accepts,
//! the refusal is one of the documented ones (says "csvload does not ..."), and never for a
//! case marked `exact` (the setups issue 60 names as wrongly refused).

use super::x509::*;
use std::path::Path;

/// One setup: what `sslrootcert` holds and what the server sends.
pub struct Case {
    pub name: String,
    /// The root certificate file (PEM text).
    pub roots: String,
    /// The certificates the server sends, its own first.
    pub sent: Vec<Vec<u8>>,
    /// `~/.postgresql/root.crl` (PEM), when there is one.
    pub crl: Option<String>,
    /// csvload must reach OpenSSL's outcome (no documented refusal allowed).
    pub exact: bool,
    /// The pool key of the server's certificate (for a real server to serve it).
    pub key: String,
}

/// A chain being made: `specs[0]` the server's certificate ... `specs[n-1]` the root.
pub struct Chain {
    pub specs: Vec<Spec>,
    /// Whether certificate i gets an authorityKeyIdentifier of its issuer's key.
    pub akid: Vec<bool>,
    /// Certificate i is signed by this key instead of its issuer's.
    pub signer: Vec<Option<String>>,
    /// Certificate i keeps the issuer name it has (not its issuer's subject).
    pub keep_issuer: Vec<bool>,
}

/// The server name of the corpus's server certificates.
pub const HOST: &str = "db.example.com";

/// A CA certificate's usual extensions.
pub fn ca_exts(key: &str) -> Vec<Ext> {
    vec![
        Ext::new(id::BC, Crit::Yes, bc(true, None)),
        Ext::new(
            id::KU,
            Crit::Yes,
            named_bits(ku::KEY_CERT_SIGN | ku::CRL_SIGN),
        ),
        Ext::new(id::SKID, Crit::No, octets(&pool().key(key).keyid)),
    ]
}

/// A server certificate's usual extensions.
pub fn leaf_exts(key: &str) -> Vec<Ext> {
    vec![
        Ext::new(
            id::KU,
            Crit::Yes,
            named_bits(ku::DIGITAL_SIGNATURE | ku::KEY_ENCIPHERMENT),
        ),
        Ext::new(id::EKU, Crit::No, eku(&[id::SERVER_AUTH])),
        Ext::new(id::SAN, Crit::No, general_names(&[Gn::dns(HOST)])),
        Ext::new(id::SKID, Crit::No, octets(&pool().key(key).keyid)),
    ]
}

impl Chain {
    /// A chain with these keys (server's first, root's last): root "CN=Root CA",
    /// intermediates "CN=Intermediate k", the server's "CN=db.example.com".
    pub fn new(keys: &[&str]) -> Chain {
        let n = keys.len();
        let mut specs = vec![];
        for (i, k) in keys.iter().enumerate() {
            let cn = if i == 0 {
                HOST.to_string()
            } else if i == n - 1 {
                "Root CA".to_string()
            } else {
                format!("Intermediate {i}")
            };
            let mut s = Spec::new(&cn, k);
            s.exts = if i == 0 && n > 1 {
                leaf_exts(k)
            } else if i == 0 {
                // A self-signed server certificate, its own root.
                let mut e = leaf_exts(k);
                e.insert(0, Ext::new(id::BC, Crit::Yes, bc(true, None)));
                e[1] = Ext::new(
                    id::KU,
                    Crit::Yes,
                    named_bits(ku::DIGITAL_SIGNATURE | ku::KEY_ENCIPHERMENT | ku::KEY_CERT_SIGN),
                );
                e
            } else {
                ca_exts(k)
            };
            specs.push(s);
        }
        Chain {
            akid: vec![true; n],
            signer: vec![None; n],
            keep_issuer: vec![false; n],
            specs,
        }
    }

    /// The usual chain of `n` certificates (root, n-2 intermediates, server) of one key family.
    pub fn of(n: usize, family: &str) -> Chain {
        let keys: Vec<String> = match family {
            "rsa" => ["rsa-d", "rsa-c", "rsa-b", "rsa-a"][4 - n..].to_vec(),
            "p384" => ["p384-b", "p384-a", "p384-b", "p384-a"][4 - n..].to_vec(),
            "ed25519" => ["ed25519-b", "ed25519-a", "ed25519-b", "ed25519-a"][4 - n..].to_vec(),
            "mixed" => ["ed25519-a", "p384-a", "rsa-b", "p256-a"][4 - n..].to_vec(),
            _ => ["p256-d", "p256-c", "p256-b", "p256-a"][4 - n..].to_vec(),
        }
        .iter()
        .map(|s| s.to_string())
        .collect();
        Chain::new(&keys.iter().map(String::as_str).collect::<Vec<_>>())
    }

    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// The root (last) certificate.
    pub fn root(&mut self) -> &mut Spec {
        self.specs.last_mut().unwrap()
    }

    /// The server's certificate.
    pub fn leaf(&mut self) -> &mut Spec {
        &mut self.specs[0]
    }

    /// Signs every certificate: each by the next one's key (the root by its own).
    pub fn build(&self) -> Vec<Vec<u8>> {
        let n = self.len();
        let p = pool();
        (0..n)
            .map(|i| {
                let mut s = self.specs[i].clone();
                let issuer = if i + 1 < n {
                    &self.specs[i + 1]
                } else {
                    &self.specs[i]
                };
                if !self.keep_issuer[i] {
                    s.issuer = issuer.subject.clone();
                }
                if self.akid[i] && s.version == Ver::V3 {
                    s.set_ext(Ext::new(
                        id::AKID,
                        Crit::No,
                        akid(&p.key(&issuer.key).keyid),
                    ));
                }
                let signer = self.signer[i].clone().unwrap_or(issuer.key.clone());
                s.build(&signer)
            })
            .collect()
    }

    /// The case: the root in `sslrootcert`, the server sending its certificate and the
    /// intermediates (and the root too when `with_root`).
    pub fn case(&self, name: &str, with_root: bool) -> Case {
        let certs = self.build();
        let n = certs.len();
        let sent = if n == 1 || with_root {
            certs.clone()
        } else {
            certs[..n - 1].to_vec()
        };
        Case {
            name: name.into(),
            roots: pem("CERTIFICATE", &certs[n - 1]),
            sent,
            crl: None,
            exact: false,
            key: self.specs[0].key.clone(),
        }
    }
}

impl Case {
    pub fn exact(mut self) -> Case {
        self.exact = true;
        self
    }
}

/// A chain of `n` P-256 certificates changed by `f`, as a case.
pub fn vary(cases: &mut Vec<Case>, name: &str, n: usize, f: impl FnOnce(&mut Chain)) {
    let mut c = Chain::of(n, "p256");
    f(&mut c);
    cases.push(c.case(name, false));
}

pub fn vary_exact(cases: &mut Vec<Case>, name: &str, n: usize, f: impl FnOnce(&mut Chain)) {
    let mut c = Chain::of(n, "p256");
    f(&mut c);
    cases.push(c.case(name, false).exact());
}

// ---------------------------------------------------------------------------------------------
// Running a case

/// OpenSSL's verdict with libpq's settings: Ok, or its error line.
pub fn openssl_verdict(case: &Case, dir: &Path) -> Result<(), String> {
    std::fs::write(dir.join("roots.pem"), &case.roots).unwrap();
    let chain: String = case.sent.iter().map(|d| pem("CERTIFICATE", d)).collect();
    std::fs::write(dir.join("untrusted.pem"), &chain).unwrap();
    std::fs::write(dir.join("leaf.pem"), pem("CERTIFICATE", &case.sent[0])).unwrap();
    let mut args = vec![
        "verify",
        "-verify_name",
        "ssl_server",
        "-auth_level",
        "2",
        "-CAfile",
        "roots.pem",
        "-untrusted",
        "untrusted.pem",
    ];
    if let Some(c) = &case.crl {
        std::fs::write(dir.join("crl.pem"), c).unwrap();
        args.extend(["-crl_check_all", "-CRLfile", "crl.pem"]);
    }
    args.push("leaf.pem");
    use crate::support::cmd::Within;
    let out = std::process::Command::new("openssl")
        .args(&args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output_within()
        .expect("run openssl verify");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && stdout.trim_end().ends_with(": OK") {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err
            .lines()
            .chain(stdout.lines())
            .find(|l| l.contains("error"))
            .unwrap_or(err.trim())
            .to_string())
    }
}
