//! One certificate read as OpenSSL reads it for verification: its fields, validity times as
//! X509_cmp_time reads them, its key and signature algorithm (`alg.rs`) and extensions
//! (`ext.rs`), and OpenSSL's questions of it: self-issued, self-signed, likely issued by
//! another (x509_likely_issued), a CA (check_ca), fit for a TLS server (check_purpose).

use super::Refusal;
use super::alg::{self, Key, KeyFamily, SigAlg};
use super::der::{self, Reader, Tlv, tag};
use super::ext::{self, AltName, Exts, ku, ns};
use super::name::{self, Name};
use crate::pg::types::calendar::{days_from_civil, days_in_month};

/// A validity time as OpenSSL checks it (X509_cmp_time: exactly YYMMDDHHMMSSZ or
/// YYYYMMDDHHMMSSZ, a valid date).
#[derive(Debug, Clone)]
pub struct CertTime {
    /// Seconds since 1970 (None: OpenSSL's "format error in certificate's ... field").
    pub(crate) secs: Option<i64>,
    /// As written, for messages (ISO 8601 when valid).
    pub(crate) text: String,
}

fn parse_time(e: &Tlv<'_>) -> Result<CertTime, String> {
    let raw = String::from_utf8_lossy(e.value).into_owned();
    let bad = CertTime {
        secs: None,
        text: raw.clone(),
    };
    let v = e.value;
    let (year, rest) = match (e.tag, v.len()) {
        (tag::UTC_TIME, 13) => (None, v),
        (tag::GENERALIZED_TIME, 15) => (Some(&v[..4]), &v[4..]),
        (tag::UTC_TIME | tag::GENERALIZED_TIME, _) => return Ok(bad),
        (t, _) => return Err(format!("a validity time of tag 0x{t:02x}")),
    };
    if rest[rest.len() - 1] != b'Z' || !v[..v.len() - 1].iter().all(u8::is_ascii_digit) {
        return Ok(bad);
    }
    let num = |b: &[u8]| b.iter().fold(0i64, |a, &x| a * 10 + (x - b'0') as i64);
    let (y, r) = match year {
        Some(y) => (num(y), rest),
        None => {
            let yy = num(&rest[..2]);
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &rest[2..])
        }
    };
    let (mo, d, h, mi, s) = (
        num(&r[0..2]),
        num(&r[2..4]),
        num(&r[4..6]),
        num(&r[6..8]),
        num(&r[8..10]),
    );
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59 {
        return Ok(bad);
    }
    Ok(CertTime {
        secs: Some(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s),
        text: format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"),
    })
}

/// One certificate, parsed.
#[derive(Debug, Clone)]
pub struct Cert {
    /// The certificate as received.
    pub(crate) der: Vec<u8>,
    /// The tbsCertificate as received (what the signature covers).
    pub(crate) tbs: Vec<u8>,
    /// The subject for messages.
    pub(crate) subject: String,
    /// The issuer for messages.
    pub(crate) issuer_text: String,
    pub(crate) subject_name: Name,
    pub(crate) issuer_name: Name,
    /// X.509 version field: 0 (v1) or 2 (v3).
    pub(crate) version: u8,
    /// The serial number's contents.
    pub(crate) serial: Vec<u8>,
    /// The inner (tbsCertificate) and outer signature AlgorithmIdentifiers as encoded.
    pub(crate) inner_alg: Vec<u8>,
    pub(crate) outer_alg: Vec<u8>,
    /// The inner algorithm (what OpenSSL pairs with the issuer's key type).
    pub(crate) inner_sig: SigAlg,
    /// The outer algorithm (what the signature is checked with).
    pub(crate) sig: SigAlg,
    pub(crate) signature: Vec<u8>,
    /// Unused bits of the signature BIT STRING (OpenSSL refuses a signature with any).
    pub(crate) signature_unused: u8,
    /// The SubjectPublicKeyInfo as encoded.
    pub(crate) spki: Vec<u8>,
    pub(crate) key: Key,
    pub(crate) not_before: CertTime,
    pub(crate) not_after: CertTime,
    pub(crate) exts: Exts,
}

