//! The trusted certificates: `sslrootcert` read as OpenSSL reads a CA file for libpq
//! (SSL_CTX_load_verify_locations: PEM_X509_INFO_read_bio), or the operating system's store.
//!
//! OpenSSL's rules kept: text outside `-----BEGIN`/`-----END` lines is skipped; CERTIFICATE,
//! X509 CERTIFICATE and TRUSTED CERTIFICATE blocks are certificates, bytes after a
//! certificate's DER inside its block are not looked at, and a TRUSTED CERTIFICATE carries
//! trust settings after it (which must decode); blocks of other names are skipped; a block
//! that does not decode fails the whole file, and so does a file without a certificate.
//! Refused here where OpenSSL might do otherwise: private keys and CRLs in the file (OpenSSL
//! decodes them too), PEM headers, and a certificate csvload cannot read.

use super::cert::Cert;
use super::der::{self, Reader, tag};

/// How a root-file certificate's trust settings (TRUSTED CERTIFICATE) treat a TLS server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// No settings: trusted when self-signed.
    Default,
    /// Trusted for serverAuth or anyExtendedKeyUsage.
    Trusted,
    /// Rejected for them, or trusted only for other purposes.
    Rejected,
}

/// One trusted certificate.
#[derive(Debug, Clone)]
pub struct Entry {
    pub(crate) cert: Cert,
    pub(crate) trust: Trust,
}

/// The trusted certificates, in the order OpenSSL looks through them.
#[derive(Debug, Clone, Default)]
pub struct Store {
    pub(crate) certs: Vec<Entry>,
    /// Certificates of the operating system's store csvload could not read: the canonical
    /// subject when it could be found (a chain that would look for an issuer of that name,
    /// or any chain when the name is unknown, is refused).
    pub(crate) unreadable: Vec<(Option<Vec<u8>>, String)>,
}

/// One PEM block: its label and decoded bytes.
struct Block {
    label: String,
    der: Vec<u8>,
}

fn base64_value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

fn base64(text: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = vec![];
    let mut acc = 0u32;
    let mut n = 0;
    let mut pad = 0;
    for &c in text {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            pad += 1;
            continue;
        }
        if pad > 0 {
            return Err("base64 data after its padding".into());
        }
        let v = base64_value(c)
            .ok_or_else(|| format!("a character {:?} that is not base64", c as char))?;
        acc = (acc << 6) | v;
        n += 1;
        if n == 4 {
            out.extend([(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
            acc = 0;
            n = 0;
        }
    }
    match (n, pad) {
        (0, 0) => {}
        (2, 2) => out.push((acc >> 4) as u8),
        (3, 1) => out.extend([(acc >> 10) as u8, (acc >> 2) as u8]),
        _ => return Err("base64 data of a length that does not decode".into()),
    }
    Ok(out)
}

/// The PEM blocks of a file, as OpenSSL's PEM_read_bio finds them.
fn blocks(text: &[u8]) -> Result<Vec<Block>, String> {
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect();
    let mut out = vec![];
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim_ascii_end();
        let Some(label) = trimmed
            .strip_prefix(b"-----BEGIN ")
            .and_then(|r| r.strip_suffix(b"-----"))
        else {
            continue;
        };
        let label = String::from_utf8_lossy(label).into_owned();
        let end = format!("-----END {label}-----");
        let mut body = vec![];
        let mut closed = false;
        while i < lines.len() {
            let l = lines[i].trim_ascii_end();
            i += 1;
            if l == end.as_bytes() {
                closed = true;
                break;
            }
            if l.starts_with(b"-----END ") {
                return Err(format!("a {label} block ends with another name"));
            }
            if l.contains(&b':') {
                return Err(format!(
                    "a {label} block with PEM headers, which csvload does not read"
                ));
            }
            body.extend_from_slice(l);
            body.push(b'\n');
        }
        if !closed {
            return Err(format!("a {label} block without its END line"));
        }
        let der = base64(&body).map_err(|e| format!("a {label} block: {e}"))?;
        out.push(Block { label, der });
    }
    Ok(out)
}

/// Trust settings after a TRUSTED CERTIFICATE's DER (X509_CERT_AUX): trusted and rejected
/// purposes, alias, key id, other.
fn trust_settings(aux: &[u8]) -> Result<Trust, String> {
    if aux.is_empty() {
        return Ok(Trust::Default);
    }
    let mut r = Reader::new(aux);
    let seq = r.expect(tag::SEQUENCE, "trust settings")?;
    let mut sr = der::inner(&seq);
    let oids = |e: &der::Tlv<'_>| -> Result<Vec<String>, String> {
        let mut or = der::inner(e);
        let mut v = vec![];
        while !or.is_empty() {
            v.push(der::read_oid(&mut or, "a trust purpose")?);
        }
        Ok(v)
    };
    let trust = match sr.optional(tag::SEQUENCE, "trusted purposes")? {
        Some(t) => Some(oids(&t)?),
        None => None,
    };
    let reject = match sr.optional(0xa0, "rejected purposes")? {
        Some(t) => oids(&t)?,
        None => vec![],
    };
    sr.optional(tag::UTF8_STRING, "alias")?;
    sr.optional(tag::OCTET_STRING, "key id")?;
    sr.optional(0xa1, "other")?;
    sr.finish("trust settings")?;
    let server = |o: &String| o == "1.3.6.1.5.5.7.3.1" || o == "2.5.29.37.0";
    Ok(if reject.iter().any(server) {
        Trust::Rejected
    } else {
        match trust {
            Some(t) if t.iter().any(server) => Trust::Trusted,
            Some(_) => Trust::Rejected,
            None => Trust::Default,
        }
    })
}

