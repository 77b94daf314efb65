//! A certificate's extensions into the facts OpenSSL caches of them (x509v3_cache_extensions
//! in v3_purp.c): basicConstraints, keyUsage, extendedKeyUsage, Netscape cert type, key
//! identifiers, subjectAltName, the distribution points; whether the certificate is invalid
//! (EXFLAG_INVALID: an extension OpenSSL reads that does not decode or appears twice, a
//! negative path length, an empty keyUsage) or has a critical extension OpenSSL does not
//! handle; and what csvload refuses to take without checking (nameConstraints, RFC 3779).

use super::Refusal;
use super::der::{self, Reader, Tlv, tag};
use super::name;

/// extendedKeyUsage facts (OpenSSL's XKU_ bits that matter for a TLS server).
#[derive(Debug, Clone, Copy, Default)]
pub struct Eku {
    pub(crate) server_auth: bool,
    pub(crate) sgc: bool,
    pub(crate) any: bool,
}

/// An authorityKeyIdentifier.
#[derive(Debug, Clone, Default)]
pub struct Akid {
    pub(crate) keyid: Option<Vec<u8>>,
    /// The first directoryName of authorityCertIssuer (canonical form).
    pub(crate) issuer: Option<Vec<u8>>,
    /// authorityCertSerialNumber's contents.
    pub(crate) serial: Option<Vec<u8>>,
}

/// A subjectAltName entry libpq looks at.
#[derive(Debug, Clone)]
pub enum AltName {
    Dns(Vec<u8>),
    Ip(Vec<u8>),
    Other,
}

/// Facts of the extensions, as OpenSSL caches them.
#[derive(Debug, Clone, Default)]
pub struct Exts {
    /// basicConstraints: cA, and pathLenConstraint (None also when it does not fit, as
    /// OpenSSL's ex_pathlen is then -1).
    pub(crate) bc: Option<(bool, Option<i64>)>,
    /// keyUsage bits (bit 0 digitalSignature is 0x80 of the first byte, as ex_kusage).
    pub(crate) ku: Option<u16>,
    pub(crate) eku: Option<Eku>,
    /// Netscape cert type, its first byte.
    pub(crate) ns: Option<u8>,
    pub(crate) skid: Option<Vec<u8>>,
    pub(crate) akid: Option<Akid>,
    pub(crate) san: Option<Vec<AltName>>,
    /// The first critical extension OpenSSL does not handle (EXFLAG_CRITICAL).
    pub(crate) unhandled_critical: Option<String>,
    /// Why OpenSSL takes the certificate as invalid (EXFLAG_INVALID).
    pub(crate) invalid: Option<String>,
    /// What csvload does not check, so it refuses (nameConstraints, RFC 3779, ...).
    pub(crate) unsupported: Option<String>,
    /// A proxy certificate (proxyCertInfo).
    pub(crate) proxy: bool,
}

/// keyUsage bits as OpenSSL's KU_ values.
pub mod ku {
    pub const DIGITAL_SIGNATURE: u16 = 0x0080;
    pub const KEY_ENCIPHERMENT: u16 = 0x0020;
    pub const KEY_AGREEMENT: u16 = 0x0008;
    pub const KEY_CERT_SIGN: u16 = 0x0004;
}

/// Netscape cert type bits (NS_).
pub mod ns {
    pub const SSL_SERVER: u8 = 0x40;
    pub const ANY_CA: u8 = 0x07;
}

/// Critical extensions OpenSSL handles (X509_supported_extension).
const SUPPORTED_CRITICAL: [&str; 15] = [
    "2.16.840.1.113730.1.1",
    "2.5.29.15",
    "2.5.29.17",
    "2.5.29.19",
    "2.5.29.32",
    "2.5.29.31",
    "2.5.29.37",
    "1.3.6.1.5.5.7.1.7",
    "1.3.6.1.5.5.7.1.8",
    "1.3.6.1.5.5.7.48.1.5",
    "2.5.29.36",
    "1.3.6.1.5.5.7.1.14",
    "2.5.29.30",
    "2.5.29.33",
    "2.5.29.54",
];

