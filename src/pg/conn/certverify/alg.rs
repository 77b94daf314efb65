//! Signature algorithms and public keys as OpenSSL reads them from a certificate: which key
//! family each algorithm pairs with (check_sig_alg_match), their security bits at OpenSSL's
//! security levels, RSASSA-PSS parameters, and the digest libpq hashes a certificate with for
//! channel binding.

use super::der::{self, Reader, Tlv, tag};

/// A digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hash {
    /// MD5.
    Md5,
    /// SHA-1.
    Sha1,
    /// SHA-224.
    Sha224,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl Hash {
    fn from_oid(oid: &str) -> Option<Hash> {
        Some(match oid {
            "1.2.840.113549.2.5" => Hash::Md5,
            "1.3.14.3.2.26" => Hash::Sha1,
            "2.16.840.1.101.3.4.2.4" => Hash::Sha224,
            "2.16.840.1.101.3.4.2.1" => Hash::Sha256,
            "2.16.840.1.101.3.4.2.2" => Hash::Sha384,
            "2.16.840.1.101.3.4.2.3" => Hash::Sha512,
            _ => return None,
        })
    }

    /// The security bits OpenSSL 3 gives a signature made with this digest (MD5 and SHA-1
    /// count as broken: 39 and 63).
    pub fn security_bits(self) -> u32 {
        match self {
            Hash::Md5 => 39,
            Hash::Sha1 => 63,
            Hash::Sha224 => 112,
            Hash::Sha256 => 128,
            Hash::Sha384 => 192,
            Hash::Sha512 => 256,
        }
    }

    /// The digest's name.
    pub fn name(self) -> &'static str {
        match self {
            Hash::Md5 => "MD5",
            Hash::Sha1 => "SHA-1",
            Hash::Sha224 => "SHA-224",
            Hash::Sha256 => "SHA-256",
            Hash::Sha384 => "SHA-384",
            Hash::Sha512 => "SHA-512",
        }
    }
}

/// A certificate's signature algorithm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigAlg {
    /// RSA PKCS#1 v1.5 with a digest.
    Rsa(Hash),
    /// RSASSA-PSS: digest, MGF1 digest, salt length (trailer field 1).
    Pss {
        hash: Hash,
        mgf: Hash,
        salt: usize,
    },
    /// ECDSA with a digest.
    Ecdsa(Hash),
    Ed25519,
    Ed448,
    /// DSA with a digest.
    Dsa(Hash),
    /// Known to OpenSSL or not, but not verified here (the OID, the reason).
    Other(String, String),
}

/// The family of key a signature algorithm needs (OpenSSL's check_sig_alg_match).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFamily {
    Rsa,
    RsaPss,
    Ec,
    Ed25519,
    Ed448,
    Dsa,
    Unknown,
}

impl SigAlg {
    /// The key family OpenSSL pairs with the algorithm (by OID); None for an OID it does
    /// not know as a signature algorithm.
    pub fn key_family(&self) -> Option<KeyFamily> {
        Some(match self {
            SigAlg::Rsa(_) => KeyFamily::Rsa,
            SigAlg::Pss { .. } => KeyFamily::RsaPss,
            SigAlg::Ecdsa(_) => KeyFamily::Ec,
            SigAlg::Ed25519 => KeyFamily::Ed25519,
            SigAlg::Ed448 => KeyFamily::Ed448,
            SigAlg::Dsa(_) => KeyFamily::Dsa,
            SigAlg::Other(oid, _) => return other_sig_family(oid),
        })
    }

    /// The security bits OpenSSL's check_sig_level gives it.
    pub fn security_bits(&self) -> Option<u32> {
        match self {
            SigAlg::Rsa(h) | SigAlg::Ecdsa(h) | SigAlg::Dsa(h) => Some(h.security_bits()),
            SigAlg::Pss { hash, .. } => Some(hash.security_bits()),
            SigAlg::Ed25519 => Some(128),
            SigAlg::Ed448 => Some(224),
            SigAlg::Other(..) => None,
        }
    }

    /// The digest libpq hashes the certificate with for channel binding (tls-server-end-point:
    /// the signature's digest, SHA-256 for MD5 and SHA-1; none for Ed25519 and Ed448).
    pub fn binding_hash(&self) -> Option<Hash> {
        let h = match self {
            SigAlg::Rsa(h) | SigAlg::Ecdsa(h) | SigAlg::Dsa(h) => *h,
            SigAlg::Pss { hash, .. } => *hash,
            _ => return None,
        };
        Some(match h {
            Hash::Md5 | Hash::Sha1 => Hash::Sha256,
            h => h,
        })
    }
}

