//! jsonb's canonical form: a JSON reader that writes keys sorted and unique, strings unescaped
//! and numbers as `numeric`. Apart as a parser of its own (objects, arrays, escapes).

use super::scalar::numeric;

/// jsonb's canonical form: objects' keys sorted (by length, then bytes, as jsonb stores
/// them) with the last of duplicate keys kept, strings unescaped, numbers as `numeric`.
pub(super) struct Json<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    /// The members of the objects being read, innermost last: where each one's canonical
    /// bytes start and end in `out` (one list for all levels: no buffer per member).
    pub(super) members: Vec<(usize, usize)>,
}

/// The key of a member written at `m` in `out`: its length (4 bytes) and bytes.
fn member_key(out: &[u8], m: (usize, usize)) -> &[u8] {
    let n = u32::from_le_bytes(out[m.0..m.0 + 4].try_into().expect("4 bytes")) as usize;
    &out[m.0 + 4..m.0 + 4 + n]
}

/// jsonb's key order: shorter first, then by bytes.
fn key_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    (a.len(), a).cmp(&(b.len(), b))
}

impl Json<'_> {
    pub(super) fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    pub(super) fn value(&mut self, out: &mut Vec<u8>, depth: usize) -> bool {
        if depth > 1000 {
            return false;
        }
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                out.push(b'{');
                let mark = out.len();
                let base = self.members.len();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        // Each member straight into `out`: key length, key, value.
                        let at = out.len();
                        out.extend_from_slice(&[0; 4]);
                        if !self.string(out) {
                            return false;
                        }
                        let n = (out.len() - at - 4) as u32;
                        out[at..at + 4].copy_from_slice(&n.to_le_bytes());
                        self.ws();
                        if self.s.get(self.i) != Some(&b':') {
                            return false;
                        }
                        self.i += 1;
                        self.ws();
                        if !self.value(out, depth + 1) {
                            return false;
                        }
                        self.members.push((at, out.len()));
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return false,
                        }
                    }
                }
                // jsonb's own output (and a dump of a jsonb column) has its keys sorted and
                // unique: nothing to do. Otherwise sort (stably: the last of equal keys is
                // the one kept) and write again.
                let ms = &self.members[base..];
                let sorted = ms
                    .windows(2)
                    .all(|w| key_order(member_key(out, w[0]), member_key(out, w[1])).is_lt());
                if !sorted {
                    let mut idx: Vec<usize> = (0..ms.len()).collect();
                    idx.sort_by(|&a, &b| key_order(member_key(out, ms[a]), member_key(out, ms[b])));
                    let all = out[mark..].to_vec();
                    out.truncate(mark);
                    for (j, &k) in idx.iter().enumerate() {
                        let m = ms[k];
                        if idx.get(j + 1).is_some_and(|&n| {
                            member_key(&all, (ms[n].0 - mark, 0))
                                == member_key(&all, (m.0 - mark, 0))
                        }) {
                            continue;
                        }
                        out.extend_from_slice(&all[m.0 - mark..m.1 - mark]);
                    }
                }
                self.members.truncate(base);
                out.push(b'}');
                true
            }
            Some(b'[') => {
                self.i += 1;
                out.push(b'[');
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if !self.value(out, depth + 1) {
                            return false;
                        }
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return false,
                        }
                    }
                }
                out.push(b']');
                true
            }
            Some(b'"') => {
                out.push(b's');
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                if !self.string(out) {
                    return false;
                }
                let n = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&n.to_le_bytes());
                true
            }
            Some(b't') => self.word(b"true", b't', out),
            Some(b'f') => self.word(b"false", b'f', out),
            Some(b'n') => self.word(b"null", b'n', out),
            Some(b'-' | b'0'..=b'9') => {
                let st = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    self.i += 1;
                }
                out.push(b'#');
                if !numeric(&self.s[st..self.i], None, out) {
                    return false;
                }
                out.push(b';');
                true
            }
            _ => false,
        }
    }

    fn word(&mut self, w: &[u8], tag: u8, out: &mut Vec<u8>) -> bool {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            out.push(tag);
            true
        } else {
            false
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        let h = u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?;
        self.i += 4;
        Some(h)
    }

    /// A string's content, unescaped to UTF-8.
    fn string(&mut self, out: &mut Vec<u8>) -> bool {
        if self.s.get(self.i) != Some(&b'"') {
            return false;
        }
        self.i += 1;
        loop {
            // The plain run up to the next quote or backslash in one copy.
            let Some(n) = memchr::memchr2(b'"', b'\\', &self.s[self.i..]) else {
                return false;
            };
            out.extend_from_slice(&self.s[self.i..self.i + n]);
            self.i += n;
            let b = self.s[self.i];
            self.i += 1;
            match b {
                b'"' => return true,
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return false;
                    };
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let Some(h) = self.hex4() else { return false };
                            let cp = if (0xD800..0xDC00).contains(&h)
                                && self.s.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                self.i += 2;
                                let Some(l) = self.hex4() else { return false };
                                0x10000 + ((h - 0xD800) << 10) + (l.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                h
                            };
                            match char::from_u32(cp) {
                                Some(c) => c,
                                None => return false,
                            }
                        }
                        _ => return false,
                    };
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                }
                _ => out.push(b),
            }
        }
    }
}
