//! The chain from the server's certificate to a root of `sslrootcert`, built and checked in
//! the order of OpenSSL 3's X509_verify_cert (x509_vfy.c) with libpq's settings: the leaf's
//! key strength; build_chain (trusted first, issuer candidates as OpenSSL picks them, the
//! trust settings of the roots); check_extensions (CA, purpose "SSL server", path length,
//! unhandled critical extensions, proxies); check_auth_level (security level 2: key sizes and
//! digests); internal_verify (each signature, each validity, the root's included). What
//! OpenSSL checks and csvload does not is refused before any of it (`unsupported`).

use super::Refusal;
use super::cert::Cert;
use super::sig;
use super::store::{Store, Trust};

/// OpenSSL's default verify depth (100) plus one: chains of up to 101 certificates.
const MAX_DEPTH: usize = 101;
/// Security level 2 (OpenSSL's default, Debian's and libpq's): 112 bits.
const MIN_BITS: u32 = 112;

/// Where a certificate of the chain came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum From {
    /// The server's certificate message (`i` in `sent`).
    Sent(usize),
    /// The root file (`i` in the store).
    Trusted(usize),
}

struct Ctx<'a> {
    sent: &'a [Cert],
    store: &'a Store,
    now: i64,
}

impl Ctx<'_> {
    fn get(&self, f: From) -> &Cert {
        match f {
            From::Sent(i) => &self.sent[i],
            From::Trusted(i) => &self.store.certs[i].cert,
        }
    }

    fn time_ok(&self, c: &Cert) -> bool {
        matches!((c.not_before.secs, c.not_after.secs), (Some(b), Some(a)) if b <= self.now && self.now <= a)
    }

    fn not_after(&self, c: &Cert) -> i64 {
        c.not_after.secs.unwrap_or(i64::MIN)
    }

    /// Among `candidates` that could have issued `x`, OpenSSL's choice: the first valid now,
    /// else the one that expires last (the first of those).
    fn best<I: Iterator<Item = From>>(&self, x: &Cert, candidates: I) -> Option<From> {
        let mut late: Option<From> = None;
        for f in candidates {
            let c = self.get(f);
            if !x.likely_issued_by(c) {
                continue;
            }
            if self.time_ok(c) {
                return Some(f);
            }
            if late.is_none_or(|l| self.not_after(c) > self.not_after(self.get(l))) {
                late = Some(f);
            }
        }
        late
    }

    /// X509_STORE_CTX_get1_issuer: a root-file certificate whose subject is `x`'s issuer.
    fn trusted_issuer(&self, x: &Cert) -> Result<Option<usize>, Refusal> {
        if let Some(why) = self.store.unreadable_named(&x.issuer_name.canon) {
            return Err(Refusal::Unsupported {
                subject: x.subject.clone(),
                what: format!(
                    "its issuer \"{}\" may be a certificate of the operating system's store \
                     that csvload cannot read ({why})",
                    x.issuer_text
                ),
            });
        }
        let found = self.best(
            x,
            (0..self.store.certs.len())
                .filter(|&i| self.store.certs[i].cert.subject_name.canon == x.issuer_name.canon)
                .map(From::Trusted),
        );
        Ok(match found {
            Some(From::Trusted(i)) => Some(i),
            _ => None,
        })
    }
}

/// The trust decision of one root-file certificate in the chain (X509_check_trust with
/// trust "SSL server": explicit trust or rejection of serverAuth or anyExtendedKeyUsage, else
/// a self-signed certificate is trusted).
fn trust_of(c: &Cert, t: &Trust) -> Result<Option<bool>, Refusal> {
    match t {
        Trust::Rejected => Err(Refusal::Rejected {
            subject: c.subject.clone(),
        }),
        Trust::Trusted if !c.self_signed() => Err(Refusal::Unsupported {
            subject: c.subject.clone(),
            what: "it is marked trusted in the root file (TRUSTED CERTIFICATE) but is not \
                   self-signed, and csvload takes explicit trust only on a root"
                .into(),
        }),
        Trust::Trusted => Ok(Some(true)),
        Trust::Default if c.self_signed() => Ok(Some(true)),
        Trust::Default => Ok(None),
    }
}

