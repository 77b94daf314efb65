//! Certificates built byte by byte for the differential corpus: a DER writer (with the
//! non-DER forms OpenSSL's parser takes, on purpose), a pool of keys made once by
//! `openssl genpkey`, signatures by ring where it can sign the algorithm and by
//! `openssl pkeyutl` otherwise, and a certificate [`Spec`] turned into DER.
//!
//! Built here rather than with `openssl x509`/`openssl ca`, because the corpus needs what those
//! refuse to make: duplicated extensions, a BER-encoded critical flag, an inner signature
//! algorithm that differs from the outer one, raw bytes in an IA5String, pathLenConstraint 300,
//! an X.509 v1 certificate with extensions, a v2 one.

use crate::support::cmd::Within;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// DER writing

/// A length in DER (short form below 128, else the fewest bytes).
pub fn len(n: usize) -> Vec<u8> {
    if n < 0x80 {
        return vec![n as u8];
    }
    let b = n.to_be_bytes();
    let skip = b.iter().take_while(|&&x| x == 0).count();
    let mut v = vec![0x80 | (b.len() - skip) as u8];
    v.extend_from_slice(&b[skip..]);
    v
}

/// One tag-length-value.
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    v.extend(len(content.len()));
    v.extend_from_slice(content);
    v
}

fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

/// SEQUENCE of the parts.
pub fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &cat(parts))
}

/// SET of the parts (in the order given).
pub fn set(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x31, &cat(parts))
}

/// An OBJECT IDENTIFIER from its dotted form.
pub fn oid(dotted: &str) -> Vec<u8> {
    let arcs: Vec<u64> = dotted.split('.').map(|a| a.parse().unwrap()).collect();
    let mut body = vec![];
    let mut push = |mut v: u64| {
        let mut tmp = vec![(v & 0x7f) as u8];
        v >>= 7;
        while v > 0 {
            tmp.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        tmp.reverse();
        body.extend(tmp);
    };
    push(arcs[0] * 40 + arcs[1]);
    for &a in &arcs[2..] {
        push(a);
    }
    tlv(0x06, &body)
}

/// An INTEGER from a signed value (minimal two's complement).
pub fn int(v: i64) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut i = 0;
    while i < 7 && ((b[i] == 0 && b[i + 1] & 0x80 == 0) || (b[i] == 0xff && b[i + 1] & 0x80 != 0)) {
        i += 1;
    }
    tlv(0x02, &b[i..])
}

/// BOOLEAN in DER (TRUE is 0xFF).
pub fn boolean(v: bool) -> Vec<u8> {
    tlv(0x01, &[if v { 0xff } else { 0 }])
}

/// NULL.
pub fn null() -> Vec<u8> {
    vec![0x05, 0x00]
}

/// OCTET STRING.
pub fn octets(b: &[u8]) -> Vec<u8> {
    tlv(0x04, b)
}

/// BIT STRING with no unused bits.
pub fn bits(b: &[u8]) -> Vec<u8> {
    let mut c = vec![0];
    c.extend_from_slice(b);
    tlv(0x03, &c)
}

