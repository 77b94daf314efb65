//! Server certificate verification as libpq does it with OpenSSL: the chain to `sslrootcert`
//! (X.509 v1 roots included), OpenSSL's CA, purpose, path length and validity checks, and for
//! `verify-full` libpq's host name rule (subjectAltName, else the Common Name).
//!
//! Why not rustls's own verifier (webpki): it refuses every X.509 v1 certificate
//! (`UnsupportedCertVersion`), and v1 is what PostgreSQL's documented recipe makes with
//! OpenSSL 3 (`openssl x509 -req -CA root.crt` without an extension file); psql accepts those.
//! Why not OpenSSL itself (native-tls/openssl-sys): the build must need nothing but Rust and a
//! C compiler, and those need OpenSSL's headers. So the certificates are parsed here with
//! x509-cert (already built: tokio-postgres-rustls uses it for channel binding) and signatures
//! are checked by the `ring` algorithms rustls itself uses (the provider's
//! [`WebPkiSupportedAlgorithms`]); the TLS handshake stays rustls's.
//!
//! OpenSSL's rules kept (x509_vfy.c, v3_purp.c, with libpq's defaults: no partial chains, no
//! strict mode, purpose "SSL server"):
//! - the chain is built from the server's certificate through the certificates the server
//!   sent and those of `sslrootcert` (those first), and must end in a self-issued certificate
//!   of `sslrootcert`;
//! - every certificate above the server's must be a CA: basicConstraints CA:TRUE, or, for the
//!   root only, a self-signed v1 certificate or one whose keyUsage allows certificate signing;
//!   keyUsage, when present, must allow certificate signing; pathLenConstraint holds;
//! - the server's certificate, when it has keyUsage, allows digitalSignature, keyEncipherment
//!   or keyAgreement; extendedKeyUsage, where present on any certificate, names serverAuth;
//! - every certificate of the chain, the root included, is within its validity dates;
//! - each signature verifies with its issuer's key (the root's own is not checked, as OpenSSL).
//!
//! Differences: a critical extension other than basicConstraints, keyUsage, extendedKeyUsage
//! and subjectAltName (e.g. nameConstraints, policies) is refused by name, where OpenSSL would
//! check it; names are compared by their DER bytes (OpenSSL canonicalises case and spaces);
//! signature algorithms are those of rustls's ring provider (RSA 2048-8192 bits with SHA-256/
//! 384/512 or PSS, ECDSA P-256/P-384, Ed25519), so SHA-1 or small RSA keys are refused, as
//! OpenSSL's default security level 2 refuses them.

use der::{Decode, Encode};
use rustls::SignatureScheme;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, ServerName, SignatureVerificationAlgorithm, UnixTime};
use std::fmt;
use x509_cert::certificate::{CertificateInner, Raw, Version};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages,
    SubjectAltName, SubjectKeyIdentifier,
};

const OID_BASIC_CONSTRAINTS: &str = "2.5.29.19";
const OID_KEY_USAGE: &str = "2.5.29.15";
const OID_EXT_KEY_USAGE: &str = "2.5.29.37";
const OID_SAN: &str = "2.5.29.17";
const OID_SKID: &str = "2.5.29.14";
const OID_AKID: &str = "2.5.29.35";
const OID_COMMON_NAME: &str = "2.5.4.3";
/// extendedKeyUsage values OpenSSL accepts for a TLS server: serverAuth, Netscape and
/// Microsoft Server Gated Crypto.
const SERVER_EKUS: [&str; 3] = [
    "1.3.6.1.5.5.7.3.1",
    "2.16.840.1.113730.4.1",
    "1.3.6.1.4.1.311.10.3.3",
];

