//! Server certificates verified as libpq's OpenSSL verifies them, and refused where csvload
//! does not check what OpenSSL would (issue 60: fail closed).
//!
//! **Why the verifier is csvload's own, not OpenSSL's.** OpenSSL itself (the `openssl` crate)
//! would make the checks exactly libpq's, but building it needs OpenSSL's headers and
//! pkg-config, or, vendored, Perl and make and minutes of C; the default build needs only
//! Rust and a C compiler (issue 34), and rustls's own verifier (webpki) refuses the X.509 v1
//! certificates PostgreSQL's documented recipe makes. So this module owns path validation,
//! and pays for it three ways: it follows OpenSSL 3.0's code step by step (x509_vfy.c,
//! v3_purp.c, x_name.c, pem_info.c; file by file below); everything OpenSSL checks that it
//! does not check exactly as OpenSSL does is a refusal in words (`Refusal::Unsupported`,
//! `Refusal::Unreadable`), never a silent pass; and tests/certverify/ runs a corpus of several
//! hundred generated setups through `openssl verify` with libpq's settings and through this
//! module, failing on any setup accepted here and refused there, and on any refusal here that
//! is not one of the documented ones.
//!
//! The files: `der.rs` (DER, and the BER forms OpenSSL takes in certificates in use),
//! `name.rs` (names compared in OpenSSL's canonical form), `cert.rs` (one certificate and its
//! extensions as OpenSSL caches them), `store.rs` (the root file as OpenSSL reads a CA file,
//! TRUSTED CERTIFICATE included), `chain.rs` (X509_verify_cert's order: key strength, chain
//! building with OpenSSL's choice among issuer candidates, CA/purpose/path length checks,
//! security level 2, signatures and validity), `sig.rs` and `rsa.rs` (signatures), `host.rs`
//! (libpq's host name rule).
//!
//! Refused here where OpenSSL might accept (documented in docs/csvload.md): nameConstraints
//! and the RFC 3779 extensions on any certificate of the chain; certificate revocation lists
//! (`sslcrl`, `sslcrldir`, and `~/.postgresql/root.crl`, which libpq reads by default:
//! tls.rs); signatures ring and `rsa.rs` do not verify (ECDSA with SHA-224 or SHA-512, P-224,
//! P-521 and secp256k1 keys, Ed448, DSA, RSA-PSS keys) and keys they do not know; encodings
//! that are not DER beyond the BER forms `der.rs` names; X.509 v2 certificates, a v1
//! certificate with extensions; a CA only by its Netscape cert type; explicit trust
//! (TRUSTED CERTIFICATE) on a root-file certificate that is not self-signed; private keys,
//! CRLs and PEM headers in the root file.

mod alg;
mod cert;
mod chain;
mod der;
mod ext;
mod host;
mod name;
mod rsa;
mod sig;
mod store;

pub use alg::Hash;
pub use cert::Cert;
pub use host::{check_host, inet_aton};
pub use rsa::digest;
pub use store::{Store, Trust};

use rustls::SignatureScheme;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::CertificateDer;
use std::fmt;

/// Why a certificate was refused, in words (the [`fmt::Display`] is the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// csvload cannot read a certificate (`what` names it); OpenSSL may (an encoding that is
    /// not DER): a documented refusal.
    Unreadable {
        /// Which certificate.
        what: String,
        /// What could not be read.
        why: String,
    },
    /// Something OpenSSL checks that csvload does not: a documented refusal.
    Unsupported {
        /// The certificate.
        subject: String,
        /// What it has.
        what: String,
    },
    /// A certificate OpenSSL takes as invalid (an extension it reads twice or cannot decode).
    Invalid {
        /// The certificate.
        subject: String,
        /// Why.
        why: String,
    },
    /// No issuer in `sslrootcert` (or among the server's certificates) for this certificate.
    UnknownIssuer {
        /// The certificate.
        subject: String,
        /// Its issuer's name.
        issuer: String,
    },
    /// A self-signed certificate that is not in `sslrootcert`.
    SelfSigned {
        /// The certificate.
        subject: String,
    },
    /// The chain ends in a certificate of `sslrootcert` that is not self-signed (libpq
    /// allows no partial chain).
    PartialChain {
        /// The certificate.
        subject: String,
        /// Its issuer's name.
        issuer: String,
    },
    /// The root file's trust settings reject this certificate for a TLS server.
    Rejected {
        /// The certificate.
        subject: String,
    },
    /// More than OpenSSL's depth of 100.
    ChainTooLong,
    /// Past notAfter.
    Expired {
        /// The certificate.
        subject: String,
        /// Its notAfter.
        not_after: String,
    },
    /// Before notBefore.
    NotYetValid {
        /// The certificate.
        subject: String,
        /// Its notBefore.
        not_before: String,
    },
    /// A validity time OpenSSL cannot read.
    BadTime {
        /// The certificate.
        subject: String,
        /// notBefore or notAfter.
        field: &'static str,
        /// As written.
        text: String,
    },
    /// A certificate used as a CA that is not one.
    InvalidCa {
        /// The certificate.
        subject: String,
        /// Why not.
        why: String,
    },
    /// A certificate whose usages do not allow a TLS server.
    Purpose {
        /// The certificate.
        subject: String,
        /// Why not.
        why: String,
    },
    /// pathLenConstraint exceeded.
    PathLength {
        /// The CA whose constraint is exceeded.
        subject: String,
    },
    /// A critical extension OpenSSL does not handle.
    UnhandledCritical {
        /// The certificate.
        subject: String,
        /// The extension's OID.
        oid: String,
    },
    /// Below OpenSSL's security level 2 (a key or a digest).
    TooWeak {
        /// The certificate.
        subject: String,
        /// What is too weak.
        why: String,
    },
    /// A signature that does not verify.
    BadSignature {
        /// The certificate.
        subject: String,
        /// Its issuer.
        issuer: String,
        /// More, when the signature was not even tried.
        why: Option<String>,
    },
    /// verify-full: the host name is not among the certificate's names.
    NameMismatch {
        /// The host connected to.
        host: String,
        /// The certificate's names.
        names: Vec<String>,
    },
    /// verify-full: a name libpq refuses outright.
    BadName {
        /// libpq's words.
        why: String,
    },
}