/// Signature OIDs OpenSSL knows that are not verified here, with the key family it pairs.
fn other_sig_family(oid: &str) -> Option<KeyFamily> {
    Some(match oid {
        // RSA PKCS#1 with SHA-3, SHA-512/224, SHA-512/256, MD4, MD2, RIPEMD160, SHA-1 (the old OID).
        "2.16.840.1.101.3.4.3.13"
        | "2.16.840.1.101.3.4.3.14"
        | "2.16.840.1.101.3.4.3.15"
        | "2.16.840.1.101.3.4.3.16"
        | "1.2.840.113549.1.1.15"
        | "1.2.840.113549.1.1.16"
        | "1.2.840.113549.1.1.3"
        | "1.2.840.113549.1.1.2"
        | "1.3.36.3.3.1.2"
        | "1.3.14.3.2.29" => KeyFamily::Rsa,
        // ECDSA with SHA-3.
        "2.16.840.1.101.3.4.3.9"
        | "2.16.840.1.101.3.4.3.10"
        | "2.16.840.1.101.3.4.3.11"
        | "2.16.840.1.101.3.4.3.12" => KeyFamily::Ec,
        // DSA with SHA-384/512 and SHA-3.
        "2.16.840.1.101.3.4.3.3"
        | "2.16.840.1.101.3.4.3.4"
        | "2.16.840.1.101.3.4.3.5"
        | "2.16.840.1.101.3.4.3.6"
        | "2.16.840.1.101.3.4.3.7"
        | "2.16.840.1.101.3.4.3.8" => KeyFamily::Dsa,
        // SM2, GOST and others: a family of their own.
        "1.2.156.10197.1.501" | "1.2.643.7.1.1.3.2" | "1.2.643.7.1.1.3.3" | "1.2.643.2.2.3" => {
            KeyFamily::Unknown
        }
        _ => return None,
    })
}

/// The usual name of a signature algorithm's OID (for messages).
pub fn alg_name(oid: &str) -> String {
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
        "2.16.840.1.101.3.4.3.1" => "dsa_with_SHA224",
        "2.16.840.1.101.3.4.3.2" => "dsa_with_SHA256",
        _ => return oid.to_string(),
    };
    format!("{name} ({oid})")
}

/// Reads an AlgorithmIdentifier naming a signature algorithm.
pub(super) fn parse_sig_alg(e: &Tlv<'_>) -> Result<SigAlg, String> {
    let what = "the signature algorithm";
    if e.tag != tag::SEQUENCE {
        return Err(format!("{what}: not a SEQUENCE"));
    }
    let mut r = der::inner(e);
    let oid = der::read_oid(&mut r, what)?;
    let params = if r.is_empty() { None } else { Some(r.read()?) };
    r.finish(what)?;
    let null_or_absent = params.is_none_or(|p| p.tag == tag::NULL && p.value.is_empty());
    let absent = params.is_none();
    let other = |why: &str| SigAlg::Other(oid.clone(), why.to_string());
    let rsa = |h| {
        if null_or_absent {
            SigAlg::Rsa(h)
        } else {
            other("its parameters are neither NULL nor absent")
        }
    };
    let ec = |h| {
        if null_or_absent {
            SigAlg::Ecdsa(h)
        } else {
            other("its parameters are neither NULL nor absent")
        }
    };
    Ok(match oid.as_str() {
        "1.2.840.113549.1.1.4" => rsa(Hash::Md5),
        "1.2.840.113549.1.1.5" => rsa(Hash::Sha1),
        "1.2.840.113549.1.1.14" => rsa(Hash::Sha224),
        "1.2.840.113549.1.1.11" => rsa(Hash::Sha256),
        "1.2.840.113549.1.1.12" => rsa(Hash::Sha384),
        "1.2.840.113549.1.1.13" => rsa(Hash::Sha512),
        "1.2.840.10045.4.1" => ec(Hash::Sha1),
        "1.2.840.10045.4.3.1" => ec(Hash::Sha224),
        "1.2.840.10045.4.3.2" => ec(Hash::Sha256),
        "1.2.840.10045.4.3.3" => ec(Hash::Sha384),
        "1.2.840.10045.4.3.4" => ec(Hash::Sha512),
        "1.3.101.112" if absent => SigAlg::Ed25519,
        "1.3.101.113" if absent => SigAlg::Ed448,
        "1.3.101.112" | "1.3.101.113" => other("it has parameters (RFC 8410 has none)"),
        "1.2.840.10040.4.3" => SigAlg::Dsa(Hash::Sha1),
        "2.16.840.1.101.3.4.3.1" => SigAlg::Dsa(Hash::Sha224),
        "2.16.840.1.101.3.4.3.2" => SigAlg::Dsa(Hash::Sha256),
        "1.2.840.113549.1.1.10" => match params {
            Some(p) => parse_pss(&p).unwrap_or_else(|why| other(&why)),
            None => other("RSASSA-PSS without parameters"),
        },
        _ => other("csvload does not know this algorithm"),
    })
}