/// The usual name of a signature algorithm's OID (for messages).
fn alg_name(oid: &str) -> String {
    let name = match oid {
        "1.2.840.113549.1.1.4" => "md5WithRSAEncryption",
        "1.2.840.113549.1.1.5" => "sha1WithRSAEncryption",
        "1.2.840.113549.1.1.14" => "sha224WithRSAEncryption",
        "1.2.840.113549.1.1.11" => "sha256WithRSAEncryption",
        "1.2.840.113549.1.1.12" => "sha384WithRSAEncryption",
        "1.2.840.113549.1.1.13" => "sha512WithRSAEncryption",
        "1.2.840.113549.1.1.10" => "RSASSA-PSS",
        "1.2.840.10045.4.1" => "ecdsa-with-SHA1",
        "1.2.840.10045.4.3.1" => "ecdsa-with-SHA224",
        "1.2.840.10045.4.3.2" => "ecdsa-with-SHA256",
        "1.2.840.10045.4.3.3" => "ecdsa-with-SHA384",
        "1.2.840.10045.4.3.4" => "ecdsa-with-SHA512",
        "1.3.101.112" => "Ed25519",
        "1.3.101.113" => "Ed448",
        "1.2.840.10040.4.3" => "dsaWithSHA1",
        _ => return oid.to_string(),
    };
    format!("{name} ({oid})")
}