impl Refusal {
    /// Whether this is one of csvload's documented refusals (OpenSSL may accept).
    pub fn documented(&self) -> bool {
        matches!(
            self,
            Refusal::Unreadable { .. } | Refusal::Unsupported { .. }
        )
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unreadable { what, why } => write!(
                f,
                "csvload cannot read {what} ({why}); it reads certificates in DER, as \
                 OpenSSL writes them"
            ),
            Refusal::Unsupported { subject, what } => {
                write!(f, "unsupported certificate \"{subject}\": {what}")
            }
            Refusal::Invalid { subject, why } => write!(
                f,
                "invalid certificate \"{subject}\": {why} (OpenSSL, and so libpq, refuses it)"
            ),
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
            Refusal::Rejected { subject } => write!(
                f,
                "certificate \"{subject}\" is rejected for TLS servers by its trust settings \
                 in the root certificates (TRUSTED CERTIFICATE)"
            ),
            Refusal::ChainTooLong => write!(
                f,
                "the certificate chain is longer than OpenSSL's limit of 100 certificates"
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
            Refusal::BadTime {
                subject,
                field,
                text,
            } => write!(
                f,
                "certificate \"{subject}\" has a {field} time OpenSSL cannot read: {text:?}"
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
            Refusal::UnhandledCritical { subject, oid } => write!(
                f,
                "unsupported certificate \"{subject}\": critical extension {}, which OpenSSL \
                 (and so libpq) does not handle",
                ext::ext_name(oid)
            ),
            Refusal::TooWeak { subject, why } => {
                write!(f, "certificate \"{subject}\" is too weak: {why}")
            }
            Refusal::BadSignature {
                subject,
                issuer,
                why,
            } => match why {
                None => write!(
                    f,
                    "the signature of certificate \"{subject}\" does not verify with the key \
                     of \"{issuer}\""
                ),
                Some(w) => write!(
                    f,
                    "the signature of certificate \"{subject}\" cannot be checked: {w}"
                ),
            },
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

/// Verifies the server's certificates (its own first, then the others it sent) against
/// `store` at `now` (seconds since 1970) as OpenSSL does for libpq; returns the server's
/// certificate.
pub fn verify(sent: &[&[u8]], store: &Store, now: i64) -> Result<Cert, Refusal> {
    let certs: Vec<Cert> = sent
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let what = if i == 0 {
                "the server's certificate".to_string()
            } else {
                format!("certificate {} the server sent", i + 1)
            };
            Cert::parse(d, &what, false)
        })
        .collect::<Result<_, _>>()?;
    if certs.is_empty() {
        return Err(Refusal::Unreadable {
            what: "the server's certificates".into(),
            why: "there are none".into(),
        });
    }
    let chain = chain::verify(&certs, store, now)?;
    Ok(chain
        .into_iter()
        .next()
        .expect("a chain holds the server's certificate"))
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
    let c = Cert::parse(cert, "the server's certificate", false).map_err(into_rustls)?;
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
    let spki_alg = spki_algorithm(c.spki());
    let key = spki_key(c.spki());
    for alg in candidates {
        if alg.public_key_alg_id().as_ref() != spki_alg.as_slice() {
            continue;
        }
        return alg
            .verify_signature(&key, message, dss.signature())
            .map(|()| rustls::client::danger::HandshakeSignatureValid::assertion())
            .map_err(|_| {
                rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature)
            });
    }
    Err(into_rustls(Refusal::Unsupported {
        subject: c.subject.clone(),
        what: format!(
            "the server signed the handshake with a scheme that does not fit its key ({})",
            c.key.describe()
        ),
    }))
}

/// The contents of a SubjectPublicKeyInfo's AlgorithmIdentifier (what rustls's algorithms
/// name).
fn spki_algorithm(spki: &[u8]) -> Vec<u8> {
    let mut r = der::Reader::new(spki);
    let Ok(s) = r.read() else { return vec![] };
    let mut sr = der::inner(&s);
    sr.read().map(|a| a.value.to_vec()).unwrap_or_default()
}

/// The subjectPublicKey bits of a SubjectPublicKeyInfo.
fn spki_key(spki: &[u8]) -> Vec<u8> {
    let mut r = der::Reader::new(spki);
    let Ok(s) = r.read() else { return vec![] };
    let mut sr = der::inner(&s);
    let _ = sr.read();
    sr.read()
        .ok()
        .and_then(|b| b.value.get(1..).map(<[u8]>::to_vec))
        .unwrap_or_default()
}

/// A refusal as the rustls error a verifier returns ([`super::tls::explain`] finds the words
/// again in it).
pub fn into_rustls(r: Refusal) -> rustls::Error {
    rustls::Error::InvalidCertificate(rustls::CertificateError::Other(rustls::OtherError(
        std::sync::Arc::new(r),
    )))
}
