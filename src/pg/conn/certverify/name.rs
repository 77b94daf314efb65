//! Distinguished names: OpenSSL's canonical form (what X509_NAME_cmp compares, so an issuer
//! is found by the same names as OpenSSL finds it), the text for messages, and the Common
//! Names libpq compares with the host.

use super::der::{self, Tlv, tag};

/// A parsed Name.
#[derive(Debug, Clone)]
pub struct Name {
    /// OpenSSL's canonical encoding (x509_name_canon): each RDN a SET of its attributes,
    /// string values as UTF8String, trimmed, inner runs of white space as one space, ASCII
    /// letters lower-cased; the SET's elements in DER order.
    pub(crate) canon: Vec<u8>,
    /// RFC 4514 text (last RDN first), for messages.
    pub(crate) text: String,
    /// Values of commonName attributes, raw, in the order of the name (libpq compares the
    /// first with the host).
    pub(crate) cns: Vec<Vec<u8>>,
}

const CN: &str = "2.5.4.3";

/// Whether OpenSSL canonicalises values of this type (ASN1_MASK_CANON).
fn canonical_type(t: u8) -> bool {
    matches!(
        t,
        tag::UTF8_STRING
            | tag::BMP_STRING
            | tag::UNIVERSAL_STRING
            | tag::PRINTABLE_STRING
            | tag::T61_STRING
            | tag::IA5_STRING
            | tag::VISIBLE_STRING
    )
}

/// UTF-8 of a code point, surrogates included (as OpenSSL's UTF8_putc writes them).
fn put_utf8(out: &mut Vec<u8>, c: u32) -> Result<(), String> {
    match c {
        0..=0x7f => out.push(c as u8),
        0x80..=0x7ff => out.extend([0xc0 | (c >> 6) as u8, 0x80 | (c & 0x3f) as u8]),
        0x800..=0xffff => out.extend([
            0xe0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3f) as u8,
            0x80 | (c & 0x3f) as u8,
        ]),
        0x10000..=0x10ffff => out.extend([
            0xf0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3f) as u8,
            0x80 | ((c >> 6) & 0x3f) as u8,
            0x80 | (c & 0x3f) as u8,
        ]),
        _ => return Err(format!("a character U+{c:X} beyond Unicode")),
    }
    Ok(())
}

/// A string value as UTF-8 (ASN1_STRING_to_UTF8): UTF8String checked, BMPString and
/// UniversalString decoded, the one-byte types taken as Latin-1.
pub fn to_utf8(t: u8, v: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = vec![];
    match t {
        tag::UTF8_STRING => {
            std::str::from_utf8(v).map_err(|_| "a UTF8String that is not UTF-8".to_string())?;
            out.extend_from_slice(v);
        }
        tag::BMP_STRING => {
            if !v.len().is_multiple_of(2) {
                return Err("a BMPString of an odd length".into());
            }
            for c in v.chunks(2) {
                put_utf8(&mut out, u16::from_be_bytes([c[0], c[1]]) as u32)?;
            }
        }
        tag::UNIVERSAL_STRING => {
            if !v.len().is_multiple_of(4) {
                return Err("a UniversalString whose length is not a multiple of 4".into());
            }
            for c in v.chunks(4) {
                put_utf8(&mut out, u32::from_be_bytes([c[0], c[1], c[2], c[3]]))?;
            }
        }
        _ => {
            for &b in v {
                put_utf8(&mut out, b as u32)?;
            }
        }
    }
    Ok(out)
}

/// C's isspace in the C locale.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// asn1_string_canon's text: trimmed, inner white space runs as one space, ASCII lower case.
fn canon_text(s: &[u8]) -> Vec<u8> {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |e| e + 1);
    let mut out = vec![];
    let mut i = start;
    while i < end {
        let b = s[i];
        if b >= 0x80 {
            out.push(b);
            i += 1;
        } else if is_space(b) {
            out.push(b' ');
            while i < end && is_space(s[i]) {
                i += 1;
            }
        } else {
            out.push(b.to_ascii_lowercase());
            i += 1;
        }
    }
    out
}

fn tlv(t: u8, content: &[u8]) -> Vec<u8> {
    let mut v = vec![t];
    let n = content.len();
    if n < 0x80 {
        v.push(n as u8);
    } else {
        let b = (n as u32).to_be_bytes();
        let skip = b.iter().take_while(|&&x| x == 0).count();
        v.push(0x80 | (4 - skip) as u8);
        v.extend_from_slice(&b[skip..]);
    }
    v.extend_from_slice(content);
    v
}

/// The short name of an attribute type for messages.
fn attr_name(oid: &str) -> String {
    match oid {
        "2.5.4.3" => "CN",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.5" => "serialNumber",
        "0.9.2342.19200300.100.1.25" => "DC",
        "0.9.2342.19200300.100.1.1" => "UID",
        "1.2.840.113549.1.9.1" => "emailAddress",
        _ => return oid.to_string(),
    }
    .to_string()
}