/// A digest AlgorithmIdentifier inside PSS parameters (NULL or no parameters).
fn pss_hash(e: &Tlv<'_>) -> Result<Hash, String> {
    let mut r = der::inner(e);
    let oid = der::read_oid(&mut r, "a PSS digest")?;
    if let Some(p) = r.optional(tag::NULL, "a PSS digest")?
        && !p.value.is_empty()
    {
        return Err("a PSS digest with parameters".into());
    }
    r.finish("a PSS digest")?;
    Hash::from_oid(&oid)
        .ok_or_else(|| format!("PSS with digest {oid}, which csvload does not know"))
}

/// RSASSA-PSS-params (RFC 4055): digest (default SHA-1), MGF1 and its digest (default SHA-1),
/// salt length (default 20), trailer field (must be 1).
fn parse_pss(p: &Tlv<'_>) -> Result<SigAlg, String> {
    if p.tag != tag::SEQUENCE {
        return Err("RSASSA-PSS parameters that are not a SEQUENCE".into());
    }
    let mut r = der::inner(p);
    let mut hash = Hash::Sha1;
    let mut mgf = Hash::Sha1;
    let mut salt: i64 = 20;
    if let Some(h) = r.optional(0xa0, "PSS digest")? {
        let mut hr = der::inner(&h);
        hash = pss_hash(&hr.expect(tag::SEQUENCE, "PSS digest")?)?;
        hr.finish("PSS digest")?;
    }
    if let Some(m) = r.optional(0xa1, "PSS mask generation")? {
        let mut mr = der::inner(&m);
        let alg = mr.expect(tag::SEQUENCE, "PSS mask generation")?;
        mr.finish("PSS mask generation")?;
        let mut ar = der::inner(&alg);
        let oid = der::read_oid(&mut ar, "PSS mask generation")?;
        if oid != "1.2.840.113549.1.1.8" {
            return Err(format!("PSS with mask generation {oid}, which is not MGF1"));
        }
        mgf = pss_hash(&ar.expect(tag::SEQUENCE, "MGF1 digest")?)?;
        ar.finish("PSS mask generation")?;
    }
    if let Some(s) = r.optional(0xa2, "PSS salt length")? {
        let mut sr = der::inner(&s);
        salt = der::small_integer(&sr.expect(tag::INTEGER, "PSS salt length")?, "PSS salt")?
            .ok_or("a PSS salt length too large")?;
        sr.finish("PSS salt length")?;
    }
    if let Some(t) = r.optional(0xa3, "PSS trailer field")? {
        let mut tr = der::inner(&t);
        let v = der::small_integer(&tr.expect(tag::INTEGER, "PSS trailer")?, "PSS trailer")?;
        tr.finish("PSS trailer field")?;
        if v != Some(1) {
            return Err("a PSS trailer field other than 1".into());
        }
    }
    r.finish("RSASSA-PSS parameters")?;
    if salt < 0 {
        return Err("a negative PSS salt length".into());
    }
    Ok(SigAlg::Pss {
        hash,
        mgf,
        salt: salt as usize,
    })
}

/// A public key, as far as verification needs it.
#[derive(Debug, Clone)]
pub enum Key {
    /// RSA (rsaEncryption): the RSAPublicKey DER, the modulus and exponent (big-endian,
    /// no leading zero), the modulus's bits.
    Rsa {
        der: Vec<u8>,
        n: Vec<u8>,
        e: Vec<u8>,
        bits: usize,
    },
    /// An elliptic-curve key: the named curve's OID (None: explicit parameters), the point.
    Ec {
        curve: Option<String>,
        point: Vec<u8>,
    },
    Ed25519(Vec<u8>),
    Ed448,
    /// Another algorithm (its OID): RSA-PSS keys, DSA, ...
    Other(String),
}

impl Key {
    /// The family for check_sig_alg_match.
    pub fn family(&self) -> KeyFamily {
        match self {
            Key::Rsa { .. } => KeyFamily::Rsa,
            Key::Ec { .. } => KeyFamily::Ec,
            Key::Ed25519(_) => KeyFamily::Ed25519,
            Key::Ed448 => KeyFamily::Ed448,
            Key::Other(o) if o == "1.2.840.113549.1.1.10" => KeyFamily::RsaPss,
            Key::Other(o) if o == "1.2.840.10040.4.1" => KeyFamily::Dsa,
            Key::Other(_) => KeyFamily::Unknown,
        }
    }