/// Builds the chain as OpenSSL's build_chain does (trusted first, no partial chains).
fn build(ctx: &Ctx<'_>) -> Result<Vec<From>, Refusal> {
    let mut chain = vec![From::Sent(0)];
    // Certificates of the server's message not yet in the chain (the server's own too: an
    // intermediate may repeat it).
    let mut untrusted: Vec<usize> = (0..ctx.sent.len()).collect();
    let mut do_untrusted = true;
    let mut trusted_found = false;
    loop {
        let curr = ctx.get(*chain.last().unwrap());
        // Look in the root file first.
        let found = if chain.len() <= MAX_DEPTH {
            ctx.trusted_issuer(curr)?
        } else {
            None
        };
        if let Some(t) = found {
            let issuer = &ctx.store.certs[t];
            let self_signed = curr.self_signed();
            let mut ok = true;
            if !self_signed {
                chain.push(From::Trusted(t));
            } else if curr.der != issuer.cert.der {
                // A self-signed certificate mimicking a root of the same name.
                ok = false;
            } else {
                *chain.last_mut().unwrap() = From::Trusted(t);
            }
            if ok {
                do_untrusted = false;
                match trust_of(&issuer.cert, &issuer.trust)? {
                    Some(_) => {
                        trusted_found = true;
                        break;
                    }
                    None if !issuer.cert.self_signed() => continue,
                    None => break,
                }
            }
        }
        if !do_untrusted {
            break;
        }
        let curr = ctx.get(*chain.last().unwrap());
        let next = if curr.self_signed() || chain.len() > MAX_DEPTH {
            None
        } else {
            // X509_cmp: a copy of a certificate already in the chain counts as it.
            let in_chain = |i: usize| chain.iter().any(|f| ctx.get(*f).der == ctx.sent[i].der);
            let candidates = untrusted
                .iter()
                .copied()
                .filter(|&i| !in_chain(i) || (curr.self_issued() && chain.len() == 1))
                .map(From::Sent)
                .collect::<Vec<_>>();
            ctx.best(curr, candidates.into_iter())
        };
        match next {
            Some(From::Sent(i)) => {
                untrusted.retain(|&u| u != i);
                chain.push(From::Sent(i));
            }
            _ => do_untrusted = false,
        }
    }
    if trusted_found {
        return Ok(chain);
    }
    // Why no chain was found, as OpenSSL says it.
    let last = ctx.get(*chain.last().unwrap());
    if chain.len() > MAX_DEPTH {
        return Err(Refusal::ChainTooLong);
    }
    if let Some(why) = chain.iter().find_map(|f| {
        ctx.get(*f)
            .exts
            .invalid
            .clone()
            .map(|w| (ctx.get(*f).subject.clone(), w))
    }) {
        return Err(Refusal::Invalid {
            subject: why.0,
            why: why.1,
        });
    }
    if last.self_signed() {
        return Err(Refusal::SelfSigned {
            subject: last.subject.clone(),
        });
    }
    if matches!(chain.last(), Some(From::Trusted(_))) {
        return Err(Refusal::PartialChain {
            subject: last.subject.clone(),
            issuer: last.issuer_text.clone(),
        });
    }
    Err(Refusal::UnknownIssuer {
        subject: last.subject.clone(),
        issuer: last.issuer_text.clone(),
    })
}

