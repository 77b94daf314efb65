//! RSA signature verification written here for what ring does not verify: RSASSA-PSS with
//! any salt length and digest pair (OpenSSL signs certificates with the longest salt the key
//! allows, 222 bytes for RSA 2048 and SHA-256, and writes the parameters without the NULLs
//! webpki expects), PKCS#1 v1.5 with SHA-224, and moduli above 8192 bits. ring exposes no raw
//! RSA operation, and RustCrypto's `rsa` would bring a bignum crate tree (and an advisory, for
//! its decryption) for one modular exponentiation of public values.
//!
//! The public operation is a Montgomery exponentiation over 64-bit limbs; the padding checks
//! rebuild what a valid signature must be and compare whole (no parsing of the decrypted
//! block that a forged signature could steer).

use super::alg::Hash;

/// The digest of `data`.
pub fn digest(h: Hash, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    match h {
        Hash::Md5 => md5(data),
        Hash::Sha1 => ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, data)
            .as_ref()
            .to_vec(),
        Hash::Sha224 => sha2::Sha224::digest(data).to_vec(),
        Hash::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Hash::Sha384 => sha2::Sha384::digest(data).to_vec(),
        Hash::Sha512 => sha2::Sha512::digest(data).to_vec(),
    }
}

/// MD5 is never accepted (OpenSSL's security level refuses it); an empty digest never matches.
fn md5(_: &[u8]) -> Vec<u8> {
    Vec::new()
}

/// Big-endian bytes to little-endian 64-bit limbs, `len` of them.
fn limbs(be: &[u8], len: usize) -> Vec<u64> {
    let mut v = vec![0u64; len];
    for (i, b) in be.iter().rev().enumerate() {
        v[i / 8] |= (*b as u64) << (8 * (i % 8));
    }
    v
}

fn to_be(l: &[u64], bytes: usize) -> Vec<u8> {
    let mut v = vec![0u8; bytes];
    for i in 0..bytes {
        v[bytes - 1 - i] = (l[i / 8] >> (8 * (i % 8))) as u8;
    }
    v
}

fn geq(a: &[u64], b: &[u64]) -> bool {
    for i in (0..a.len()).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

fn sub_in_place(a: &mut [u64], b: &[u64]) {
    let mut borrow = 0u64;
    for i in 0..a.len() {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow);
        a[i] = d;
        borrow = (b1 || b2) as u64;
    }
}

/// Montgomery arithmetic modulo an odd n.
struct Mont {
    n: Vec<u64>,
    n0: u64,
}

impl Mont {
    fn new(n: Vec<u64>) -> Mont {
        // -n^-1 mod 2^64 by Newton's iteration.
        let mut x: u64 = 1;
        for _ in 0..7 {
            x = x.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(x)));
        }
        Mont {
            n0: x.wrapping_neg(),
            n,
        }
    }

    /// a * b / R mod n (CIOS), for a, b < n.
    fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let s = self.n.len();
        let mut t = vec![0u64; s + 2];
        for &bi in b.iter().take(s) {
            let mut c: u128 = 0;
            for j in 0..s {
                let v = t[j] as u128 + a[j] as u128 * bi as u128 + c;
                t[j] = v as u64;
                c = v >> 64;
            }
            let v = t[s] as u128 + c;
            t[s] = v as u64;
            t[s + 1] = (v >> 64) as u64;
            let m = t[0].wrapping_mul(self.n0);
            let v = t[0] as u128 + m as u128 * self.n[0] as u128;
            let mut c = v >> 64;
            for j in 1..s {
                let v = t[j] as u128 + m as u128 * self.n[j] as u128 + c;
                t[j - 1] = v as u64;
                c = v >> 64;
            }
            let v = t[s] as u128 + c;
            t[s - 1] = v as u64;
            t[s] = t[s + 1] + (v >> 64) as u64;
        }
        let mut r = t[..s].to_vec();
        if t[s] != 0 || geq(&r, &self.n) {
            sub_in_place(&mut r, &self.n);
        }
        r
    }

    /// R^2 mod n, by doubling 1 (2 * 64 * s times, each reduced).
    fn r2(&self) -> Vec<u64> {
        let s = self.n.len();
        let mut v = vec![0u64; s];
        v[0] = 1;
        for _ in 0..(128 * s) {
            let top = v[s - 1] >> 63;
            for i in (1..s).rev() {
                v[i] = (v[i] << 1) | (v[i - 1] >> 63);
            }
            v[0] <<= 1;
            if top == 1 || geq(&v, &self.n) {
                sub_in_place(&mut v, &self.n);
            }
        }
        v
    }
}

