//! A reader of DER, with the BER forms OpenSSL's parser takes in the places where
//! certificates in use have them (each named where it is allowed: a BOOLEAN TRUE other than
//! 0xFF, a DEFAULT value written out). Anything else that is not DER (a long or indefinite
//! length, a constructed string, a tag number above 30) is refused, so a certificate is
//! never read differently from the bytes its signature covers.

/// One element: its tag byte, its contents, and its whole encoding.
#[derive(Debug, Clone, Copy)]
pub struct Tlv<'a> {
    /// The identifier octet (class, constructed bit, tag number below 31).
    pub tag: u8,
    /// The contents octets.
    pub value: &'a [u8],
    /// Header and contents, as read.
    pub raw: &'a [u8],
}

/// Tags used here.
pub mod tag {
    pub const BOOLEAN: u8 = 0x01;
    pub const INTEGER: u8 = 0x02;
    pub const BIT_STRING: u8 = 0x03;
    pub const OCTET_STRING: u8 = 0x04;
    pub const NULL: u8 = 0x05;
    pub const OID: u8 = 0x06;
    pub const UTF8_STRING: u8 = 0x0c;
    pub const PRINTABLE_STRING: u8 = 0x13;
    pub const T61_STRING: u8 = 0x14;
    pub const IA5_STRING: u8 = 0x16;
    pub const UTC_TIME: u8 = 0x17;
    pub const GENERALIZED_TIME: u8 = 0x18;
    pub const VISIBLE_STRING: u8 = 0x1a;
    pub const UNIVERSAL_STRING: u8 = 0x1c;
    pub const BMP_STRING: u8 = 0x1e;
    pub const SEQUENCE: u8 = 0x30;
    pub const SET: u8 = 0x31;
}

/// A cursor over a run of elements.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Reads the elements of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// What is left unread.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos.min(self.buf.len())..]
    }

    /// The tag of the next element, if any.
    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// The next element.
    pub fn read(&mut self) -> Result<Tlv<'a>, String> {
        let b = &self.buf[self.pos..];
        let Some(&t) = b.first() else {
            return Err("ends where an element was expected".into());
        };
        if t & 0x1f == 0x1f {
            return Err(format!("tag 0x{t:02x} with a high tag number is not read"));
        }
        let Some(&l0) = b.get(1) else {
            return Err("ends inside a length".into());
        };
        let (hl, len) = if l0 < 0x80 {
            (2, l0 as usize)
        } else if l0 == 0x80 {
            return Err("an indefinite length (BER, not DER)".into());
        } else {
            let n = (l0 & 0x7f) as usize;
            if n > 4 || b.len() < 2 + n {
                return Err("a length that does not fit".into());
            }
            let len = b[2..2 + n]
                .iter()
                .fold(0usize, |a, &x| (a << 8) | x as usize);
            if b[2] == 0 || len < 0x80 {
                return Err("a length not in its shortest form (BER, not DER)".into());
            }
            (2 + n, len)
        };
        if b.len() - hl < len {
            return Err(format!(
                "an element of {len} bytes where {} are left",
                b.len() - hl
            ));
        }
        self.pos += hl + len;
        Ok(Tlv {
            tag: t,
            value: &b[hl..hl + len],
            raw: &b[..hl + len],
        })
    }

    /// The next element, which must have tag `t` (`what` names it for messages).
    pub fn expect(&mut self, t: u8, what: &str) -> Result<Tlv<'a>, String> {
        let e = self.read().map_err(|e| format!("{what}: {e}"))?;
        if e.tag != t {
            return Err(format!(
                "{what}: tag 0x{:02x} where 0x{t:02x} was expected",
                e.tag
            ));
        }
        Ok(e)
    }

    /// The next element if its tag is `t`.
    pub fn optional(&mut self, t: u8, what: &str) -> Result<Option<Tlv<'a>>, String> {
        if self.peek() == Some(t) {
            self.expect(t, what).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Fails if anything is left.
    pub fn finish(&self, what: &str) -> Result<(), String> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(format!("{what}: {} bytes after its end", self.rest().len()))
        }
    }
}

/// The elements inside a constructed element.
pub fn inner<'a>(e: &Tlv<'a>) -> Reader<'a> {
    Reader::new(e.value)
}

/// A BOOLEAN's value: OpenSSL takes any non-zero byte as TRUE (BER), as DER's 0xFF.
pub fn boolean(e: &Tlv<'_>, what: &str) -> Result<bool, String> {
    match e.value {
        [0] => Ok(false),
        [_] => Ok(true),
        _ => Err(format!("{what}: a BOOLEAN of {} bytes", e.value.len())),
    }
}