/// A named-bit BIT STRING in DER (trailing zero bits dropped): bit 0 is the first (0x80).
pub fn named_bits(mask: u16) -> Vec<u8> {
    if mask == 0 {
        return tlv(0x03, &[0]);
    }
    // Bit n of the mask is bit n of the string: byte n/8, value 0x80 >> (n%8).
    let mut out = vec![0u8; 2];
    for n in 0..16 {
        if mask & (1 << n) != 0 {
            out[n / 8] |= 0x80 >> (n % 8);
        }
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    let unused = out.last().unwrap().trailing_zeros() as u8;
    let mut c = vec![unused];
    c.extend(out);
    tlv(0x03, &c)
}

/// UTF8String.
pub fn utf8(s: &str) -> Vec<u8> {
    tlv(0x0c, s.as_bytes())
}

/// PrintableString.
pub fn printable(s: &str) -> Vec<u8> {
    tlv(0x13, s.as_bytes())
}

/// A context-specific tag: `[n]` constructed (explicit, or an implicit SEQUENCE).
pub fn ctx(n: u8, content: &[u8]) -> Vec<u8> {
    tlv(0xa0 | n, content)
}

/// A context-specific primitive tag `[n]` (implicit).
pub fn ctx_prim(n: u8, content: &[u8]) -> Vec<u8> {
    tlv(0x80 | n, content)
}

/// Civil date and time of a Unix time (UTC).
fn civil(t: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = t.div_euclid(86400);
    let secs = t.rem_euclid(86400);
    // Howard Hinnant's days_from_civil, inverted.
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z.rem_euclid(146097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = if m <= 2 { y + 1 } else { y };
    (
        y,
        m,
        d,
        (secs / 3600) as u32,
        (secs / 60 % 60) as u32,
        (secs % 60) as u32,
    )
}

/// A certificate time.
#[derive(Clone, Debug)]
pub enum Time {
    /// UTCTime (years 1950-2049).
    Utc(i64),
    /// GeneralizedTime.
    Gen(i64),
    /// Any tag and bytes (a malformed time).
    Raw(u8, Vec<u8>),
}

impl Time {
    /// The usual form: UTCTime before 2050, GeneralizedTime after.
    pub fn at(t: i64) -> Time {
        if civil(t).0 < 2050 {
            Time::Utc(t)
        } else {
            Time::Gen(t)
        }
    }

    fn der(&self) -> Vec<u8> {
        match self {
            Time::Utc(t) => {
                let (y, m, d, h, mi, s) = civil(*t);
                tlv(
                    0x17,
                    format!("{:02}{m:02}{d:02}{h:02}{mi:02}{s:02}Z", y % 100).as_bytes(),
                )
            }
            Time::Gen(t) => {
                let (y, m, d, h, mi, s) = civil(*t);
                tlv(
                    0x18,
                    format!("{y:04}{m:02}{d:02}{h:02}{mi:02}{s:02}Z").as_bytes(),
                )
            }
            Time::Raw(tag, b) => tlv(*tag, b),
        }
    }
}

/// Seconds since the epoch now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// One day in seconds.
pub const DAY: i64 = 86400;

// ---------------------------------------------------------------------------------------------
// Names

/// An attribute value of a name, with its string type.
#[derive(Clone, Debug)]
pub enum Val {
    /// UTF8String.
    Utf8(String),
    /// PrintableString.
    Printable(String),
    /// BMPString of the text.
    Bmp(String),
    /// Any tag and bytes.
    Raw(u8, Vec<u8>),
}

impl Val {
    fn der(&self) -> Vec<u8> {
        match self {
            Val::Utf8(s) => utf8(s),
            Val::Printable(s) => printable(s),
            Val::Bmp(s) => tlv(
                0x1e,
                &s.encode_utf16()
                    .flat_map(|u| u.to_be_bytes())
                    .collect::<Vec<_>>(),
            ),
            Val::Raw(t, b) => tlv(*t, b),
        }
    }
}

/// commonName.
pub const CN: &str = "2.5.4.3";
/// organizationName.
pub const O: &str = "2.5.4.10";

/// A Name: RDNs in order, each a set of (attribute type, value).
pub fn name_of(rdns: &[&[(&str, Val)]]) -> Vec<u8> {
    seq(&rdns
        .iter()
        .map(|rdn| {
            set(&rdn
                .iter()
                .map(|(t, v)| seq(&[oid(t), v.der()]))
                .collect::<Vec<_>>())
        })
        .collect::<Vec<_>>())
}

/// `CN=cn` as one UTF8String RDN.
pub fn name(cn: &str) -> Vec<u8> {
    name_of(&[&[(CN, Val::Utf8(cn.into()))]])
}

// ---------------------------------------------------------------------------------------------
// Extensions

/// How an extension says it is critical.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crit {
    /// No critical field (DER for FALSE).
    No,
    /// critical TRUE in DER.
    Yes,
    /// critical FALSE written out (DER forbids a DEFAULT value).
    ExplicitNo,
    /// critical TRUE written as 0x01 (BER, not DER).
    BerYes,
}

/// One extension: its OID, criticality and value (or, with `raw`, exactly these bytes).
#[derive(Clone, Debug)]
pub struct Ext {
    pub id: String,
    pub crit: Crit,
    pub value: Vec<u8>,
    pub raw: Option<Vec<u8>>,
}

impl Ext {
    /// An extension with its value.
    pub fn new(id: &str, crit: Crit, value: Vec<u8>) -> Ext {
        Ext {
            id: id.into(),
            crit,
            value,
            raw: None,
        }
    }

    /// The extension as encoded.
    pub fn der(&self) -> Vec<u8> {
        if let Some(r) = &self.raw {
            return r.clone();
        }
        let mut parts = vec![oid(&self.id)];
        match self.crit {
            Crit::No => {}
            Crit::Yes => parts.push(boolean(true)),
            Crit::ExplicitNo => parts.push(boolean(false)),
            Crit::BerYes => parts.push(vec![0x01, 0x01, 0x01]),
        }
        parts.push(octets(&self.value));
        seq(&parts)
    }
}

/// Extension OIDs.
pub mod id {
    pub const BC: &str = "2.5.29.19";
    pub const KU: &str = "2.5.29.15";
    pub const EKU: &str = "2.5.29.37";
    pub const SAN: &str = "2.5.29.17";
    pub const SKID: &str = "2.5.29.14";
    pub const AKID: &str = "2.5.29.35";
    pub const NC: &str = "2.5.29.30";
    pub const CRLDP: &str = "2.5.29.31";
    pub const POLICIES: &str = "2.5.29.32";
    pub const POLICY_MAPPINGS: &str = "2.5.29.33";
    pub const POLICY_CONSTRAINTS: &str = "2.5.29.36";
    pub const INHIBIT_ANY: &str = "2.5.29.54";
    pub const NS_CERT_TYPE: &str = "2.16.840.1.113730.1.1";
    pub const AIA: &str = "1.3.6.1.5.5.7.1.1";
    pub const IP_ADDR_BLOCKS: &str = "1.3.6.1.5.5.7.1.7";
    pub const PROXY: &str = "1.3.6.1.5.5.7.1.14";
    pub const IAN: &str = "2.5.29.18";
    pub const SERVER_AUTH: &str = "1.3.6.1.5.5.7.3.1";
    pub const CLIENT_AUTH: &str = "1.3.6.1.5.5.7.3.2";
    pub const ANY_EKU: &str = "2.5.29.37.0";
    pub const NS_SGC: &str = "2.16.840.1.113730.4.1";
    pub const MS_SGC: &str = "1.3.6.1.4.1.311.10.3.3";
}

/// basicConstraints value.
pub fn bc(ca: bool, pathlen: Option<i64>) -> Vec<u8> {
    let mut p = vec![];
    if ca {
        p.push(boolean(true));
    }
    if let Some(n) = pathlen {
        p.push(int(n));
    }
    seq(&p)
}

/// keyUsage bits (bit 0 digitalSignature ... bit 8 decipherOnly).
pub mod ku {
    pub const DIGITAL_SIGNATURE: u16 = 1 << 0;
    pub const KEY_ENCIPHERMENT: u16 = 1 << 2;
    pub const KEY_AGREEMENT: u16 = 1 << 4;
    pub const KEY_CERT_SIGN: u16 = 1 << 5;
    pub const CRL_SIGN: u16 = 1 << 6;
}

/// A GeneralName.
#[derive(Clone, Debug)]
pub enum Gn {
    /// dNSName (any bytes).
    Dns(Vec<u8>),
    /// iPAddress (network order bytes).
    Ip(Vec<u8>),
    /// uniformResourceIdentifier.
    Uri(String),
    /// directoryName.
    Dir(Vec<u8>),
}

impl Gn {
    pub fn dns(s: &str) -> Gn {
        Gn::Dns(s.as_bytes().to_vec())
    }

    /// The GeneralName as encoded.
    pub fn der(&self) -> Vec<u8> {
        match self {
            Gn::Dns(b) => ctx_prim(2, b),
            Gn::Ip(b) => ctx_prim(7, b),
            Gn::Uri(s) => ctx_prim(6, s.as_bytes()),
            Gn::Dir(n) => ctx(4, n),
        }
    }
}

/// GeneralNames (subjectAltName's value).
pub fn general_names(names: &[Gn]) -> Vec<u8> {
    seq(&names.iter().map(Gn::der).collect::<Vec<_>>())
}

/// extendedKeyUsage value.
pub fn eku(oids: &[&str]) -> Vec<u8> {
    seq(&oids.iter().map(|o| oid(o)).collect::<Vec<_>>())
}

/// authorityKeyIdentifier value with a keyIdentifier.
pub fn akid(keyid: &[u8]) -> Vec<u8> {
    seq(&[ctx_prim(0, keyid)])
}

/// nameConstraints value: permitted and excluded subtrees.
pub fn name_constraints(permitted: &[Gn], excluded: &[Gn]) -> Vec<u8> {
    let subtrees =
        |g: &[Gn]| -> Vec<u8> { cat(&g.iter().map(|n| seq(&[n.der()])).collect::<Vec<_>>()) };
    let mut p = vec![];
    if !permitted.is_empty() {
        p.push(ctx(0, &subtrees(permitted)));
    }
    if !excluded.is_empty() {
        p.push(ctx(1, &subtrees(excluded)));
    }
    seq(&p)
}

/// cRLDistributionPoints value with one URI.
pub fn crldp(uri: &str) -> Vec<u8> {
    seq(&[seq(&[ctx(0, &ctx(0, &Gn::Uri(uri.into()).der()))])])
}

/// certificatePolicies value with the policy OIDs.
pub fn policies(oids: &[&str]) -> Vec<u8> {
    seq(&oids.iter().map(|o| seq(&[oid(o)])).collect::<Vec<_>>())
}

/// Netscape cert type bits (bit 0 SSL client ... bit 5 SSL CA, bit 6 S/MIME CA, bit 7 object
/// signing CA).
pub mod ns {
    pub const SSL_CLIENT: u16 = 1 << 0;
    pub const SSL_SERVER: u16 = 1 << 1;
    pub const SSL_CA: u16 = 1 << 5;
    pub const SMIME_CA: u16 = 1 << 6;
}

// ---------------------------------------------------------------------------------------------
// Keys and signatures

/// The kinds of key in the pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Rsa(u32),
    RsaPss,
    P224,
    P256,
    P384,
    P521,
    K256,
    P256Explicit,
    Ed25519,
    Ed448,
    Dsa,
}