/// s^e mod n, big-endian, `n.len()` bytes; None when the key or the signature cannot be used
/// (as OpenSSL refuses them: an even or too large modulus, e not below n, s not below n).
pub fn public_op(n: &[u8], e: &[u8], s: &[u8]) -> Option<Vec<u8>> {
    let k = n.len();
    if k == 0 || n[k - 1] & 1 == 0 || k > 2048 || s.len() > k || e.is_empty() || e.len() > 8 {
        return None;
    }
    let len = k.div_ceil(8);
    let nl = limbs(n, len);
    let el = limbs(e, len);
    if geq(&el, &nl) {
        return None;
    }
    let sl = limbs(s, len);
    if geq(&sl, &nl) {
        return None;
    }
    let m = Mont::new(nl);
    let r2 = m.r2();
    let base = m.mul(&sl, &r2);
    let mut one = vec![0u64; len];
    one[0] = 1;
    let mut acc = m.mul(&one, &r2);
    let ebits: Vec<bool> = e
        .iter()
        .flat_map(|b| (0..8).rev().map(move |i| b >> i & 1 == 1))
        .skip_while(|b| !b)
        .collect();
    for bit in ebits {
        acc = m.mul(&acc, &acc);
        if bit {
            acc = m.mul(&acc, &base);
        }
    }
    Some(to_be(&m.mul(&acc, &one), k))
}

/// DigestInfo prefixes (with NULL parameters, as OpenSSL writes and requires them).
fn digest_info(h: Hash) -> &'static [u8] {
    match h {
        Hash::Md5 => &[
            0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05,
            0x05, 0x00, 0x04, 0x10,
        ],
        Hash::Sha1 => &[
            0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04,
            0x14,
        ],
        Hash::Sha224 => &[
            0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x04, 0x05, 0x00, 0x04, 0x1c,
        ],
        Hash::Sha256 => &[
            0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x01, 0x05, 0x00, 0x04, 0x20,
        ],
        Hash::Sha384 => &[
            0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x02, 0x05, 0x00, 0x04, 0x30,
        ],
        Hash::Sha512 => &[
            0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x03, 0x05, 0x00, 0x04, 0x40,
        ],
    }
}

/// RSASSA-PKCS1-v1_5: the whole encoded message rebuilt and compared.
pub fn verify_pkcs1(n: &[u8], e: &[u8], h: Hash, msg: &[u8], sig: &[u8]) -> bool {
    let Some(em) = public_op(n, e, sig) else {
        return false;
    };
    let mut t = digest_info(h).to_vec();
    t.extend(digest(h, msg));
    let k = n.len();
    if k < t.len() + 11 {
        return false;
    }
    let mut want = vec![0x00, 0x01];
    want.extend(std::iter::repeat_n(0xff, k - 3 - t.len()));
    want.push(0x00);
    want.extend(t);
    want == em
}

fn mgf1(h: Hash, seed: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![];
    let mut counter: u32 = 0;
    while out.len() < len {
        let mut block = seed.to_vec();
        block.extend(counter.to_be_bytes());
        out.extend(digest(h, &block));
        counter += 1;
    }
    out.truncate(len);
    out
}

/// RSASSA-PSS (RFC 8017 9.1.2) with the digest, MGF1 digest and exact salt length of the
/// certificate's parameters, as OpenSSL checks them.
pub fn verify_pss(
    n: &[u8],
    e: &[u8],
    h: Hash,
    mgf: Hash,
    salt: usize,
    msg: &[u8],
    sig: &[u8],
) -> bool {
    if h == Hash::Md5 || mgf == Hash::Md5 {
        return false;
    }
    let Some(decrypted) = public_op(n, e, sig) else {
        return false;
    };
    let mod_bits = n.len() * 8 - n[0].leading_zeros() as usize;
    let em_bits = mod_bits - 1;
    let msbits = em_bits % 8;
    let mut em: &[u8] = &decrypted;
    if msbits == 0 {
        if em[0] != 0 {
            return false;
        }
        em = &em[1..];
    } else if em[0] & (0xffu8 << msbits) != 0 {
        return false;
    }
    let em_len = em.len();
    let m_hash = digest(h, msg);
    let h_len = m_hash.len();
    if em_len < h_len + salt + 2 || em[em_len - 1] != 0xbc {
        return false;
    }
    let db_len = em_len - h_len - 1;
    let hh = &em[db_len..em_len - 1];
    let mut db: Vec<u8> = em[..db_len]
        .iter()
        .zip(mgf1(mgf, hh, db_len))
        .map(|(a, b)| a ^ b)
        .collect();
    if msbits != 0 {
        db[0] &= 0xff >> (8 - msbits);
    }
    let ps = db_len - salt - 1;
    if db[..ps].iter().any(|&b| b != 0) || db[ps] != 0x01 {
        return false;
    }
    let mut m2 = vec![0u8; 8];
    m2.extend(&m_hash);
    m2.extend(&db[ps + 1..]);
    digest(h, &m2) == hh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn montgomery_matches_small_numbers() {
        // 7^13 mod 221 = 176 (moduli of many limbs are covered by the corpus).
        assert_eq!(public_op(&[221], &[13], &[7]), Some(vec![176]));
        // 2^65537 mod (2^61 - 1) = 2^(65537 mod 61) = 2^23.
        let n = ((1u64 << 61) - 1).to_be_bytes();
        let want = (1u64 << 23).to_be_bytes();
        assert_eq!(public_op(&n, &[1, 0, 1], &[2]), Some(want.to_vec()));
        assert_eq!(public_op(&[220], &[3], &[2]), None, "even modulus");
        assert_eq!(
            public_op(&[221], &[3], &[222]),
            None,
            "signature not below n"
        );
    }
}