    /// The security bits OpenSSL gives the key (None: not known here, so refused).
    pub fn security_bits(&self) -> Option<u32> {
        match self {
            // ossl_ifc_ffc_compute_security_bits at its table points; between them the
            // lower point (OpenSSL's estimate can round up to the next multiple of 8, so
            // a few bits short of 2048 are refused here and maybe not by OpenSSL).
            Key::Rsa { bits, .. } => Some(match *bits {
                b if b >= 15360 => 256,
                b if b >= 7680 => 192,
                b if b >= 3072 => 128,
                b if b >= 2048 => 112,
                b if b >= 1024 => 80,
                _ => 0,
            }),
            Key::Ec { curve, .. } => match curve.as_deref() {
                Some("1.2.840.10045.3.1.7") => Some(128),
                Some("1.3.132.0.34") => Some(192),
                Some("1.3.132.0.35") => Some(256),
                Some("1.3.132.0.33") => Some(112),
                Some("1.3.132.0.10") => Some(128),
                Some("1.2.840.10045.3.1.1") => Some(80),
                _ => None,
            },
            Key::Ed25519(_) => Some(128),
            Key::Ed448 => Some(224),
            Key::Other(_) => None,
        }
    }

    /// A name for messages.
    pub fn describe(&self) -> String {
        match self {
            Key::Rsa { bits, .. } => format!("RSA {bits} bits"),
            Key::Ec { curve: Some(c), .. } => format!("EC {}", curve_name(c)),
            Key::Ec { curve: None, .. } => "EC with explicit curve parameters".into(),
            Key::Ed25519(_) => "Ed25519".into(),
            Key::Ed448 => "Ed448".into(),
            Key::Other(o) if o == "1.2.840.113549.1.1.10" => "RSASSA-PSS".into(),
            Key::Other(o) if o == "1.2.840.10040.4.1" => "DSA".into(),
            Key::Other(o) => format!("of algorithm {o}"),
        }
    }
}

fn curve_name(oid: &str) -> &str {
    match oid {
        "1.2.840.10045.3.1.7" => "P-256",
        "1.3.132.0.34" => "P-384",
        "1.3.132.0.35" => "P-521",
        "1.3.132.0.33" => "P-224",
        "1.3.132.0.10" => "secp256k1",
        "1.2.840.10045.3.1.1" => "P-192",
        o => o,
    }
}

/// Reads a SubjectPublicKeyInfo.
pub(super) fn parse_key(e: &Tlv<'_>) -> Result<Key, String> {
    let what = "the public key";
    let mut r = der::inner(e);
    let alg = r.expect(tag::SEQUENCE, what)?;
    let (_, bits) = der::bit_string(&r.expect(tag::BIT_STRING, what)?, what)?;
    r.finish(what)?;
    let mut ar = der::inner(&alg);
    let oid = der::read_oid(&mut ar, what)?;
    let params = if ar.is_empty() {
        None
    } else {
        Some(ar.read()?)
    };
    ar.finish(what)?;
    Ok(match oid.as_str() {
        "1.2.840.113549.1.1.1" => {
            if params.is_some_and(|p| p.tag != tag::NULL || !p.value.is_empty()) {
                return Err("an RSA key with parameters other than NULL".into());
            }
            let mut kr = Reader::new(&bits);
            let seq = kr.expect(tag::SEQUENCE, "the RSA key")?;
            kr.finish("the RSA key")?;
            let mut sr = der::inner(&seq);
            let n = der::integer(&sr.expect(tag::INTEGER, "the RSA modulus")?, "modulus")?;
            let ex = der::integer(&sr.expect(tag::INTEGER, "the RSA exponent")?, "exponent")?;
            sr.finish("the RSA key")?;
            if n[0] & 0x80 != 0 || ex[0] & 0x80 != 0 {
                return Err("a negative RSA modulus or exponent".into());
            }
            let strip = |v: &[u8]| {
                v.iter()
                    .copied()
                    .skip_while(|&b| b == 0)
                    .collect::<Vec<u8>>()
            };
            let n = strip(n);
            let e = strip(ex);
            let nbits = n
                .first()
                .map_or(0, |b| n.len() * 8 - b.leading_zeros() as usize);
            Key::Rsa {
                der: bits.clone(),
                n,
                e,
                bits: nbits,
            }
        }
        "1.2.840.10045.2.1" => {
            let curve = match params {
                Some(p) if p.tag == tag::OID => {
                    Some(der::oid_text(p.value).map_err(|m| format!("{what}: {m}"))?)
                }
                _ => None,
            };
            Key::Ec { curve, point: bits }
        }
        "1.3.101.112" => Key::Ed25519(bits),
        "1.3.101.113" => Key::Ed448,
        _ => Key::Other(oid),
    })
}