/// Control characters escaped for the terminal.
pub fn printable(s: &str) -> String {
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

impl Cert {
    /// Parses a certificate; `what` names it for messages ("the server's certificate").
    /// `trailing_ok`: bytes after the certificate are ignored (OpenSSL's d2i_X509 does not
    /// look at them in a PEM block; in a TLS message they are an error).
    pub fn parse(der: &[u8], what: &str, trailing_ok: bool) -> Result<Cert, Refusal> {
        let unreadable = |why: String| Refusal::Unreadable {
            what: what.to_string(),
            why,
        };
        let mut top = Reader::new(der);
        let cert = top
            .expect(tag::SEQUENCE, "the certificate")
            .map_err(unreadable)?;
        if !trailing_ok {
            top.finish("the certificate").map_err(unreadable)?;
        }
        let mut r = der::inner(&cert);
        let tbs = r
            .expect(tag::SEQUENCE, "tbsCertificate")
            .map_err(unreadable)?;
        let outer = r
            .expect(tag::SEQUENCE, "signatureAlgorithm")
            .map_err(unreadable)?;
        let sig_e = r.expect(tag::BIT_STRING, "signature").map_err(unreadable)?;
        r.finish("the certificate").map_err(unreadable)?;
        let (signature_unused, _) = der::bit_string(&sig_e, "signature").map_err(unreadable)?;
        let signature = sig_e.value[1..].to_vec();
        let mut t = der::inner(&tbs);
        let mut version = 0u8;
        if let Some(v) = t.optional(0xa0, "version").map_err(unreadable)? {
            let mut vr = der::inner(&v);
            let n = der::small_integer(
                &vr.expect(tag::INTEGER, "version").map_err(unreadable)?,
                "version",
            )
            .map_err(unreadable)?;
            vr.finish("version").map_err(unreadable)?;
            version = match n {
                Some(2) => 2,
                Some(0) => {
                    return Err(Refusal::Unsupported {
                        subject: what.to_string(),
                        what: "its version field says v1 (DER leaves that default out), which \
                               csvload does not read"
                            .into(),
                    });
                }
                Some(1) => {
                    return Err(Refusal::Unsupported {
                        subject: what.to_string(),
                        what: "it is an X.509 version 2 certificate, which csvload does not take"
                            .into(),
                    });
                }
                _ => {
                    return Err(unreadable(match n {
                        Some(n) => format!("an unknown X.509 version {}", n + 1),
                        None => "an X.509 version number too large".into(),
                    }));
                }
            };
        }
        let serial_e = t.expect(tag::INTEGER, "serialNumber").map_err(unreadable)?;
        if serial_e.value.is_empty() {
            return Err(unreadable("an empty serial number".into()));
        }
        let inner = t.expect(tag::SEQUENCE, "signature").map_err(unreadable)?;
        let issuer_e = t.expect(tag::SEQUENCE, "issuer").map_err(unreadable)?;
        let validity = t.expect(tag::SEQUENCE, "validity").map_err(unreadable)?;
        let subject_e = t.expect(tag::SEQUENCE, "subject").map_err(unreadable)?;
        let spki_e = t
            .expect(tag::SEQUENCE, "subjectPublicKeyInfo")
            .map_err(unreadable)?;
        let issuer_name = name::parse(&issuer_e, "the issuer name").map_err(unreadable)?;
        let subject_name = name::parse(&subject_e, "the subject name").map_err(unreadable)?;
        let mut vr = der::inner(&validity);
        let nb = vr.read().and_then(|e| parse_time(&e)).map_err(unreadable)?;
        let na = vr.read().and_then(|e| parse_time(&e)).map_err(unreadable)?;
        vr.finish("validity").map_err(unreadable)?;
        let key = alg::parse_key(&spki_e).map_err(unreadable)?;
        let inner_sig = alg::parse_sig_alg(&inner).map_err(unreadable)?;
        let sig = alg::parse_sig_alg(&outer).map_err(unreadable)?;
        // Unique identifiers (v2 and v3 only).
        for n in [0x81u8, 0xa1, 0x82, 0xa2] {
            if t.peek() == Some(n) {
                if version == 0 {
                    return Err(unreadable("a unique identifier in a v1 certificate".into()));
                }
                t.read().map_err(unreadable)?;
            }
        }
        let subject = printable(&subject_name.text);
        let mut c = Cert {
            der: der[..cert.raw.len()].to_vec(),
            tbs: tbs.raw.to_vec(),
            issuer_text: printable(&issuer_name.text),
            subject: subject.clone(),
            subject_name,
            issuer_name,
            version,
            serial: serial_e.value.to_vec(),
            inner_alg: inner.raw.to_vec(),
            outer_alg: outer.raw.to_vec(),
            inner_sig,
            sig,
            signature,
            signature_unused,
            spki: spki_e.raw.to_vec(),
            key,
            not_before: nb,
            not_after: na,
            exts: Exts::default(),
        };
        if let Some(exts) = t.optional(0xa3, "extensions").map_err(unreadable)? {
            if version != 2 {
                return Err(Refusal::Unsupported {
                    subject,
                    what: "it has extensions but is not an X.509 v3 certificate, which csvload \
                           does not take"
                        .into(),
                });
            }
            c.exts = ext::read_all(&exts, what)?;
        }
        t.finish("tbsCertificate").map_err(unreadable)?;
        Ok(c)
    }

    /// Self-issued: subject and issuer names equal (X509_NAME_cmp).
    pub fn self_issued(&self) -> bool {
        self.subject_name.canon == self.issuer_name.canon
    }

    /// OpenSSL's X509_check_akid: the authorityKeyIdentifier of `self` fits `issuer`.
    pub fn akid_fits(&self, issuer: &Cert) -> bool {
        let Some(a) = &self.exts.akid else {
            return true;
        };
        if let (Some(k), Some(s)) = (&a.keyid, &issuer.exts.skid)
            && k != s
        {
            return false;
        }
        if let Some(serial) = &a.serial
            && serial != &issuer.serial
        {
            return false;
        }
        if let Some(n) = &a.issuer
            && n != &issuer.issuer_name.canon
        {
            return false;
        }
        true
    }

    /// OpenSSL's check_sig_alg_match: `self`'s inner signature algorithm fits `issuer`'s key.
    pub fn sig_fits_key(&self, issuer: &Cert) -> bool {
        match self.inner_sig.key_family() {
            None => false,
            Some(f) => {
                let k = issuer.key.family();
                f == k || (k == KeyFamily::Rsa && f == KeyFamily::RsaPss)
            }
        }
    }

    /// EXFLAG_SS: self-issued, its key identifiers agree, its signature algorithm fits its key.
    pub fn self_signed(&self) -> bool {
        self.self_issued() && self.akid_fits(self) && self.sig_fits_key(self)
    }

    /// OpenSSL's x509_likely_issued (check_issued when building the chain): names, key
    /// identifiers, signature algorithm against key type; never an invalid certificate.
    pub fn likely_issued_by(&self, issuer: &Cert) -> bool {
        self.issuer_name.canon == issuer.subject_name.canon
            && self.exts.invalid.is_none()
            && issuer.exts.invalid.is_none()
            && self.akid_fits(issuer)
            && self.sig_fits_key(issuer)
    }

    fn ku_reject(&self, bits: u16) -> bool {
        self.exts.ku.is_some_and(|k| k & bits == 0)
    }

    /// Whether keyUsage, when present, allows signing certificates.
    pub fn may_sign_certificates(&self) -> bool {
        !self.ku_reject(ku::KEY_CERT_SIGN)
    }

    /// OpenSSL's check_ca: 0 not a CA, 1 basicConstraints CA, 3 a self-signed v1 root, 4
    /// keyUsage with keyCertSign and no basicConstraints, 5 a Netscape CA type only.
    pub fn check_ca(&self) -> u8 {
        if self.exts.invalid.is_some() || self.ku_reject(ku::KEY_CERT_SIGN) {
            return 0;
        }
        match self.exts.bc {
            Some((ca, _)) => ca as u8,
            None if self.version == 0 && self.self_signed() => 3,
            None if self.exts.ku.is_some() => 4,
            None if self.exts.ns.is_some_and(|n| n & ns::ANY_CA != 0) => 5,
            None => 0,
        }
    }

    /// check_purpose_ssl_server: None when the purpose allows it, else why not.
    pub fn server_purpose(&self, as_ca: bool) -> Option<String> {
        if let Some(e) = self.exts.eku
            && !(e.server_auth || e.sgc)
        {
            return Some("its extendedKeyUsage does not include serverAuth".into());
        }
        if as_ca {
            return None;
        }
        if self.exts.ns.is_some_and(|n| n & ns::SSL_SERVER == 0) {
            return Some("its Netscape cert type does not allow an SSL server".into());
        }
        if self.ku_reject(ku::DIGITAL_SIGNATURE | ku::KEY_ENCIPHERMENT | ku::KEY_AGREEMENT) {
            return Some(
                "its keyUsage allows none of digitalSignature, keyEncipherment, keyAgreement"
                    .into(),
            );
        }
        None
    }

    /// The DER of the SubjectPublicKeyInfo (for the handshake signature).
    pub fn spki(&self) -> &[u8] {
        &self.spki
    }

    /// The subjectAltName entries (None without the extension).
    pub fn alt_names(&self) -> Option<&[AltName]> {
        self.exts.san.as_deref()
    }

    /// The Common Names of the subject, raw.
    pub fn common_names(&self) -> &[Vec<u8>] {
        &self.subject_name.cns
    }
}