/// A key of the pool.
#[derive(Debug)]
pub struct Key {
    pub kind: Kind,
    pub pem: PathBuf,
    pub pkcs8: Vec<u8>,
    pub spki: Vec<u8>,
    /// A key identifier (SHA-1 of the key bits, as openssl makes it; any fixed bytes do).
    pub keyid: Vec<u8>,
}

/// The digests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hash {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    fn openssl(self) -> &'static str {
        match self {
            Hash::Md5 => "md5",
            Hash::Sha1 => "sha1",
            Hash::Sha224 => "sha224",
            Hash::Sha256 => "sha256",
            Hash::Sha384 => "sha384",
            Hash::Sha512 => "sha512",
        }
    }

    fn oid(self) -> &'static str {
        match self {
            Hash::Md5 => "1.2.840.113549.2.5",
            Hash::Sha1 => "1.3.14.3.2.26",
            Hash::Sha224 => "2.16.840.1.101.3.4.2.4",
            Hash::Sha256 => "2.16.840.1.101.3.4.2.1",
            Hash::Sha384 => "2.16.840.1.101.3.4.2.2",
            Hash::Sha512 => "2.16.840.1.101.3.4.2.3",
        }
    }
}

/// A signature algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sig {
    /// PKCS#1 v1.5 with the hash.
    Rsa(Hash),
    /// PSS: hash (MGF1 with the same), salt length.
    Pss(Hash, u32),
    /// ECDSA with the hash.
    Ecdsa(Hash),
    Ed25519,
    Ed448,
    Dsa(Hash),
}