/// The extensions OpenSSL decodes when it caches a certificate's facts (a failure, or two of
/// one, makes the certificate invalid); nameConstraints, proxyCertInfo and the RFC 3779 ones
/// are refused here before that matters.
const OPENSSL_READS: [&str; 12] = [
    "2.5.29.19",
    "2.5.29.15",
    "2.5.29.37",
    "2.16.840.1.113730.1.1",
    "2.5.29.14",
    "2.5.29.35",
    "2.5.29.17",
    "2.5.29.31",
    "2.5.29.30",
    "1.3.6.1.5.5.7.1.14",
    "1.3.6.1.5.5.7.1.7",
    "1.3.6.1.5.5.7.1.8",
];

/// The name of an extension for messages.
pub fn ext_name(oid: &str) -> String {
    let n = match oid {
        "2.5.29.19" => "basicConstraints",
        "2.5.29.15" => "keyUsage",
        "2.5.29.37" => "extendedKeyUsage",
        "2.5.29.17" => "subjectAltName",
        "2.5.29.14" => "subjectKeyIdentifier",
        "2.5.29.35" => "authorityKeyIdentifier",
        "2.5.29.30" => "nameConstraints",
        "2.5.29.31" => "cRLDistributionPoints",
        "2.5.29.32" => "certificatePolicies",
        "2.16.840.1.113730.1.1" => "nsCertType",
        "1.3.6.1.5.5.7.1.1" => "authorityInfoAccess",
        "1.3.6.1.5.5.7.1.7" => "ipAddrBlocks",
        "1.3.6.1.5.5.7.1.8" => "autonomousSysIds",
        "1.3.6.1.5.5.7.1.14" => "proxyCertInfo",
        "2.5.29.18" => "issuerAltName",
        _ => return oid.to_string(),
    };
    format!("{n} ({oid})")
}

/// Reads GeneralNames (subjectAltName, authorityCertIssuer, a distribution point's names):
/// the DNS names and IP addresses, and the first directoryName's canonical form.
fn general_names(v: &Tlv<'_>) -> Result<(Vec<AltName>, Option<Vec<u8>>), String> {
    let what = "GeneralNames";
    let mut r = der::inner(v);
    let mut names = vec![];
    let mut dir = None;
    while !r.is_empty() {
        let g = r.read()?;
        match g.tag {
            // rfc822Name, dNSName, uniformResourceIdentifier: IA5String, read as bytes (OpenSSL
            // does not check their characters).
            0x81 | 0x86 => names.push(AltName::Other),
            0x82 => names.push(AltName::Dns(g.value.to_vec())),
            0x87 => names.push(AltName::Ip(g.value.to_vec())),
            // otherName: type-id and [0] EXPLICIT value.
            0xa0 => {
                let mut or = der::inner(&g);
                der::read_oid(&mut or, "otherName")?;
                let val = or.expect(0xa0, "otherName value")?;
                let mut vr = der::inner(&val);
                vr.read()?;
                vr.finish("otherName value")?;
                or.finish("otherName")?;
                names.push(AltName::Other);
            }
            // directoryName: [4] EXPLICIT Name.
            0xa4 => {
                let mut dr = der::inner(&g);
                let n = name::parse(&dr.expect(tag::SEQUENCE, "directoryName")?, "directoryName")?;
                dr.finish("directoryName")?;
                if dir.is_none() {
                    dir = Some(n.canon);
                }
                names.push(AltName::Other);
            }
            // registeredID.
            0x88 => {
                der::oid_text(g.value)?;
                names.push(AltName::Other);
            }
            t => {
                return Err(format!(
                    "{what}: a name of tag 0x{t:02x}, which csvload does not read"
                ));
            }
        }
    }
    Ok((names, dir))
}