/// OpenSSL's check_extensions for purpose "SSL server", non-strict.
fn check_extensions(ctx: &Ctx<'_>, chain: &[From]) -> Result<(), Refusal> {
    let num = chain.len();
    let mut plen = 0usize;
    for (i, f) in chain.iter().enumerate() {
        let x = ctx.get(*f);
        if let Some(oid) = &x.exts.unhandled_critical {
            return Err(Refusal::UnhandledCritical {
                subject: x.subject.clone(),
                oid: oid.clone(),
            });
        }
        if x.exts.proxy {
            return Err(Refusal::InvalidCa {
                subject: x.subject.clone(),
                why: "it is a proxy certificate, which OpenSSL does not allow for TLS".into(),
            });
        }
        let ret = x.check_ca();
        if i > 0 && (ret == 0 || (i + 1 < num && ret != 1)) {
            let why = if let Some(w) = &x.exts.invalid {
                format!("it is invalid: {w}")
            } else if !x.may_sign_certificates() {
                "its keyUsage does not allow signing certificates".to_string()
            } else if x.exts.bc.is_some() {
                "its basicConstraints says CA:FALSE".to_string()
            } else if x.version == 0 && i + 1 < num {
                "an X.509 v1 certificate can only be a self-signed root, not an intermediate \
                 CA (OpenSSL's rule)"
                    .to_string()
            } else {
                "it has no basicConstraints CA:TRUE (a v3 CA needs it; only a v1 self-signed \
                 root may go without)"
                    .to_string()
            };
            return Err(Refusal::InvalidCa {
                subject: x.subject.clone(),
                why,
            });
        }
        if i > 0 && ret == 5 {
            return Err(Refusal::Unsupported {
                subject: x.subject.clone(),
                what: "it is a CA only by its Netscape cert type (no basicConstraints, no \
                       keyUsage), which csvload does not take"
                    .into(),
            });
        }
        if num > 1
            && let super::alg::Key::Ec { curve: None, .. } = x.key
        {
            return Err(Refusal::TooWeak {
                subject: x.subject.clone(),
                why: "its EC key has explicit curve parameters, which OpenSSL refuses in a chain"
                    .into(),
            });
        }
        // Explicit trust in the root file overrides the purpose of that certificate.
        let overridden = match f {
            From::Trusted(t) => ctx.store.certs[*t].trust == Trust::Trusted,
            From::Sent(_) => false,
        };
        if !overridden && let Some(why) = x.server_purpose(i > 0) {
            return Err(Refusal::Purpose {
                subject: x.subject.clone(),
                why,
            });
        }
        if i > 1
            && let Some((_, Some(max))) = x.exts.bc
            && plen as i64 > max
        {
            return Err(Refusal::PathLength {
                subject: x.subject.clone(),
            });
        }
        if i > 0 && !x.self_issued() {
            plen += 1;
        }
    }
    Ok(())
}

/// check_auth_level: the keys of the issuers and the signatures below the root at security
/// level 2 (the server's key is checked first, in `verify`).
fn check_auth_level(ctx: &Ctx<'_>, chain: &[From]) -> Result<(), Refusal> {
    let num = chain.len();
    for (i, f) in chain.iter().enumerate() {
        let x = ctx.get(*f);
        if i > 0 {
            key_level(x, "CA certificate")?;
        }
        if i + 1 < num && x.sig.security_bits().is_some_and(|b| b < MIN_BITS) {
            return Err(Refusal::TooWeak {
                subject: x.subject.clone(),
                why: format!(
                    "it is signed with {}, which OpenSSL's security level 2 refuses",
                    super::alg::alg_name(&oid_of(&x.sig))
                ),
            });
        }
    }
    Ok(())
}

fn oid_of(s: &super::alg::SigAlg) -> String {
    use super::alg::{Hash, SigAlg};
    match s {
        SigAlg::Rsa(Hash::Md5) => "1.2.840.113549.1.1.4",
        SigAlg::Rsa(Hash::Sha1) => "1.2.840.113549.1.1.5",
        SigAlg::Rsa(Hash::Sha224) => "1.2.840.113549.1.1.14",
        SigAlg::Rsa(Hash::Sha256) => "1.2.840.113549.1.1.11",
        SigAlg::Rsa(Hash::Sha384) => "1.2.840.113549.1.1.12",
        SigAlg::Rsa(Hash::Sha512) => "1.2.840.113549.1.1.13",
        SigAlg::Pss { .. } => "1.2.840.113549.1.1.10",
        SigAlg::Ecdsa(Hash::Sha1) => "1.2.840.10045.4.1",
        SigAlg::Ecdsa(Hash::Sha224) => "1.2.840.10045.4.3.1",
        SigAlg::Ecdsa(Hash::Sha256) => "1.2.840.10045.4.3.2",
        SigAlg::Ecdsa(Hash::Sha384) => "1.2.840.10045.4.3.3",
        SigAlg::Ecdsa(_) => "1.2.840.10045.4.3.4",
        SigAlg::Ed25519 => "1.3.101.112",
        SigAlg::Ed448 => "1.3.101.113",
        SigAlg::Dsa(Hash::Sha1) => "1.2.840.10040.4.3",
        SigAlg::Dsa(Hash::Sha224) => "2.16.840.1.101.3.4.3.1",
        SigAlg::Dsa(_) => "2.16.840.1.101.3.4.3.2",
        SigAlg::Other(o, _) => o,
    }
    .to_string()
}