impl Sig {
    /// The AlgorithmIdentifier as OpenSSL writes it.
    pub fn alg_id(self) -> Vec<u8> {
        match self {
            Sig::Rsa(h) => {
                let o = match h {
                    Hash::Md5 => "1.2.840.113549.1.1.4",
                    Hash::Sha1 => "1.2.840.113549.1.1.5",
                    Hash::Sha224 => "1.2.840.113549.1.1.14",
                    Hash::Sha256 => "1.2.840.113549.1.1.11",
                    Hash::Sha384 => "1.2.840.113549.1.1.12",
                    Hash::Sha512 => "1.2.840.113549.1.1.13",
                };
                seq(&[oid(o), null()])
            }
            Sig::Pss(h, salt) => {
                let hash_alg = seq(&[oid(h.oid())]);
                let mut params = vec![];
                // OpenSSL leaves out the SHA-1 defaults.
                if h != Hash::Sha1 {
                    params.push(ctx(0, &hash_alg));
                    params.push(ctx(1, &seq(&[oid("1.2.840.113549.1.1.8"), hash_alg])));
                }
                if salt != 20 {
                    params.push(ctx(2, &int(salt as i64)));
                }
                seq(&[oid("1.2.840.113549.1.1.10"), seq(&params)])
            }
            Sig::Ecdsa(h) => {
                let o = match h {
                    Hash::Sha1 => "1.2.840.10045.4.1",
                    Hash::Sha224 => "1.2.840.10045.4.3.1",
                    Hash::Sha256 => "1.2.840.10045.4.3.2",
                    Hash::Sha384 => "1.2.840.10045.4.3.3",
                    Hash::Sha512 => "1.2.840.10045.4.3.4",
                    Hash::Md5 => panic!("no ECDSA with MD5"),
                };
                seq(&[oid(o)])
            }
            Sig::Ed25519 => seq(&[oid("1.3.101.112")]),
            Sig::Ed448 => seq(&[oid("1.3.101.113")]),
            Sig::Dsa(h) => {
                let o = match h {
                    Hash::Sha1 => "1.2.840.10040.4.3",
                    Hash::Sha224 => "2.16.840.1.101.3.4.3.1",
                    Hash::Sha256 => "2.16.840.1.101.3.4.3.2",
                    _ => panic!("no such DSA"),
                };
                seq(&[oid(o)])
            }
        }
    }