/// An INTEGER's contents checked for DER's shortest form (OpenSSL refuses padding too).
pub fn integer<'a>(e: &Tlv<'a>, what: &str) -> Result<&'a [u8], String> {
    let v = e.value;
    if v.is_empty() {
        return Err(format!("{what}: an empty INTEGER"));
    }
    if v.len() > 1 && ((v[0] == 0 && v[1] & 0x80 == 0) || (v[0] == 0xff && v[1] & 0x80 != 0)) {
        return Err(format!("{what}: an INTEGER not in its shortest form"));
    }
    Ok(v)
}

/// A small INTEGER (None when it does not fit an i64, as OpenSSL's ASN1_INTEGER_get fails).
pub fn small_integer(e: &Tlv<'_>, what: &str) -> Result<Option<i64>, String> {
    let v = integer(e, what)?;
    if v.len() > 8 {
        return Ok(None);
    }
    let neg = v[0] & 0x80 != 0;
    let mut x: i64 = if neg { -1 } else { 0 };
    for &b in v {
        x = (x << 8) | b as i64;
    }
    Ok(Some(x))
}

/// A BIT STRING: (unused bits, bytes with the unused bits cleared, as OpenSSL keeps them).
pub fn bit_string(e: &Tlv<'_>, what: &str) -> Result<(u8, Vec<u8>), String> {
    let Some((&unused, bytes)) = e.value.split_first() else {
        return Err(format!("{what}: an empty BIT STRING"));
    };
    if unused > 7 || (bytes.is_empty() && unused != 0) {
        return Err(format!("{what}: a BIT STRING with {unused} unused bits"));
    }
    let mut b = bytes.to_vec();
    if let Some(last) = b.last_mut() {
        *last &= 0xffu8 << unused;
    }
    Ok((unused, b))
}

/// An OBJECT IDENTIFIER in dotted form.
pub fn oid_text(v: &[u8]) -> Result<String, String> {
    if v.is_empty() || v.last().is_some_and(|b| b & 0x80 != 0) {
        return Err("an OBJECT IDENTIFIER that does not end".into());
    }
    let mut arcs: Vec<u64> = vec![];
    let mut cur: u64 = 0;
    let mut started = false;
    for &b in v {
        if !started && b == 0x80 {
            return Err("an OBJECT IDENTIFIER arc with a leading zero".into());
        }
        started = true;
        if cur > u64::MAX >> 7 {
            return Err("an OBJECT IDENTIFIER arc too large".into());
        }
        cur = (cur << 7) | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            arcs.push(cur);
            cur = 0;
            started = false;
        }
    }
    let first = arcs[0];
    let (a, b) = if first < 40 {
        (0, first)
    } else if first < 80 {
        (1, first - 40)
    } else {
        (2, first - 80)
    };
    let mut s = format!("{a}.{b}");
    for x in &arcs[1..] {
        s.push('.');
        s.push_str(&x.to_string());
    }
    Ok(s)
}

/// The next element as an OBJECT IDENTIFIER in dotted form.
pub fn read_oid(r: &mut Reader<'_>, what: &str) -> Result<String, String> {
    let e = r.expect(tag::OID, what)?;
    oid_text(e.value).map_err(|m| format!("{what}: {m}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_must_be_der() {
        assert!(
            Reader::new(&[0x04, 0x81, 0x05, 1, 2, 3, 4, 5])
                .read()
                .is_err()
        );
        assert!(Reader::new(&[0x30, 0x80, 0, 0]).read().is_err());
        let long: Vec<u8> = [vec![0x04, 0x81, 0x80], vec![0; 128]].concat();
        assert_eq!(Reader::new(&long).read().unwrap().value.len(), 128);
    }

    #[test]
    fn booleans_and_integers() {
        fn t(b: &[u8]) -> Tlv<'_> {
            Reader::new(b).read().unwrap()
        }
        assert!(boolean(&t(&[1, 1, 1]), "x").unwrap());
        assert!(!boolean(&t(&[1, 1, 0]), "x").unwrap());
        assert_eq!(small_integer(&t(&[2, 2, 1, 0x2c]), "x").unwrap(), Some(300));
        assert_eq!(small_integer(&t(&[2, 1, 0xff]), "x").unwrap(), Some(-1));
        assert!(integer(&t(&[2, 2, 0, 1]), "x").is_err());
        assert_eq!(oid_text(&[0x55, 0x1d, 0x13]).unwrap(), "2.5.29.19");
        assert_eq!(
            oid_text(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]).unwrap(),
            "1.2.840.113549.1.1.11"
        );
    }
}