fn key_level(x: &Cert, what: &str) -> Result<(), Refusal> {
    match x.key.security_bits() {
        Some(b) if b >= MIN_BITS => Ok(()),
        Some(_) => Err(Refusal::TooWeak {
            subject: x.subject.clone(),
            why: format!(
                "its key ({}) is too small for OpenSSL's security level 2 ({what})",
                x.key.describe()
            ),
        }),
        None => Err(Refusal::Unsupported {
            subject: x.subject.clone(),
            what: format!(
                "its key ({}) is of a kind csvload does not check",
                x.key.describe()
            ),
        }),
    }
}

/// internal_verify: from the root down, each signature (with its issuer's keyUsage) and each
/// validity period.
fn internal_verify(ctx: &Ctx<'_>, chain: &[From]) -> Result<(), Refusal> {
    let n = chain.len();
    for i in (0..n).rev() {
        let x = ctx.get(chain[i]);
        if i + 1 < n {
            let issuer = ctx.get(chain[i + 1]);
            if !issuer.may_sign_certificates() {
                return Err(Refusal::InvalidCa {
                    subject: issuer.subject.clone(),
                    why: "its keyUsage does not allow signing certificates".into(),
                });
            }
            if x.inner_alg != x.outer_alg {
                return Err(Refusal::BadSignature {
                    subject: x.subject.clone(),
                    issuer: issuer.subject.clone(),
                    why: Some(
                        "its signature algorithm is not the one its tbsCertificate names".into(),
                    ),
                });
            }
            sig::verify_cert(x, issuer)?;
        }
        match x.not_before.secs {
            None => {
                return Err(Refusal::BadTime {
                    subject: x.subject.clone(),
                    field: "notBefore",
                    text: x.not_before.text.clone(),
                });
            }
            Some(b) if ctx.now < b => {
                return Err(Refusal::NotYetValid {
                    subject: x.subject.clone(),
                    not_before: x.not_before.text.clone(),
                });
            }
            _ => {}
        }
        match x.not_after.secs {
            None => {
                return Err(Refusal::BadTime {
                    subject: x.subject.clone(),
                    field: "notAfter",
                    text: x.not_after.text.clone(),
                });
            }
            Some(a) if ctx.now > a => {
                return Err(Refusal::Expired {
                    subject: x.subject.clone(),
                    not_after: x.not_after.text.clone(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// Verifies `sent` (the server's certificate first) against `store` at `now` (seconds since
/// 1970), as OpenSSL does for libpq; returns the chain's certificates, the server's first.
pub fn verify(sent: &[Cert], store: &Store, now: i64) -> Result<Vec<Cert>, Refusal> {
    let ctx = Ctx { sent, store, now };
    key_level(&sent[0], "the server's certificate")?;
    let chain = build(&ctx)?;
    for f in &chain {
        let c = ctx.get(*f);
        if let Some(what) = &c.exts.unsupported {
            return Err(Refusal::Unsupported {
                subject: c.subject.clone(),
                what: what.clone(),
            });
        }
    }
    check_extensions(&ctx, &chain)?;
    check_auth_level(&ctx, &chain)?;
    internal_verify(&ctx, &chain)?;
    Ok(chain.iter().map(|f| ctx.get(*f).clone()).collect())
}