/// The first element's length in bytes (for the bytes after a certificate).
fn first_len(b: &[u8]) -> Option<usize> {
    Reader::new(b).read().ok().map(|e| e.raw.len())
}

/// Best-effort canonical subject of a certificate csvload cannot read.
fn subject_of(der_bytes: &[u8]) -> Option<Vec<u8>> {
    let mut r = Reader::new(der_bytes);
    let c = r.read().ok()?;
    let mut cr = der::inner(&c);
    let tbs = cr.read().ok()?;
    let mut t = der::inner(&tbs);
    if t.peek() == Some(0xa0) {
        t.read().ok()?;
    }
    for _ in 0..4 {
        t.read().ok()?;
    }
    let subject = t.read().ok()?;
    super::name::parse(&subject, "subject")
        .ok()
        .map(|n| n.canon)
}

impl Store {
    /// Reads a root certificate file (`source` names it for messages).
    pub fn from_pem(text: &[u8], source: &str) -> Result<Store, String> {
        let blocks = blocks(text).map_err(|e| format!("could not read {source}: {e}"))?;
        let mut store = Store::default();
        for (i, b) in blocks.iter().enumerate() {
            let what = format!("certificate {} of {source}", i + 1);
            match b.label.as_str() {
                "CERTIFICATE" | "X509 CERTIFICATE" | "TRUSTED CERTIFICATE" => {
                    let cert = Cert::parse(&b.der, &what, true).map_err(|r| r.to_string())?;
                    let trust = if b.label == "TRUSTED CERTIFICATE" {
                        let used = first_len(&b.der).unwrap_or(b.der.len());
                        trust_settings(&b.der[used..])
                            .map_err(|e| format!("could not read {source}: {what}: {e}"))?
                    } else {
                        Trust::Default
                    };
                    store.certs.push(Entry { cert, trust });
                }
                "X509 CRL" => {
                    return Err(format!(
                        "{source} holds a certificate revocation list, which csvload does not \
                         read (keep only certificates in it)"
                    ));
                }
                l if l.contains("PRIVATE KEY") => {
                    return Err(format!(
                        "{source} holds a private key ({l}), which csvload does not read (keep \
                         only certificates in it)"
                    ));
                }
                _ => {}
            }
        }
        if store.certs.is_empty() {
            return Err(format!("{source} holds no certificate"));
        }
        Ok(store)
    }

    /// The operating system's trusted certificates (DER): those csvload cannot read are kept
    /// aside by name, so a chain that could need them is refused.
    pub fn from_ders<'a>(ders: impl IntoIterator<Item = &'a [u8]>) -> Store {
        let mut store = Store::default();
        for d in ders {
            match Cert::parse(d, "a certificate of the operating system's store", true) {
                Ok(cert) => store.certs.push(Entry {
                    cert,
                    trust: Trust::Default,
                }),
                Err(r) => store.unreadable.push((subject_of(d), r.to_string())),
            }
        }
        store
    }

    /// Whether a certificate csvload could not read might be the issuer named `canon`.
    pub fn unreadable_named(&self, canon: &[u8]) -> Option<&str> {
        self.unreadable
            .iter()
            .find(|(n, _)| n.as_deref().is_none_or(|n| n == canon))
            .map(|(_, why)| why.as_str())
    }

    /// The certificates (for the handshake signature check and tests).
    pub fn len(&self) -> usize {
        self.certs.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.certs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_pem_has_it() {
        assert_eq!(base64(b"aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64(b"aGVs\nbG8h").unwrap(), b"hello!");
        assert!(base64(b"aGVsbG8=x").is_err());
        assert!(base64(b"a$==").is_err());
    }

    #[test]
    fn blocks_skip_text_and_need_their_end() {
        let b = blocks(b"junk\n-----BEGIN X-----\naGk=\n-----END X-----\nxx").unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].der, b"hi");
        assert!(blocks(b"-----BEGIN X-----\naGk=\n").is_err());
        assert!(blocks(b"-----BEGIN X-----\naGk=\n-----END Y-----\n").is_err());
    }

    #[test]
    fn trust_settings_as_openssl_reads_them() {
        // SEQUENCE { SEQUENCE { serverAuth } }, with clientAuth, and [0] { serverAuth }.
        let oid = |last: u8| vec![0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, last];
        let wrap = |t: u8, o: Vec<u8>| [vec![0x30, 12, t, 10], o].concat();
        assert_eq!(trust_settings(&wrap(0x30, oid(1))).unwrap(), Trust::Trusted);
        assert_eq!(
            trust_settings(&wrap(0x30, oid(2))).unwrap(),
            Trust::Rejected
        );
        assert_eq!(
            trust_settings(&wrap(0xa0, oid(1))).unwrap(),
            Trust::Rejected
        );
        assert_eq!(trust_settings(&[]).unwrap(), Trust::Default);
        assert!(trust_settings(&[0x0a, 0x0a]).is_err());
    }
}