/// Why a certificate was refused, in words (the [`fmt::Display`] is the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The certificate could not be parsed.
    Malformed { what: String, why: String },
    /// No issuer in `sslrootcert` (or among the server's certificates) for this certificate.
    UnknownIssuer { subject: String, issuer: String },
    /// A self-signed certificate that is not in `sslrootcert`.
    SelfSigned { subject: String },
    /// The chain ends in a certificate of `sslrootcert` that is not self-issued (OpenSSL
    /// builds on to a self-issued root; libpq allows no partial chain).
    PartialChain { subject: String, issuer: String },
    /// Past notAfter.
    Expired { subject: String, not_after: String },
    /// Before notBefore.
    NotYetValid { subject: String, not_before: String },
    /// A certificate used as a CA that is not one.
    InvalidCa { subject: String, why: String },
    /// A certificate whose key usages do not allow a TLS server.
    Purpose { subject: String, why: String },
    /// pathLenConstraint exceeded.
    PathLength { subject: String },
    /// A signature that does not verify.
    BadSignature { subject: String, issuer: String },
    /// Something csvload cannot check (an algorithm, a critical extension).
    Unsupported { subject: String, what: String },
    /// verify-full: the host name is not among the certificate's names.
    NameMismatch { host: String, names: Vec<String> },
    /// verify-full: a name libpq refuses outright.
    BadName { why: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Malformed { what, why } => write!(f, "cannot parse {what}: {why}"),
            Refusal::UnknownIssuer { subject, issuer } => write!(
                f,
                "unknown certificate authority: certificate \"{subject}\" is issued by \
                 \"{issuer}\", which is not in the root certificates (sslrootcert) nor sent \
                 by the server"
            ),
            Refusal::SelfSigned { subject } => write!(
                f,
                "unknown certificate authority: self-signed certificate \"{subject}\" is not \
                 in the root certificates (sslrootcert)"
            ),
            Refusal::PartialChain { subject, issuer } => write!(
                f,
                "unknown certificate authority: certificate \"{subject}\" is in the root \
                 certificates but its issuer \"{issuer}\" is not (the chain must end in a \
                 self-signed root, as OpenSSL requires)"
            ),
            Refusal::Expired { subject, not_after } => write!(
                f,
                "the certificate has expired: \"{subject}\" was valid until {not_after}"
            ),
            Refusal::NotYetValid {
                subject,
                not_before,
            } => write!(
                f,
                "the certificate is not valid yet: \"{subject}\" is valid from {not_before} \
                 (check the clocks of this machine and the CA's)"
            ),
            Refusal::InvalidCa { subject, why } => {
                write!(f, "invalid CA certificate \"{subject}\": {why}")
            }
            Refusal::Purpose { subject, why } => write!(
                f,
                "certificate \"{subject}\" may not be used by a TLS server: {why}"
            ),
            Refusal::PathLength { subject } => write!(
                f,
                "the chain is longer than CA certificate \"{subject}\" allows \
                 (basicConstraints pathLenConstraint)"
            ),
            Refusal::BadSignature { subject, issuer } => write!(
                f,
                "the signature of certificate \"{subject}\" does not verify with the key of \
                 \"{issuer}\""
            ),
            Refusal::Unsupported { subject, what } => {
                write!(f, "unsupported certificate \"{subject}\": {what}")
            }
            Refusal::NameMismatch { host, names } => match names.as_slice() {
                [] => write!(
                    f,
                    "host name mismatch: the certificate names no host (no subjectAltName \
                     dNSName or iPAddress, no Common Name), so it cannot match \"{host}\""
                ),
                [one] => write!(
                    f,
                    "host name mismatch: the certificate is for \"{one}\", not for host \
                     \"{host}\" (verify-full checks that the certificate names the host \
                     connected to)"
                ),
                many => write!(
                    f,
                    "host name mismatch: the certificate is for {}, not for host \"{host}\" \
                     (verify-full checks that the certificate names the host connected to)",
                    many.iter()
                        .map(|n| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            Refusal::BadName { why } => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Control characters of a certificate's text escaped for the terminal.
fn printable(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// One parsed certificate and what verification needs of it.
#[derive(Debug)]
pub struct Cert {
    der: Vec<u8>,
    /// The tbsCertificate as sent (the signed bytes; not re-encoded).
    tbs: Vec<u8>,
    /// The subject for messages.
    pub subject: String,
    issuer_text: String,
    subject_der: Vec<u8>,
    issuer_der: Vec<u8>,
    v1: bool,
    /// The whole SubjectPublicKeyInfo (DER).
    spki: Vec<u8>,
    /// The contents of its AlgorithmIdentifier (what rustls's algorithms name).
    spki_alg: Vec<u8>,
    /// The subjectPublicKey bits.
    key: Vec<u8>,
    /// The contents of the certificate's signatureAlgorithm.
    sig_alg: Vec<u8>,
    sig_alg_oid: String,
    signature: Vec<u8>,
    not_before: (std::time::Duration, String),
    not_after: (std::time::Duration, String),
    /// basicConstraints: (cA, pathLenConstraint).
    bc: Option<(bool, Option<u8>)>,
    ku: Option<KeyUsage>,
    eku: Option<Vec<String>>,
    san: Option<Vec<GeneralName>>,
    skid: Option<Vec<u8>>,
    akid: Option<Vec<u8>>,
    /// The first critical extension not understood here.
    unknown_critical: Option<String>,
    /// Common Name values (raw bytes, as libpq compares them).
    cns: Vec<Vec<u8>>,
}

/// The length of a DER header and of its contents at the start of `b`.
fn tlv(b: &[u8]) -> Option<(usize, usize)> {
    let first = *b.get(1)?;
    if first < 0x80 {
        return Some((2, first as usize));
    }
    let n = (first & 0x7f) as usize;
    if n == 0 || n > 4 || b.len() < 2 + n {
        return None;
    }
    let len = b[2..2 + n]
        .iter()
        .fold(0usize, |a, &x| (a << 8) | x as usize);
    Some((2 + n, len))
}

/// The contents of a DER value (its header removed).
fn contents(b: &[u8]) -> Vec<u8> {
    match tlv(b) {
        Some((h, l)) if h + l <= b.len() => b[h..h + l].to_vec(),
        _ => Vec::new(),
    }
}

/// The first element of a DER SEQUENCE, as its bytes.
fn first_element(seq: &[u8]) -> Option<&[u8]> {
    let (h, l) = tlv(seq)?;
    let inner = seq.get(h..h + l)?;
    let (h2, l2) = tlv(inner)?;
    inner.get(..h2 + l2)
}

fn ext<'a, T: Decode<'a>>(v: &'a [u8], name: &str, subject: &str) -> Result<T, Refusal> {
    T::from_der(v).map_err(|e| Refusal::Malformed {
        what: format!("the {name} extension of certificate \"{subject}\""),
        why: e.to_string(),
    })
}

impl Cert {
    /// Parses one certificate (`what` names it for messages: "the server's certificate").
    pub fn parse(der: &[u8], what: &str) -> Result<Cert, Refusal> {
        let malformed = |why: String| Refusal::Malformed {
            what: what.to_string(),
            why,
        };
        let c = CertificateInner::<Raw>::from_der(der).map_err(|e| malformed(e.to_string()))?;
        let tbs = first_element(der)
            .ok_or_else(|| malformed("no tbsCertificate".into()))?
            .to_vec();
        let t = &c.tbs_certificate;
        let subject = printable(&t.subject.to_string());
        let enc = |r: der::Result<Vec<u8>>| r.map_err(|e| malformed(e.to_string()));
        let spki = enc(t.subject_public_key_info.to_der())?;
        let spki_alg = contents(&enc(t.subject_public_key_info.algorithm.to_der())?);
        let time = |x: &x509_cert::time::Time| (x.to_unix_duration(), x.to_date_time().to_string());
        let mut cert = Cert {
            der: der.to_vec(),
            tbs,
            issuer_text: printable(&t.issuer.to_string()),
            subject_der: enc(t.subject.to_der())?,
            issuer_der: enc(t.issuer.to_der())?,
            v1: t.version == Version::V1,
            spki,
            spki_alg,
            key: t
                .subject_public_key_info
                .subject_public_key
                .raw_bytes()
                .to_vec(),
            sig_alg: contents(&enc(c.signature_algorithm.to_der())?),
            sig_alg_oid: alg_name(&c.signature_algorithm.oid.to_string()),
            signature: c.signature.raw_bytes().to_vec(),
            not_before: time(&t.validity.not_before),
            not_after: time(&t.validity.not_after),
            bc: None,
            ku: None,
            eku: None,
            san: None,
            skid: None,
            akid: None,
            unknown_critical: None,
            cns: Vec::new(),
            subject,
        };
        for rdn in t.subject.0.iter() {
            for atv in rdn.0.iter() {
                if atv.oid.to_string() == OID_COMMON_NAME {
                    cert.cns.push(atv.value.value().to_vec());
                }
            }
        }
        for e in t.extensions.iter().flatten() {
            let v = e.extn_value.as_bytes();
            let s = cert.subject.clone();
            match e.extn_id.to_string().as_str() {
                OID_BASIC_CONSTRAINTS => {
                    let b: BasicConstraints = ext(v, "basicConstraints", &s)?;
                    cert.bc = Some((b.ca, b.path_len_constraint));
                }
                OID_KEY_USAGE => cert.ku = Some(ext(v, "keyUsage", &s)?),
                OID_EXT_KEY_USAGE => {
                    let x: ExtendedKeyUsage = ext(v, "extendedKeyUsage", &s)?;
                    cert.eku = Some(x.0.iter().map(|o| o.to_string()).collect());
                }
                OID_SAN => {
                    let x: SubjectAltName = ext(v, "subjectAltName", &s)?;
                    cert.san = Some(x.0);
                }
                OID_SKID => {
                    let x: SubjectKeyIdentifier = ext(v, "subjectKeyIdentifier", &s)?;
                    cert.skid = Some(x.0.as_bytes().to_vec());
                }
                OID_AKID => {
                    let x: AuthorityKeyIdentifier = ext(v, "authorityKeyIdentifier", &s)?;
                    cert.akid = x.key_identifier.map(|k| k.as_bytes().to_vec());
                }
                other if e.critical && cert.unknown_critical.is_none() => {
                    cert.unknown_critical = Some(other.to_string());
                }
                _ => {}
            }
        }
        Ok(cert)
    }

    /// The DER of the SubjectPublicKeyInfo (for the handshake signature).
    pub fn spki(&self) -> &[u8] {
        &self.spki
    }

    fn self_issued(&self) -> bool {
        self.subject_der == self.issuer_der
    }

    fn ku_allows(&self, u: KeyUsages) -> bool {
        self.ku.is_none_or(|k| k.0.contains(u))
    }

    /// OpenSSL's EXFLAG_SS: self-issued, its AKID (if any) its own SKID, and allowed to sign
    /// certificates.
    fn self_signed(&self) -> bool {
        self.self_issued() && self.akid_fits(self) && self.ku_allows(KeyUsages::KeyCertSign)
    }

    /// Whether `issuer`'s key identifier fits this certificate's authorityKeyIdentifier.
    fn akid_fits(&self, issuer: &Cert) -> bool {
        match (&self.akid, &issuer.skid) {
            (Some(a), Some(s)) => a == s,
            _ => true,
        }
    }

    /// OpenSSL's X509_check_issued (name and key identifier).
    fn issued_by(&self, issuer: &Cert) -> bool {
        self.issuer_der == issuer.subject_der && self.akid_fits(issuer)
    }

    /// OpenSSL's check_ca: 0 not a CA, 1 basicConstraints CA, 3 a v1 self-signed root,
    /// 4 keyUsage with keyCertSign and no basicConstraints.
    fn check_ca(&self) -> u8 {
        if !self.ku_allows(KeyUsages::KeyCertSign) {
            return 0;
        }
        match self.bc {
            Some((ca, _)) => ca as u8,
            None if self.v1 && self.self_signed() => 3,
            None if self.ku.is_some() => 4,
            None => 0,
        }
    }

    /// Whether `signer`'s key verifies this certificate's signature, with rustls's algorithms.
    fn signed_by(&self, signer: &Cert, algs: &WebPkiSupportedAlgorithms) -> Result<(), Refusal> {
        let fits: Vec<&&dyn SignatureVerificationAlgorithm> = algs
            .all
            .iter()
            .filter(|a| a.signature_alg_id().as_ref() == self.sig_alg.as_slice())
            .collect();
        if fits.is_empty() {
            return Err(Refusal::Unsupported {
                subject: self.subject.clone(),
                what: format!(
                    "signature algorithm {} is not supported (RSA with SHA-256/384/512 or \
                     PSS, ECDSA P-256/P-384 or Ed25519 are)",
                    self.sig_alg_oid
                ),
            });
        }
        let Some(alg) = fits
            .iter()
            .find(|a| a.public_key_alg_id().as_ref() == signer.spki_alg.as_slice())
        else {
            return Err(Refusal::Unsupported {
                subject: self.subject.clone(),
                what: format!(
                    "its signature algorithm {} does not fit the key type of its issuer \
                     \"{}\" (or that key type is not supported)",
                    self.sig_alg_oid, signer.subject
                ),
            });
        };
        alg.verify_signature(&signer.key, &self.tbs, &self.signature)
            .map_err(|_| Refusal::BadSignature {
                subject: self.subject.clone(),
                issuer: signer.subject.clone(),
            })
    }
}

/// Reads the certificates of `sslrootcert` (or the system's store) for the verifier.
pub fn parse_roots(ders: &[CertificateDer<'_>]) -> Vec<Cert> {
    // OpenSSL skips nothing it can parse; a root it cannot parse would have failed to load.
    ders.iter()
        .filter_map(|d| Cert::parse(d, "a root certificate").ok())
        .collect()
}

/// A certificate of the chain being built: the server's, the `n`th it sent, the `n`th root.
enum At {
    Leaf,
    Sent(usize),
    Root(usize),
}

fn pick<'c>(a: &At, leaf: &'c Cert, sent: &'c [Cert], roots: &'c [Cert]) -> &'c Cert {
    match a {
        At::Leaf => leaf,
        At::Sent(i) => &sent[*i],
        At::Root(i) => &roots[*i],
    }
}

/// Verifies the server's chain as OpenSSL does for libpq (see the module docs). `roots` are
/// the trusted certificates; `host`, for verify-full, is the name to match.
pub fn verify_chain(
    end_entity: &CertificateDer<'_>,
    intermediates: &[CertificateDer<'_>],
    roots: &[Cert],
    now: UnixTime,
    algs: &WebPkiSupportedAlgorithms,
) -> Result<Cert, Refusal> {
    let leaf = Cert::parse(end_entity, "the server's certificate")?;
    let sent: Vec<Cert> = intermediates
        .iter()
        .map(|d| Cert::parse(d, "a certificate the server sent"))
        .collect::<Result<_, _>>()?;
    let get = |a: &At| pick(a, &leaf, &sent, roots);
    let mut chain = vec![At::Leaf];
    // OpenSSL's default verify depth is 100.
    loop {
        let cur = get(chain.last().unwrap());
        // A certificate equal to a trusted one counts as trusted (OpenSSL looks it up).
        let trusted = roots.iter().position(|r| r.der == cur.der);
        if let Some(t) = trusted
            && cur.self_issued()
        {
            if !matches!(chain.last(), Some(At::Root(_))) {
                *chain.last_mut().unwrap() = At::Root(t);
            }
            break;
        }
        if chain.len() > 100 {
            return Err(Refusal::InvalidCa {
                subject: cur.subject.clone(),
                why: "the certificate chain is longer than 100 certificates".into(),
            });
        }
        // trusted-first (OpenSSL's default): an issuer in sslrootcert before one sent.
        let from_roots = roots
            .iter()
            .position(|r| r.der != cur.der && cur.issued_by(r))
            .map(At::Root);
        let next = from_roots.or_else(|| {
            sent.iter()
                .enumerate()
                .position(|(i, s)| {
                    s.der != cur.der
                        && cur.issued_by(s)
                        && !chain.iter().any(|a| matches!(a, At::Sent(j) if *j == i))
                })
                .map(At::Sent)
        });
        match next {
            Some(n) => chain.push(n),
            None => {
                return Err(if trusted.is_some() {
                    Refusal::PartialChain {
                        subject: cur.subject.clone(),
                        issuer: cur.issuer_text.clone(),
                    }
                } else if cur.self_signed() && cur.signed_by(cur, algs).is_ok() {
                    Refusal::SelfSigned {
                        subject: cur.subject.clone(),
                    }
                } else {
                    Refusal::UnknownIssuer {
                        subject: cur.subject.clone(),
                        issuer: cur.issuer_text.clone(),
                    }
                });
            }
        }
    }
    let certs: Vec<&Cert> = chain.iter().map(get).collect();
    let num = certs.len();
    // OpenSSL's check_chain_extensions: CA rules, purpose, path length.
    let mut plen = 0usize;
    for (i, x) in certs.iter().enumerate() {
        if let Some(oid) = &x.unknown_critical {
            return Err(Refusal::Unsupported {
                subject: x.subject.clone(),
                what: format!("critical extension {oid}, which csvload does not check"),
            });
        }
        if i > 0 {
            let ret = x.check_ca();
            if ret == 0 || (i + 1 < num && ret != 1) {
                let why = if !x.ku_allows(KeyUsages::KeyCertSign) {
                    "its keyUsage does not allow signing certificates".to_string()
                } else if x.bc.is_some() {
                    "its basicConstraints says CA:FALSE".to_string()
                } else if x.v1 && i + 1 < num {
                    "an X.509 v1 certificate can only be a self-signed root, not an \
                     intermediate CA (OpenSSL's rule)"
                        .to_string()
                } else {
                    "it has no basicConstraints CA:TRUE (a v3 CA needs it; only a v1 \
                     self-signed root may go without)"
                        .to_string()
                };
                return Err(Refusal::InvalidCa {
                    subject: x.subject.clone(),
                    why,
                });
            }
        } else if !(x.ku_allows(KeyUsages::DigitalSignature)
            || x.ku_allows(KeyUsages::KeyEncipherment)
            || x.ku_allows(KeyUsages::KeyAgreement))
        {
            return Err(Refusal::Purpose {
                subject: x.subject.clone(),
                why: "its keyUsage allows none of digitalSignature, keyEncipherment, \
                      keyAgreement"
                    .into(),
            });
        }
        if let Some(eku) = &x.eku
            && !eku.iter().any(|o| SERVER_EKUS.contains(&o.as_str()))
        {
            return Err(Refusal::Purpose {
                subject: x.subject.clone(),
                why: "its extendedKeyUsage does not include serverAuth".into(),
            });
        }
        if i > 1
            && !x.self_issued()
            && let Some((_, Some(max))) = x.bc
            && plen > max as usize
        {
            return Err(Refusal::PathLength {
                subject: x.subject.clone(),
            });
        }
        if i > 0 && !x.self_issued() {
            plen += 1;
        }
    }
    // OpenSSL's internal_verify: from the root down, each signature and each validity.
    let now = std::time::Duration::from_secs(now.as_secs());
    for i in (0..num).rev() {
        let x = certs[i];
        if i + 1 < num {
            x.signed_by(certs[i + 1], algs)?;
        }
        if now < x.not_before.0 {
            return Err(Refusal::NotYetValid {
                subject: x.subject.clone(),
                not_before: x.not_before.1.clone(),
            });
        }
        if now > x.not_after.0 {
            return Err(Refusal::Expired {
                subject: x.subject.clone(),
                not_after: x.not_after.1.clone(),
            });
        }
    }
    Ok(leaf)
}

/// The host name the connection was made to, as text (libpq compares its `host` string).
pub fn host_of(name: &ServerName<'_>) -> String {
    match name {
        ServerName::DnsName(d) => d.as_ref().to_string(),
        ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
        _ => String::new(),
    }
}

/// glibc's inet_aton: dotted forms of one to four parts, each decimal, octal (0...) or hex
/// (0x...); libpq uses it to tell an IPv4 host (and to compare it with an iPAddress entry).
fn inet_aton(s: &str) -> Option<[u8; 4]> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut nums = Vec::new();
    for p in &parts {
        let (digits, radix) = if let Some(h) = p.strip_prefix("0x").or(p.strip_prefix("0X")) {
            (h, 16)
        } else if p.len() > 1 && p.starts_with('0') {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        if p.is_empty() || (radix != 16 && digits.is_empty() && *p != "0") {
            return None;
        }
        let v = if digits.is_empty() {
            0
        } else {
            u64::from_str_radix(digits, radix).ok()?
        };
        nums.push(v);
    }
    let last = *nums.last()?;
    let head = &nums[..nums.len() - 1];
    if head.iter().any(|&n| n > 255) || last >= 1u64 << (8 * (4 - head.len())) {
        return None;
    }
    let mut v: u32 = 0;
    for (i, &n) in head.iter().enumerate() {
        v |= (n as u32) << (24 - 8 * i);
    }
    v |= last as u32;
    Some(v.to_be_bytes())
}

fn ipv6(s: &str) -> Option<[u8; 16]> {
    s.parse::<std::net::Ipv6Addr>().ok().map(|a| a.octets())
}

/// libpq's wildcard rule: `*.` only at the start, matching one label (no dot), case-blind.
fn wildcard_match(pattern: &[u8], host: &[u8]) -> bool {
    if pattern.len() < 3 || pattern[0] != b'*' || pattern[1] != b'.' || pattern.len() > host.len() {
        return false;
    }
    let start = host.len() - pattern.len() + 1;
    if !pattern[1..].eq_ignore_ascii_case(&host[start..]) {
        return false;
    }
    // No dot left of where the pattern's suffix starts to match.
    match host.iter().position(|&b| b == b'.') {
        Some(dot) => dot >= start - 1,
        None => true,
    }
}

/// libpq's pq_verify_peer_name_matches_certificate_name: 1 match, 0 not, Err on a NUL.
fn name_matches(name: &[u8], host: &str) -> Result<bool, Refusal> {
    if name.contains(&0) {
        return Err(Refusal::BadName {
            why: "SSL certificate's name contains embedded null".into(),
        });
    }
    Ok(name.eq_ignore_ascii_case(host.as_bytes()) || wildcard_match(name, host.as_bytes()))
}

/// verify-full's host name check, as libpq's pgtls_verify_peer_name_matches_certificate_guts:
/// the subjectAltName dNSName and iPAddress entries; the Common Name only when the
/// certificate has no subjectAltName entry of the host's kind (DNS name or IP address).
pub fn check_host(cert: &Cert, host: &str) -> Result<(), Refusal> {
    if host.is_empty() {
        return Err(Refusal::BadName {
            why: "host name must be specified for a verified SSL connection".into(),
        });
    }
    let host_is_ip = inet_aton(host).is_some() || ipv6(host).is_some();
    let mut check_cn = true;
    let mut names = Vec::new();
    for n in cert.san.iter().flatten() {
        let (is_ip, matched) = match n {
            GeneralName::DnsName(d) => {
                let b = d.as_bytes();
                names.push(printable(&String::from_utf8_lossy(b)));
                (false, name_matches(b, host)?)
            }
            GeneralName::IpAddress(a) => {
                let b = a.as_bytes();
                let (text, m) = match b.len() {
                    4 => (
                        std::net::Ipv4Addr::from(<[u8; 4]>::try_from(b).unwrap()).to_string(),
                        inet_aton(host).is_some_and(|h| h == b),
                    ),
                    16 => (
                        std::net::Ipv6Addr::from(<[u8; 16]>::try_from(b).unwrap()).to_string(),
                        ipv6(host).is_some_and(|h| h == b),
                    ),
                    n => {
                        return Err(Refusal::BadName {
                            why: format!("certificate contains IP address with invalid length {n}"),
                        });
                    }
                };
                names.push(text);
                (true, m)
            }
            _ => continue,
        };
        if is_ip == host_is_ip {
            check_cn = false;
        }
        if matched {
            return Ok(());
        }
    }
    if check_cn && let Some(cn) = cert.cns.first() {
        names.push(printable(&String::from_utf8_lossy(cn)));
        if name_matches(cn, host)? {
            return Ok(());
        }
    }
    Err(Refusal::NameMismatch {
        host: printable(host),
        names,
    })
}

/// Verifies a handshake signature with the key of `cert` (parsed here, so a v1 certificate
/// works): TLS 1.3 by rustls's raw-key function, TLS 1.2 as rustls's own
/// `verify_tls12_signature` does, over the provider's algorithms for the scheme.
pub fn verify_handshake_signature(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &rustls::DigitallySignedStruct,
    algs: &WebPkiSupportedAlgorithms,
    tls13: bool,
) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
    let c = Cert::parse(cert, "the server's certificate").map_err(into_rustls)?;
    if tls13 {
        return rustls::crypto::verify_tls13_signature_with_raw_key(
            message,
            &rustls::pki_types::SubjectPublicKeyInfoDer::from(c.spki()),
            dss,
            algs,
        );
    }
    let scheme: SignatureScheme = dss.scheme;
    let candidates = algs
        .mapping
        .iter()
        .find(|(s, _)| *s == scheme)
        .map(|(_, a)| *a)
        .ok_or(rustls::Error::PeerMisbehaved(
            rustls::PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme,
        ))?;
    for alg in candidates {
        if alg.public_key_alg_id().as_ref() != c.spki_alg.as_slice() {
            continue;
        }
        return alg
            .verify_signature(&c.key, message, dss.signature())
            .map(|()| rustls::client::danger::HandshakeSignatureValid::assertion())
            .map_err(|_| {
                rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature)
            });
    }
    Err(into_rustls(Refusal::Unsupported {
        subject: c.subject.clone(),
        what: "the server signed the handshake with a scheme that does not fit its key".into(),
    }))
}

/// A refusal as the rustls error a verifier returns ([`super::tls::explain`] finds the words
/// again in it).
pub fn into_rustls(r: Refusal) -> rustls::Error {
    rustls::Error::InvalidCertificate(rustls::CertificateError::Other(rustls::OtherError(
        std::sync::Arc::new(r),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_follow_libpq() {
        assert!(wildcard_match(b"*.b.c", b"a.b.c"));
        assert!(wildcard_match(b"*.B.c", b"xyz.b.C"));
        assert!(!wildcard_match(b"*.b.c", b"x.y.b.c"), "one label only");
        assert!(!wildcard_match(b"*.b.c", b"b.c"));
        assert!(!wildcard_match(b"a*.b.c", b"ab.b.c"), "only a leading *.");
        assert!(!wildcard_match(b"*.", b"a."));
    }

    #[test]
    fn inet_aton_forms() {
        assert_eq!(inet_aton("127.0.0.1"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("127.1"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("0x7f.0.0.01"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("2130706433"), Some([127, 0, 0, 1]));
        assert_eq!(inet_aton("localhost"), None);
        assert_eq!(inet_aton("256.0.0.1"), None);
        assert_eq!(inet_aton("1.2.3.4.5"), None);
        assert_eq!(inet_aton("1..2"), None);
    }
}
