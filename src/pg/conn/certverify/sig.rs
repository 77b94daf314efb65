//! A certificate's signature checked with its issuer's key: ring for what it verifies (ECDSA
//! P-256 and P-384 with SHA-256 or SHA-384, Ed25519, RSA PKCS#1 with SHA-256/384/512 and
//! moduli of 2048 to 8192 bits), `rsa.rs` for the RSA that ring does not (PSS with any
//! parameters, SHA-224, larger moduli). Any other pairing OpenSSL would verify is refused by
//! name (ECDSA P-521, P-224 or secp256k1 keys, SHA-512 or SHA-224 with ECDSA, Ed448, DSA,
//! RSA-PSS keys).

use super::Refusal;
use super::alg::{Hash, Key, SigAlg, alg_name};
use super::cert::Cert;
use super::rsa;
use ring::signature as rs;

fn unsupported(x: &Cert, issuer: &Cert, alg: &str) -> Refusal {
    Refusal::Unsupported {
        subject: x.subject.clone(),
        what: format!(
            "its signature ({alg}) by a key of {} ({}) is not one csvload checks",
            issuer.key.describe(),
            issuer.subject
        ),
    }
}

/// Verifies `x`'s signature with `issuer`'s key (the algorithms already known to fit).
pub fn verify_cert(x: &Cert, issuer: &Cert) -> Result<(), Refusal> {
    let bad = || Refusal::BadSignature {
        subject: x.subject.clone(),
        issuer: issuer.subject.clone(),
        why: None,
    };
    if x.signature_unused != 0 {
        return Err(bad());
    }
    let (msg, sig) = (&x.tbs[..], &x.signature[..]);
    let ring_ok = |alg: &'static dyn rs::VerificationAlgorithm, key: &[u8]| {
        rs::UnparsedPublicKey::new(alg, key)
            .verify(msg, sig)
            .is_ok()
    };
    let ok = match (&x.sig, &issuer.key) {
        (SigAlg::Rsa(h), Key::Rsa { der, n, e, bits }) => {
            let ring_alg: Option<&'static dyn rs::VerificationAlgorithm> = match h {
                _ if *bits < 2048 || *bits > 8192 => None,
                Hash::Sha256 => Some(&rs::RSA_PKCS1_2048_8192_SHA256),
                Hash::Sha384 => Some(&rs::RSA_PKCS1_2048_8192_SHA384),
                Hash::Sha512 => Some(&rs::RSA_PKCS1_2048_8192_SHA512),
                _ => None,
            };
            match ring_alg {
                Some(a) => ring_ok(a, der),
                None if matches!(h, Hash::Md5) => {
                    return Err(unsupported(x, issuer, "md5WithRSAEncryption"));
                }
                None => rsa::verify_pkcs1(n, e, *h, msg, sig),
            }
        }
        (SigAlg::Pss { hash, mgf, salt }, Key::Rsa { n, e, .. }) => {
            rsa::verify_pss(n, e, *hash, *mgf, *salt, msg, sig)
        }
        (
            SigAlg::Ecdsa(h),
            Key::Ec {
                curve: Some(c),
                point,
            },
        ) => {
            let alg: &'static dyn rs::VerificationAlgorithm = match (c.as_str(), h) {
                ("1.2.840.10045.3.1.7", Hash::Sha256) => &rs::ECDSA_P256_SHA256_ASN1,
                ("1.2.840.10045.3.1.7", Hash::Sha384) => &rs::ECDSA_P256_SHA384_ASN1,
                ("1.3.132.0.34", Hash::Sha256) => &rs::ECDSA_P384_SHA256_ASN1,
                ("1.3.132.0.34", Hash::Sha384) => &rs::ECDSA_P384_SHA384_ASN1,
                _ => {
                    return Err(unsupported(x, issuer, &format!("ECDSA with {}", h.name())));
                }
            };
            if point.first() != Some(&0x04) {
                return Err(unsupported(x, issuer, "ECDSA with a compressed public key"));
            }
            ring_ok(alg, point)
        }
        (SigAlg::Ed25519, Key::Ed25519(k)) => ring_ok(&rs::ED25519, k),
        (s, _) => {
            let name = match s {
                SigAlg::Other(oid, why) => format!("{}: {why}", alg_name(oid)),
                SigAlg::Ed448 => "Ed448".into(),
                SigAlg::Dsa(h) => format!("DSA with {}", h.name()),
                SigAlg::Pss { .. } => "RSASSA-PSS".into(),
                SigAlg::Rsa(h) => format!("RSA with {}", h.name()),
                SigAlg::Ecdsa(h) => format!("ECDSA with {}", h.name()),
                SigAlg::Ed25519 => "Ed25519".into(),
            };
            return Err(unsupported(x, issuer, &name));
        }
    };
    if ok { Ok(()) } else { Err(bad()) }
}