/// cRLDistributionPoints: every point has a name or a CRL issuer (OpenSSL's setup_dp).
fn check_crldp(v: &Tlv<'_>) -> Result<Option<String>, String> {
    let mut r = der::inner(v);
    while !r.is_empty() {
        let dp = r.expect(tag::SEQUENCE, "DistributionPoint")?;
        let mut pr = der::inner(&dp);
        let mut has_name = false;
        let mut has_issuer = false;
        if let Some(n) = pr.optional(0xa0, "distributionPoint")? {
            let mut nr = der::inner(&n);
            let choice = nr.read()?;
            nr.finish("distributionPoint")?;
            match choice.tag {
                0xa0 => {
                    general_names(&choice)?;
                }
                0xa1 => {
                    // nameRelativeToCRLIssuer: a SET of AttributeTypeAndValue.
                    let mut sr = der::inner(&choice);
                    while !sr.is_empty() {
                        sr.expect(tag::SEQUENCE, "nameRelativeToCRLIssuer")?;
                    }
                }
                t => return Err(format!("a distribution point name of tag 0x{t:02x}")),
            }
            has_name = true;
        }
        if let Some(reasons) = pr.optional(0x81, "reasons")? {
            der::bit_string(&reasons, "reasons")?;
        }
        if let Some(iss) = pr.optional(0xa2, "cRLIssuer")? {
            let (names, _) = general_names(&iss)?;
            has_issuer = !names.is_empty();
        }
        pr.finish("DistributionPoint")?;
        if !has_name && !has_issuer {
            return Ok(Some(
                "a CRL distribution point with neither a name nor a CRL issuer".into(),
            ));
        }
    }
    Ok(None)
}

fn parse_akid(v: &Tlv<'_>) -> Result<Akid, String> {
    let mut r = der::inner(v);
    let mut a = Akid::default();
    if let Some(k) = r.optional(0x80, "keyIdentifier")? {
        a.keyid = Some(k.value.to_vec());
    }
    if let Some(i) = r.optional(0xa1, "authorityCertIssuer")? {
        a.issuer = general_names(&i)?.1;
    }
    if let Some(s) = r.optional(0x82, "authorityCertSerialNumber")? {
        a.serial = Some(der::integer(&s, "authorityCertSerialNumber")?.to_vec());
    }
    r.finish("authorityKeyIdentifier")?;
    Ok(a)
}