/// A value for messages: text when it is a string, else `#` and its hex.
fn value_text(e: &Tlv<'_>) -> String {
    let text = match e.tag {
        tag::BMP_STRING | tag::UNIVERSAL_STRING | tag::UTF8_STRING => to_utf8(e.tag, e.value)
            .ok()
            .map(|u| String::from_utf8_lossy(&u).into_owned()),
        t if canonical_type(t) || t == 0x12 => Some(String::from_utf8_lossy(e.value).into_owned()),
        _ => None,
    };
    match text {
        Some(t) => {
            let mut s = String::new();
            for (i, c) in t.chars().enumerate() {
                if ",+\"\\<>;=".contains(c) || (i == 0 && (c == '#' || c == ' ')) {
                    s.push('\\');
                }
                s.push(c);
            }
            s
        }
        None => format!(
            "#{}",
            e.raw.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
}

/// Parses a Name (the whole element).
pub fn parse(e: &Tlv<'_>, what: &str) -> Result<Name, String> {
    if e.tag != tag::SEQUENCE {
        return Err(format!("{what}: not a SEQUENCE"));
    }
    let mut r = der::inner(e);
    let mut canon = vec![];
    let mut rdn_texts = vec![];
    let mut cns = vec![];
    while !r.is_empty() {
        let set = r.expect(tag::SET, what)?;
        let mut sr = der::inner(&set);
        if sr.is_empty() {
            return Err(format!("{what}: an empty relative distinguished name"));
        }
        let mut entries: Vec<Vec<u8>> = vec![];
        let mut texts = vec![];
        while !sr.is_empty() {
            let atv = sr.expect(tag::SEQUENCE, what)?;
            let mut ar = der::inner(&atv);
            let oid_e = ar.expect(tag::OID, what)?;
            let oid = der::oid_text(oid_e.value).map_err(|m| format!("{what}: {m}"))?;
            let value = ar.read().map_err(|m| format!("{what}: {m}"))?;
            ar.finish(what)?;
            if value.tag & 0x20 != 0 && value.tag != tag::SEQUENCE && value.tag != tag::SET {
                return Err(format!("{what}: a constructed string (BER, not DER)"));
            }
            let canon_value = if canonical_type(value.tag) {
                let u = to_utf8(value.tag, value.value).map_err(|m| format!("{what}: {m}"))?;
                tlv(tag::UTF8_STRING, &canon_text(&u))
            } else {
                value.raw.to_vec()
            };
            entries.push(tlv(tag::SEQUENCE, &[oid_e.raw, &canon_value].concat()));
            if oid == CN {
                cns.push(value.value.to_vec());
            }
            texts.push(format!("{}={}", attr_name(&oid), value_text(&value)));
        }
        // DER orders a SET OF by the encodings of its elements.
        entries.sort_by(|a, b| {
            let n = a.len().min(b.len());
            a[..n].cmp(&b[..n]).then(a.len().cmp(&b.len()))
        });
        canon.extend(tlv(tag::SET, &entries.concat()));
        rdn_texts.push(texts.join("+"));
    }
    rdn_texts.reverse();
    Ok(Name {
        canon,
        text: rdn_texts.join(","),
        cns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::conn::certverify::der::Reader;

    fn name_of(entries: &[(u8, &[u8])]) -> Name {
        let mut rdns = vec![];
        for (t, v) in entries {
            let atv = tlv(
                tag::SEQUENCE,
                &[vec![0x06, 0x03, 0x55, 0x04, 0x03], tlv(*t, v)].concat(),
            );
            rdns.extend(tlv(tag::SET, &atv));
        }
        let der = tlv(tag::SEQUENCE, &rdns);
        let e = Reader::new(&der).read().unwrap();
        parse(&e, "name").unwrap()
    }

    #[test]
    fn canonical_forms_compare_as_openssl() {
        let a = name_of(&[(tag::UTF8_STRING, b"Root CA")]);
        assert_eq!(a.text, "CN=Root CA");
        assert_eq!(
            a.canon,
            name_of(&[(tag::PRINTABLE_STRING, b"  root   ca ")]).canon
        );
        assert_eq!(
            a.canon,
            name_of(&[(tag::BMP_STRING, b"\0R\0o\0o\0t\0 \0C\0A")]).canon
        );
        // Not lower-cased beyond ASCII, and NumericString is not canonicalised.
        assert_ne!(
            name_of(&[(tag::UTF8_STRING, "É".as_bytes())]).canon,
            name_of(&[(tag::UTF8_STRING, "é".as_bytes())]).canon
        );
        assert_ne!(
            name_of(&[(0x12, b"123")]).canon,
            name_of(&[(tag::PRINTABLE_STRING, b"123")]).canon
        );
    }
}