    /// The usual signature of a key kind.
    pub fn default_for(k: Kind) -> Sig {
        match k {
            Kind::Rsa(_) => Sig::Rsa(Hash::Sha256),
            Kind::RsaPss => Sig::Pss(Hash::Sha256, 32),
            Kind::P384 => Sig::Ecdsa(Hash::Sha384),
            Kind::P521 => Sig::Ecdsa(Hash::Sha512),
            Kind::P224 | Kind::P256 | Kind::K256 | Kind::P256Explicit => Sig::Ecdsa(Hash::Sha256),
            Kind::Ed25519 => Sig::Ed25519,
            Kind::Ed448 => Sig::Ed448,
            Kind::Dsa => Sig::Dsa(Hash::Sha256),
        }
    }
}

/// Runs openssl in `dir`, panicking with its stderr on failure; returns stdout.
pub fn openssl(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output_within()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The pool: named keys made once per test process.
pub struct Pool {
    dir: PathBuf,
    keys: Vec<(String, Key)>,
}

/// The key names and kinds of the pool.
const POOL: &[(&str, Kind)] = &[
    ("rsa-a", Kind::Rsa(2048)),
    ("rsa-b", Kind::Rsa(2048)),
    ("rsa-c", Kind::Rsa(2048)),
    ("rsa-d", Kind::Rsa(2048)),
    ("rsa1024", Kind::Rsa(1024)),
    ("rsa3072", Kind::Rsa(3072)),
    ("rsa4096", Kind::Rsa(4096)),
    ("rsapss", Kind::RsaPss),
    ("p256-a", Kind::P256),
    ("p256-b", Kind::P256),
    ("p256-c", Kind::P256),
    ("p256-d", Kind::P256),
    ("p256-e", Kind::P256),
    ("p256-f", Kind::P256),
    ("p384-a", Kind::P384),
    ("p384-b", Kind::P384),
    ("p224", Kind::P224),
    ("p521", Kind::P521),
    ("k256", Kind::K256),
    ("p256-explicit", Kind::P256Explicit),
    ("ed25519-a", Kind::Ed25519),
    ("ed25519-b", Kind::Ed25519),
    ("ed448", Kind::Ed448),
    ("dsa", Kind::Dsa),
];

static POOL_CELL: OnceLock<Pool> = OnceLock::new();

/// The pool of keys (made on first use, in parallel, kept for the test process).
pub fn pool() -> &'static Pool {
    POOL_CELL.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("dumpshard-certkeys-")
            .tempdir()
            .unwrap()
            .keep();
        let made: Vec<(String, Key)> = std::thread::scope(|s| {
            let handles: Vec<_> = POOL
                .iter()
                .map(|(n, k)| {
                    let dir = &dir;
                    s.spawn(move || (n.to_string(), make_key(dir, n, *k)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        Pool { dir, keys: made }
    })
}

impl Pool {
    /// The key named `n`.
    pub fn key(&self, n: &str) -> &Key {
        &self
            .keys
            .iter()
            .find(|(k, _)| k == n)
            .unwrap_or_else(|| panic!("no key {n}"))
            .1
    }

    /// A scratch directory for signing files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn make_key(dir: &Path, n: &str, k: Kind) -> Key {
    let pem = dir.join(format!("{n}.key"));
    let p = pem.to_str().unwrap();
    let curve = |c: &'static str| vec!["-algorithm", "EC", "-pkeyopt", c];
    let mut args: Vec<String> = vec!["genpkey".into()];
    let bits;
    let extra: Vec<&str> = match k {
        Kind::Rsa(b) => {
            bits = format!("rsa_keygen_bits:{b}");
            vec!["-algorithm", "RSA", "-pkeyopt", &bits]
        }
        Kind::RsaPss => vec!["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"],
        Kind::P224 => curve("ec_paramgen_curve:P-224"),
        Kind::P256 => curve("ec_paramgen_curve:P-256"),
        Kind::P384 => curve("ec_paramgen_curve:P-384"),
        Kind::P521 => curve("ec_paramgen_curve:P-521"),
        Kind::K256 => curve("ec_paramgen_curve:secp256k1"),
        Kind::P256Explicit => vec![
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-pkeyopt",
            "ec_param_enc:explicit",
        ],
        Kind::Ed25519 => vec!["-algorithm", "ED25519"],
        Kind::Ed448 => vec!["-algorithm", "ED448"],
        Kind::Dsa => {
            let params = dir.join("dsa.params");
            openssl(
                dir,
                &[
                    "genpkey",
                    "-genparam",
                    "-algorithm",
                    "DSA",
                    "-pkeyopt",
                    "dsa_paramgen_bits:2048",
                    "-out",
                    params.to_str().unwrap(),
                ],
            );
            args.push("-paramfile".into());
            args.push(params.to_str().unwrap().into());
            vec![]
        }
    };
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["-out".to_string(), p.to_string()]);
    openssl(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let pkcs8 = openssl(
        dir,
        &["pkcs8", "-topk8", "-nocrypt", "-in", p, "-outform", "DER"],
    );
    let spki = openssl(dir, &["pkey", "-in", p, "-pubout", "-outform", "DER"]);
    let keyid = {
        // Any 20 bytes that differ per key: a simple hash of the SPKI.
        let mut h: u64 = 1469598103934665603;
        let mut id = vec![];
        for round in 0..3u64 {
            for b in &spki {
                h = (h ^ *b as u64 ^ round).wrapping_mul(1099511628211);
            }
            id.extend(h.to_be_bytes());
        }
        id.truncate(20);
        id
    };
    Key {
        kind: k,
        pem,
        pkcs8,
        spki,
        keyid,
    }
}

static SIGN_COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Signs `msg` with `key` by `sig`: ring when it can, `openssl pkeyutl` otherwise.
pub fn sign(key: &Key, sig: Sig, msg: &[u8]) -> Vec<u8> {
    use ring::signature as rs;
    let rng = ring::rand::SystemRandom::new();
    match (key.kind, sig) {
        (Kind::P256, Sig::Ecdsa(Hash::Sha256)) | (Kind::P384, Sig::Ecdsa(Hash::Sha384)) => {
            let alg = if key.kind == Kind::P256 {
                &rs::ECDSA_P256_SHA256_ASN1_SIGNING
            } else {
                &rs::ECDSA_P384_SHA384_ASN1_SIGNING
            };
            let kp = rs::EcdsaKeyPair::from_pkcs8(alg, &key.pkcs8, &rng).unwrap();
            return kp.sign(&rng, msg).unwrap().as_ref().to_vec();
        }
        (Kind::Ed25519, Sig::Ed25519) => {
            let kp = rs::Ed25519KeyPair::from_pkcs8_maybe_unchecked(&key.pkcs8).unwrap();
            return kp.sign(msg).as_ref().to_vec();
        }
        (Kind::Rsa(2048..=4096), Sig::Rsa(h @ (Hash::Sha256 | Hash::Sha384 | Hash::Sha512))) => {
            let kp = rs::RsaKeyPair::from_pkcs8(&key.pkcs8).unwrap();
            let pad: &dyn rs::RsaEncoding = match h {
                Hash::Sha256 => &rs::RSA_PKCS1_SHA256,
                Hash::Sha384 => &rs::RSA_PKCS1_SHA384,
                _ => &rs::RSA_PKCS1_SHA512,
            };
            let mut out = vec![0; kp.public().modulus_len()];
            kp.sign(pad, &rng, msg, &mut out).unwrap();
            return out;
        }
        _ => {}
    }
    let n = SIGN_COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = pool().dir();
    let input = dir.join(format!("tbs-{n}"));
    std::fs::write(&input, msg).unwrap();
    let mut args: Vec<String> = [
        "pkeyutl",
        "-sign",
        "-rawin",
        "-inkey",
        key.pem.to_str().unwrap(),
        "-in",
        input.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    match sig {
        Sig::Rsa(h) | Sig::Ecdsa(h) | Sig::Dsa(h) => {
            args.extend(["-digest".into(), h.openssl().into()]);
        }
        Sig::Pss(h, salt) => {
            args.extend(["-digest".into(), h.openssl().into()]);
            for o in [
                "rsa_padding_mode:pss".to_string(),
                format!("rsa_pss_saltlen:{salt}"),
                format!("rsa_mgf1_md:{}", h.openssl()),
            ] {
                args.extend(["-pkeyopt".into(), o]);
            }
        }
        Sig::Ed25519 | Sig::Ed448 => {}
    }
    let out = openssl(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let _ = std::fs::remove_file(&input);
    out
}

// ---------------------------------------------------------------------------------------------
// Certificates

/// The version field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ver {
    /// No version field (v1).
    V1,
    /// `[0] INTEGER 0` written out (DER leaves the default out).
    V1Explicit,
    V2,
    V3,
    /// An unknown version number.
    Other(i64),
}

/// What a certificate is made of; [`Spec::build`] signs it with the issuer's key.
#[derive(Clone, Debug)]
pub struct Spec {
    pub version: Ver,
    pub serial: i64,
    pub issuer: Vec<u8>,
    pub subject: Vec<u8>,
    pub not_before: Time,
    pub not_after: Time,
    /// The subject's key (by pool name).
    pub key: String,
    /// Extensions in order (written when non-empty, whatever the version).
    pub exts: Vec<Ext>,
    /// The signature algorithm (inner and outer), None: the issuer key's usual one.
    pub sig: Option<Sig>,
    /// A different inner (tbsCertificate) signature algorithm.
    pub inner_alg: Option<Vec<u8>>,
    /// Flip a bit of the signature.
    pub bad_signature: bool,
    /// Bytes appended inside the certificate's outer SEQUENCE (after the signature).
    pub trailing_inside: Vec<u8>,
    /// The signature algorithm written (outer and, unless `inner_alg`, inner) when it is
    /// not `sig`'s usual AlgorithmIdentifier (e.g. without its NULL parameters).
    pub alg_override: Option<Vec<u8>>,
}

impl Spec {
    /// A certificate for `cn` with `key`, valid from a day ago for a year, v3, no extensions.
    pub fn new(cn: &str, key: &str) -> Spec {
        let t = now();
        Spec {
            version: Ver::V3,
            serial: 1000 + (SIGN_COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst) as i64),
            issuer: name(cn),
            subject: name(cn),
            not_before: Time::at(t - DAY),
            not_after: Time::at(t + 365 * DAY),
            key: key.into(),
            exts: vec![],
            sig: None,
            inner_alg: None,
            bad_signature: false,
            trailing_inside: vec![],
            alg_override: None,
        }
    }

    /// Replaces (or adds at the end) the extension `id`.
    pub fn set_ext(&mut self, e: Ext) {
        match self
            .exts
            .iter()
            .position(|x| x.id == e.id && x.raw.is_none())
        {
            Some(i) => self.exts[i] = e,
            None => self.exts.push(e),
        }
    }

    /// Removes the extension `id`.
    pub fn drop_ext(&mut self, id: &str) {
        self.exts.retain(|x| x.id != id);
    }

    /// The tbsCertificate and the signed certificate, signed with `signer` (a pool key name).
    pub fn build(&self, signer: &str) -> Vec<u8> {
        let p = pool();
        let signer = p.key(signer);
        let subject_key = p.key(&self.key);
        let sig = self.sig.unwrap_or(Sig::default_for(signer.kind));
        let alg = self.alg_override.clone().unwrap_or(sig.alg_id());
        let mut tbs = vec![];
        match self.version {
            Ver::V1 => {}
            Ver::V1Explicit => tbs.push(ctx(0, &int(0))),
            Ver::V2 => tbs.push(ctx(0, &int(1))),
            Ver::V3 => tbs.push(ctx(0, &int(2))),
            Ver::Other(n) => tbs.push(ctx(0, &int(n))),
        }
        tbs.push(int(self.serial));
        tbs.push(self.inner_alg.clone().unwrap_or(alg.clone()));
        tbs.push(self.issuer.clone());
        tbs.push(seq(&[self.not_before.der(), self.not_after.der()]));
        tbs.push(self.subject.clone());
        tbs.push(subject_key.spki.clone());
        if !self.exts.is_empty() {
            let exts: Vec<Vec<u8>> = self.exts.iter().map(Ext::der).collect();
            tbs.push(ctx(3, &seq(&exts)));
        }
        let tbs = seq(&tbs);
        let mut signature = sign(signer, sig, &tbs);
        if self.bad_signature {
            let i = signature.len() / 2;
            signature[i] ^= 0x01;
        }
        let mut body = vec![tbs, alg, bits(&signature)];
        body.push(self.trailing_inside.clone());
        seq(&body)
    }
}

/// PEM of a DER block with a label.
pub fn pem(label: &str, der: &[u8]) -> String {
    let b64 = base64(der);
    let mut s = format!("-----BEGIN {label}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        s.push_str(std::str::from_utf8(chunk).unwrap());
        s.push('\n');
    }
    s.push_str(&format!("-----END {label}-----\n"));
    s
}

/// Standard base64 with padding.
pub fn base64(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in b.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// A CRL (v2) of `issuer` signed with `signer`, revoking the serials given.
pub fn crl(issuer: &[u8], signer: &str, revoked: &[i64], this: i64, next: Option<i64>) -> Vec<u8> {
    let key = pool().key(signer);
    let sig = Sig::default_for(key.kind);
    let alg = sig.alg_id();
    let mut tbs = vec![int(1), alg.clone(), issuer.to_vec(), Time::at(this).der()];
    if let Some(n) = next {
        tbs.push(Time::at(n).der());
    }
    if !revoked.is_empty() {
        tbs.push(seq(&revoked
            .iter()
            .map(|s| seq(&[int(*s), Time::at(this).der()]))
            .collect::<Vec<_>>()));
    }
    let tbs = seq(&tbs);
    let signature = sign(key, sig, &tbs);
    seq(&[tbs, alg, bits(&signature)])
}
