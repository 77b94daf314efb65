//! The fields of one record: the strict RFC 4180 split ([`split_fields`],
//! [`split_fields_upto`]) and [`split_fields_fast`], sixteen bytes at a time, held to it.
//! Apart from the scanner because they look inside a record that scanning already cut.

use super::{Field, Malformed, prefix_xor};

/// Strips the record terminator (`\n` or `\r\n`) from a raw record.
#[inline]
pub fn strip_terminator(rec: &[u8]) -> &[u8] {
    let r = rec.strip_suffix(b"\n").unwrap_or(rec);
    r.strip_suffix(b"\r").unwrap_or(r)
}

/// Splits a raw record (terminator included or not) into fields, strictly by RFC 4180.
/// `out` is cleared first; reuse it across records.
pub fn split_fields(rec: &[u8], out: &mut Vec<Field>) -> Result<(), Malformed> {
    split_fields_upto(rec, usize::MAX, out)
}

/// [`split_fields`], stopping after `n` fields: a tool that needs only the first columns
/// (a sort key) need not look at the rest, which pass through untouched anyway (in pksort a
/// third of the time went into splitting fields no key uses).
pub fn split_fields_upto(rec: &[u8], n: usize, out: &mut Vec<Field>) -> Result<(), Malformed> {
    out.clear();
    // The fields are searched for in `rec` itself, terminator and all (it holds no `,` and no
    // `"`), and the record's end is looked at only when a field runs up to it: a sort key in
    // the first columns then touches only the record's first bytes. Stripping the terminator
    // first read the record's last byte, a second cache line per record, and in pksort's key
    // pass over a mapped file most of that pass's time was spent waiting for it.
    let len = rec.len();
    let mut i = 0;
    while out.len() < n {
        if i < len && rec[i] == b'"' {
            let start = i;
            i += 1;
            loop {
                match memchr::memchr(b'"', &rec[i..]) {
                    None => return Err(Malformed::Unterminated),
                    Some(j) => {
                        i += j + 1;
                        if i < len && rec[i] == b'"' {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            out.push(Field {
                start,
                end: i,
                quoted: true,
            });
            // After a closing quote the body ends exactly where the rest is a terminator
            // (the byte before is the quote, so no `\r` of it belongs to the body).
            match &rec[i..] {
                [b',', ..] => i += 1,
                [] | b"\n" | b"\r" | b"\r\n" => return Ok(()),
                _ => return Err(Malformed::TextAfterQuote(i)),
            }
        } else {
            let start = i;
            let (end, last) = match memchr::memchr2(b',', b'"', &rec[i..]) {
                Some(j) if rec[i + j] == b'"' => return Err(Malformed::BareQuote(i + j)),
                Some(j) => (i + j, false),
                None => (strip_terminator(rec).len(), true),
            };
            out.push(Field {
                start,
                end,
                quoted: false,
            });
            if last {
                return Ok(());
            }
            i = end + 1;
        }
    }
    Ok(())
}

/// Bytes of `x` that are zero, as their high bits (exact: no borrow between bytes).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const HI7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((x & HI7).wrapping_add(HI7)) | x | HI7)
}

/// Where [`FastSplit::events`] leaves a record.
enum Step {
    /// Go on with the next block.
    Go,
    /// The record ended with a quoted field; all fields are out.
    Done,
    /// A quoting mistake: the strict split says which.
    Strict,
}

/// The state of [`split_fields_fast`] between blocks: the field being read.
struct FastSplit {
    /// Where the current field starts (at its opening quote if quoted).
    start: usize,
    /// The current field is quoted and not yet closed.
    quoted: bool,
    /// Events before this offset were taken already (the second quote of a doubled pair, the
    /// comma after a closing quote).
    skip: usize,
}

impl FastSplit {
    /// Takes the quotes and commas of a block at `base` in order: bit `k << shift` of a mask
    /// set means that byte at `base + k` (a byte mask has one bit per byte, a word trick's
    /// its high bits). RFC 4180 as [`split_fields_upto`] reads it; anything else is
    /// [`Step::Strict`], so errors are the strict split's own.
    #[inline(always)]
    fn events(
        &mut self,
        body: &[u8],
        out: &mut Vec<Field>,
        base: usize,
        quotes: u64,
        commas: u64,
        shift: u32,
    ) -> Step {
        let mut ev = quotes | commas;
        while ev != 0 {
            if self.quoted {
                // Inside a quoted field only its closing quote matters, and a jsonb document
                // has a doubled quote every ten bytes and commas between: find it by masks,
                // not event by event. The quotes left in the block, from `skip` on, alternate
                // between one that may close and the second of a pair; one that may close and
                // is not followed by a quote in the block is the first candidate.
                let lo = (self.skip.saturating_sub(base) as u32) << shift;
                let from = if lo >= 64 { 0 } else { u64::MAX << lo };
                let q = quotes & ev & from;
                let close = q & prefix_xor(q) & !(quotes >> (1u32 << shift));
                if close == 0 {
                    return Step::Go; // every quote left is paired inside the block
                }
                let bit = close & close.wrapping_neg();
                let at = base + (close.trailing_zeros() >> shift) as usize;
                ev &= !(bit | (bit - 1));
                match body.get(at + 1) {
                    // The last byte of the block, paired with the next block's first.
                    Some(b'"') => self.skip = at + 2,
                    None => {
                        out.push(Field {
                            start: self.start,
                            end: at + 1,
                            quoted: true,
                        });
                        return Step::Done;
                    }
                    Some(b',') => {
                        out.push(Field {
                            start: self.start,
                            end: at + 1,
                            quoted: true,
                        });
                        self.quoted = false;
                        self.start = at + 2;
                        self.skip = at + 2;
                    }
                    Some(_) => return Step::Strict, // text after the closing quote
                }
                continue;
            }
            let bit = ev & ev.wrapping_neg();
            let at = base + (ev.trailing_zeros() >> shift) as usize;
            ev &= ev - 1;
            if at < self.skip {
                continue;
            }
            // Outside quotes: a comma ends a field, a quote opens one where it starts.
            if quotes & bit == 0 {
                out.push(Field {
                    start: self.start,
                    end: at,
                    quoted: false,
                });
                self.start = at + 1;
            } else if at == self.start {
                self.quoted = true;
            } else {
                return Step::Strict; // a bare quote
            }
        }
        Step::Go
    }
}

/// [`split_fields`] of `rec` whose `body` is `rec` without its terminator ([`strip_terminator`]),
/// with one pass over the record sixteen (or eight) bytes at a time instead of one search per
/// field, quoted fields included: a record with a quoted name or a jsonb document costs a few
/// bit operations per quote, not the strict split's search per field (which made a quoted
/// field in every record cost 1.5-2x a clean check). Quoting mistakes take the strict path,
/// so the result, errors included, is always [`split_fields`]'s.
#[inline]
pub fn split_fields_fast(rec: &[u8], body: &[u8], out: &mut Vec<Field>) -> Result<(), Malformed> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    out.clear();
    let n = body.len();
    let mut st = FastSplit {
        start: 0,
        quoted: false,
        skip: 0,
    };
    let mut i = 0;
    macro_rules! take {
        ($base:expr, $q:expr, $c:expr, $shift:expr) => {
            match st.events(body, out, $base, $q, $c, $shift) {
                Step::Go => {}
                Step::Done => return Ok(()),
                Step::Strict => return split_fields(rec, out),
            }
        };
    }
    // Sixteen bytes at a time with SSE2, which every x86_64 CPU has (no runtime detection):
    // two compares and two byte masks per block instead of the word trick's ten operations
    // per eight bytes. A typed check splits every record, so this loop is a fifth of it.
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; every load reads `body[i..i + 16]`, inside
        // the slice (`i + 16 <= n`), unaligned loads being allowed.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let comma = _mm_set1_epi8(b',' as i8);
            while i + 16 <= n {
                let v = _mm_loadu_si128(body.as_ptr().add(i).cast::<__m128i>());
                let q = _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u32;
                let c = _mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) as u32;
                take!(i, u64::from(q), u64::from(c), 0);
                i += 16;
            }
        }
    }
    while i + 8 <= n {
        let mut word = [0u8; 8];
        word.copy_from_slice(&body[i..i + 8]);
        let w = u64::from_le_bytes(word);
        let q = zero_bytes(w ^ (ONES * b'"' as u64));
        let c = zero_bytes(w ^ (ONES * b',' as u64));
        take!(i, q, c, 3);
        i += 8;
    }
    let (mut q, mut c) = (0u64, 0u64);
    for (k, &b) in body[i..].iter().enumerate() {
        q |= u64::from(b == b'"') << k;
        c |= u64::from(b == b',') << k;
    }
    take!(i, q, c, 0);
    if st.quoted {
        return split_fields(rec, out); // never closed
    }
    out.push(Field {
        start: st.start,
        end: n,
        quoted: false,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_fields_fast_agrees_with_split_fields() {
        let recs: &[&[u8]] = &[
            b"a,b,c\n",
            b"a,,c\r\n",
            b"",
            b",",
            b"x",
            b"a,\"b,c\",d\n",
            b"a,b\"c\n",
            b"\"open\n",
            b"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21\n",
            b",,,,,,,,,,,,,,,,,\n",
            b"abcdefgh,ijklmnop,\xff\xfe,\x80\x2c\xac,qrstuvwx\n",
            b"abcdefghijklmnop,qrstuvw\"x\n",
            b"abcdefghijklmnop,\"qrst,uvw\",x,y,z\r\n",
        ];
        for rec in recs {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(rec, &mut a);
            let rb = split_fields_fast(rec, strip_terminator(rec), &mut b);
            assert_eq!(ra, rb, "{rec:?}");
            if ra.is_ok() {
                assert_eq!(a, b, "{rec:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The sixteen- and eight-byte paths of the fast split against the strict one, on
        /// records whose commas and quotes fall at every place in and across the blocks.
        #[test]
        fn split_fields_fast_agrees_on_any_record(rec in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b',', b',', b'"', b'\r', b'\n', 0xff, b' ']), 0..80)) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(&rec, &mut a);
            let rb = split_fields_fast(&rec, strip_terminator(&rec), &mut b);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", rec);
            if ra.is_ok() {
                proptest::prop_assert_eq!(a, b, "{:?}", rec);
            }
        }
    }

    /// A byte-at-a-time split of the record's body (its terminator stripped first), RFC 4180
    /// as [`split_fields_upto`] reads it, stopping after `n` fields: the reference its
    /// searches are held to.
    fn split_walk(rec: &[u8], n: usize, out: &mut Vec<Field>) -> Result<(), Malformed> {
        out.clear();
        let body = strip_terminator(rec);
        let mut i = 0;
        while out.len() < n {
            let start = i;
            if body.get(i) == Some(&b'"') {
                i += 1;
                loop {
                    match (body.get(i), body.get(i + 1)) {
                        (None, _) => return Err(Malformed::Unterminated),
                        (Some(b'"'), Some(b'"')) => i += 2,
                        (Some(b'"'), _) => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                out.push(Field {
                    start,
                    end: i,
                    quoted: true,
                });
                match body.get(i) {
                    None => return Ok(()),
                    Some(b',') => i += 1,
                    Some(_) => return Err(Malformed::TextAfterQuote(i)),
                }
            } else {
                while let Some(&b) = body.get(i) {
                    match b {
                        b',' => break,
                        b'"' => return Err(Malformed::BareQuote(i)),
                        _ => i += 1,
                    }
                }
                out.push(Field {
                    start,
                    end: i,
                    quoted: false,
                });
                if i == body.len() {
                    return Ok(());
                }
                i += 1;
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6000))]
        /// `split_fields_upto`, which looks at the record's end only when a field reaches
        /// it, splits every record, terminators and all (`\r`, `\n` and both, in and after
        /// fields), as a walk over the stripped body does, for every field count.
        #[test]
        fn split_upto_agrees_with_a_walk(
            rec in proptest::collection::vec(proptest::sample::select(
                vec![b'a', b',', b',', b'"', b'"', b'\r', b'\n', 0xff]), 0..24),
            n in 1usize..8,
        ) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields_upto(&rec, n, &mut a);
            let rb = split_walk(&rec, n, &mut b);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", rec);
            proptest::prop_assert_eq!(a, b, "{:?}", rec);
        }
    }

    /// A record of well-formed fields (quoted ones with commas, newlines and doubled quotes,
    /// of any length), then maybe one byte overwritten, so that long quoted fields put their
    /// pairs and closing quotes at every place in and across the sixteen-byte blocks, the
    /// eight-byte word and the tail.
    fn csv_record() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let field = (
            any::<bool>(),
            proptest::collection::vec(
                proptest::sample::select(vec![b'a', b'a', b'a', b'"', b',', b'\n', b' ']),
                0..40,
            ),
        );
        (
            proptest::collection::vec(field, 1..5),
            proptest::option::of((
                any::<usize>(),
                proptest::sample::select(vec![b'"', b',', b'a']),
            )),
        )
            .prop_map(|(fields, poke)| {
                let mut rec = Vec::new();
                for (k, (quoted, text)) in fields.iter().enumerate() {
                    if k > 0 {
                        rec.push(b',');
                    }
                    if *quoted {
                        rec.push(b'"');
                        for &b in text {
                            rec.extend_from_slice(if b == b'"' {
                                b"\"\""
                            } else {
                                std::slice::from_ref(&b)
                            });
                        }
                        rec.push(b'"');
                    } else {
                        rec.extend(text.iter().filter(|&&b| b == b'a' || b == b' '));
                    }
                }
                if let Some((at, b)) = poke
                    && !rec.is_empty()
                {
                    let n = rec.len();
                    rec[at % n] = b;
                }
                rec.push(b'\n');
                rec
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The fast split against the strict one on well-formed records and on records one
        /// byte away from well-formed.
        #[test]
        fn split_fields_fast_agrees_on_quoted_fields(rec in csv_record()) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(&rec, &mut a);
            let rb = split_fields_fast(&rec, strip_terminator(&rec), &mut b);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", String::from_utf8_lossy(&rec));
            if ra.is_ok() {
                proptest::prop_assert_eq!(a, b, "{:?}", String::from_utf8_lossy(&rec));
            }
        }
    }

    #[test]
    fn fields() {
        let mut f = Vec::new();
        let rec = b"a,\"b,\"\"c\",,\"\"\r\n";
        split_fields(rec, &mut f).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(&*f[0].value(rec), b"a");
        assert_eq!(&*f[1].value(rec), b"b,\"c");
        assert!(f[2].is_empty_unquoted());
        assert!(f[3].quoted && f[3].value(rec).is_empty());
        assert_eq!(
            split_fields(b"a,b\"c", &mut f),
            Err(Malformed::BareQuote(3))
        );
        assert_eq!(
            split_fields(b"\"a\"b", &mut f),
            Err(Malformed::TextAfterQuote(3))
        );
        assert_eq!(split_fields(b"\"a", &mut f), Err(Malformed::Unterminated));
        split_fields(b"", &mut f).unwrap();
        assert_eq!(f.len(), 1);
        split_fields(b"x,\n", &mut f).unwrap();
        assert_eq!(f.len(), 2);
    }
}