/// Reads one extension's value into `x`; Err when it does not decode (OpenSSL then takes
/// the certificate as invalid).
fn read_ext(x: &mut Exts, oid: &str, value: &[u8]) -> Result<(), String> {
    let mut r = Reader::new(value);
    let e = r.read()?;
    // OpenSSL does not look past an extension's value (X509V3_EXT_d2i); bytes after it are
    // refused here all the same (see unreadable below).
    r.finish("the extension")?;
    match oid {
        "2.5.29.19" => {
            if e.tag != tag::SEQUENCE {
                return Err("not a SEQUENCE".into());
            }
            let mut br = der::inner(&e);
            let ca = match br.optional(tag::BOOLEAN, "cA")? {
                Some(b) => der::boolean(&b, "cA")?,
                None => false,
            };
            let pathlen = match br.optional(tag::INTEGER, "pathLenConstraint")? {
                Some(p) => {
                    let v = der::small_integer(&p, "pathLenConstraint")?;
                    if p.value[0] & 0x80 != 0 {
                        x.invalid = Some("a negative pathLenConstraint".into());
                    }
                    v.filter(|&n| n >= 0)
                }
                None => None,
            };
            br.finish("basicConstraints")?;
            x.bc = Some((ca, pathlen));
        }
        "2.5.29.15" => {
            if e.tag != tag::BIT_STRING {
                return Err("not a BIT STRING".into());
            }
            let (_, b) = der::bit_string(&e, "keyUsage")?;
            let v = b.first().copied().unwrap_or(0) as u16
                | (b.get(1).copied().unwrap_or(0) as u16) << 8;
            if v == 0 {
                x.invalid = Some("an empty keyUsage".into());
            }
            x.ku = Some(v);
        }
        "2.5.29.37" => {
            if e.tag != tag::SEQUENCE {
                return Err("not a SEQUENCE".into());
            }
            let mut er = der::inner(&e);
            let mut k = Eku::default();
            while !er.is_empty() {
                match der::read_oid(&mut er, "a key purpose")?.as_str() {
                    "1.3.6.1.5.5.7.3.1" => k.server_auth = true,
                    "2.16.840.1.113730.4.1" | "1.3.6.1.4.1.311.10.3.3" => k.sgc = true,
                    "2.5.29.37.0" => k.any = true,
                    _ => {}
                }
            }
            x.eku = Some(k);
        }
        "2.16.840.1.113730.1.1" => {
            if e.tag != tag::BIT_STRING {
                return Err("not a BIT STRING".into());
            }
            let (_, b) = der::bit_string(&e, "nsCertType")?;
            x.ns = Some(b.first().copied().unwrap_or(0));
        }
        "2.5.29.14" => {
            if e.tag != tag::OCTET_STRING {
                return Err("not an OCTET STRING".into());
            }
            x.skid = Some(e.value.to_vec());
        }
        "2.5.29.35" => {
            if e.tag != tag::SEQUENCE {
                return Err("not a SEQUENCE".into());
            }
            x.akid = Some(parse_akid(&e)?);
        }
        "2.5.29.17" => {
            if e.tag != tag::SEQUENCE {
                return Err("not a SEQUENCE".into());
            }
            x.san = Some(general_names(&e)?.0);
        }
        "2.5.29.31" => {
            if e.tag != tag::SEQUENCE {
                return Err("not a SEQUENCE".into());
            }
            if let Some(why) = check_crldp(&e)? {
                x.invalid = Some(why);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Reads a certificate's extensions (`[3]` and its SEQUENCE) into the facts OpenSSL caches.
pub(super) fn read_all(wrapper: &Tlv<'_>, what: &str) -> Result<Exts, Refusal> {
    let unreadable = |why: String| Refusal::Unreadable {
        what: what.to_string(),
        why,
    };
    let mut wr = der::inner(wrapper);
    let list = wr.expect(tag::SEQUENCE, "extensions").map_err(unreadable)?;
    wr.finish("extensions").map_err(unreadable)?;
    let mut r = der::inner(&list);
    let mut seen: Vec<String> = vec![];
    let mut x = Exts::default();
    while !r.is_empty() {
        let e = r
            .expect(tag::SEQUENCE, "an extension")
            .map_err(unreadable)?;
        let mut er = der::inner(&e);
        let oid = der::read_oid(&mut er, "an extension").map_err(unreadable)?;
        let critical = match er.optional(tag::BOOLEAN, "critical").map_err(unreadable)? {
            Some(b) => der::boolean(&b, "critical").map_err(unreadable)?,
            None => false,
        };
        let value = er
            .expect(tag::OCTET_STRING, "extnValue")
            .map_err(unreadable)?;
        er.finish("an extension").map_err(unreadable)?;
        if seen.contains(&oid) {
            // RFC 5280 forbids it. OpenSSL 3.0 takes the certificate as invalid when it is
            // one of the extensions it reads (X509_get_ext_d2i finds two); a repeated
            // extension it does not read it lets pass, later releases refuse any: refused
            // here either way.
            let twice = format!("extension {} appears twice", ext_name(&oid));
            if OPENSSL_READS.contains(&oid.as_str()) {
                x.invalid.get_or_insert(twice);
            } else {
                x.unsupported.get_or_insert(format!(
                    "{twice}, which RFC 5280 forbids and csvload refuses (OpenSSL 3.0 lets \
                     it pass, later releases refuse it)"
                ));
            }
        }
        seen.push(oid.clone());
        if critical && !SUPPORTED_CRITICAL.contains(&oid.as_str()) && x.unhandled_critical.is_none()
        {
            x.unhandled_critical = Some(oid.clone());
        }
        match oid.as_str() {
            "2.5.29.30" => {
                x.unsupported.get_or_insert(
                    "it has nameConstraints, which csvload does not check (OpenSSL applies \
                     them to every certificate below, critical or not)"
                        .into(),
                );
            }
            "1.3.6.1.5.5.7.1.7" | "1.3.6.1.5.5.7.1.8" => {
                x.unsupported.get_or_insert(format!(
                    "it has the RFC 3779 extension {}, which csvload does not check",
                    ext_name(&oid)
                ));
            }
            "1.3.6.1.5.5.7.1.14" => x.proxy = true,
            _ => {}
        }
        if let Err(why) = read_ext(&mut x, &oid, value.value)
            && OPENSSL_READS.contains(&oid.as_str())
        {
            {
                // What OpenSSL cannot decode makes the certificate invalid; what csvload
                // cannot read (a BER form) it refuses (OpenSSL might read it).
                if why.contains("BER") || why.contains("csvload does not read") {
                    return Err(unreadable(format!(
                        "its {} extension: {why}",
                        ext_name(&oid)
                    )));
                }
                x.invalid.get_or_insert(format!(
                    "its {} extension does not decode: {why}",
                    ext_name(&oid)
                ));
            }
        }
    }
    Ok(x)
}
