//! pg_dump's object name patterns (`-t`, `-T`, `-n`, `-N`) as pg_dump reads them: psql's
//! `patternToSQLRegex` (src/fe_utils/string_utils.c) turns the pattern into one anchored
//! regular expression per dotted part, which the server matches with `~`. Issue 35 item 7:
//! a shell-glob reading took `audit_[0-9]*` and `tmp(1|2)` literally, so `-T` and `-N`
//! excluded nothing and said nothing.
//!
//! The conversion, character by character, as psql's: `"` starts and ends quoting (`""` inside
//! quotes is one `"`); outside quotes ASCII upper-case letters fold to lower case, `*` becomes
//! `.*`, `?` becomes `.`, `.` separates the parts, and every other character passes through, so
//! `[0-9]`, `(a|b)`, `+`, `{n}` and `^` keep their regular-expression meaning; inside quotes
//! every regular-expression character is escaped; `$` is always literal, and so is a `[`
//! directly followed by `]`. Each part is wrapped as `^(...)$`.
//!
//! The expressions are PostgreSQL's advanced regular expressions (AREs), matched here by a
//! small engine of their syntax: literals, `.`, bracket expressions (ranges, negation, the
//! POSIX classes), groups, `|`, the quantifiers `*` `+` `?` `{m}` `{m,}` `{m,n}` (and their
//! non-greedy forms: the same match or not), `^`, `$` and `\` before a character that is not a
//! letter or digit. What it does not implement (escapes like `\d` or `\m`,
//! back-references, collating elements `[.x.]` and equivalence classes `[=x=]`) is refused
//! with the pattern named, never taken literally. Matching is a search for the expression in
//! the name, as `~` does, by sets of positions: polynomial in the name's length, whatever the
//! expression.
//!
//! One difference from pg_dump, by necessity: a table pattern without a schema part matches
//! tables in every schema (pg_dump matches the tables its session's search_path makes
//! visible, which a dump file does not record). A database part (`db.schema.table`, which
//! pg_dump accepts when it names the database dumped) is refused, as the dump does not say
//! which database it was.

/// One part's expression: alternatives of sequences of quantified atoms.
type Alt = Vec<Vec<Piece>>;

/// An atom with its repeat counts (`max` `None`: unbounded).
#[derive(Debug, Clone)]
struct Piece {
    atom: Atom,
    min: u32,
    max: Option<u32>,
}

#[derive(Debug, Clone)]
enum Atom {
    Char(char),
    Any,
    Class {
        negated: bool,
        items: Vec<Item>,
    },
    /// `^`: the start of the name.
    Start,
    /// `$`: the end of the name.
    End,
    Group(Alt),
}

#[derive(Debug, Clone)]
enum Item {
    Range(char, char),
    Named(fn(char) -> bool),
}

/// The most repeats a bound may give (PostgreSQL's `DUPMAX`).
const DUPMAX: u32 = 255;

/// One part of a pattern, compiled.
#[derive(Debug, Clone)]
struct Regex(Alt);

/// The POSIX classes of bracket expressions, as PostgreSQL names them.
fn class(name: &str) -> Option<fn(char) -> bool> {
    Some(match name {
        "alnum" => |c: char| c.is_alphanumeric(),
        "alpha" => |c: char| c.is_alphabetic(),
        "ascii" => |c: char| c.is_ascii(),
        "blank" => |c: char| c == ' ' || c == '\t',
        "cntrl" => |c: char| c.is_control(),
        "digit" => |c: char| c.is_ascii_digit(),
        "graph" => |c: char| !c.is_control() && !c.is_whitespace(),
        "lower" => |c: char| c.is_lowercase(),
        "print" => |c: char| !c.is_control(),
        "punct" => |c: char| c.is_ascii_punctuation(),
        "space" => |c: char| c.is_whitespace(),
        "upper" => |c: char| c.is_uppercase(),
        "xdigit" => |c: char| c.is_ascii_hexdigit(),
        "word" => |c: char| c.is_alphanumeric() || c == '_',
        _ => return None,
    })
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn alt(&mut self, depth: usize) -> Result<Alt, String> {
        let mut alt = vec![self.seq()?];
        while self.peek() == Some('|') {
            self.i += 1;
            alt.push(self.seq()?);
        }
        match self.peek() {
            Some(')') if depth > 0 => Ok(alt),
            None if depth == 0 => Ok(alt),
            _ => Err("parentheses () not balanced".into()),
        }
    }

    fn seq(&mut self) -> Result<Vec<Piece>, String> {
        let mut seq = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let (min, max) = self.quantifier()?;
            if matches!(atom, Atom::Start | Atom::End) && (min, max) != (1, Some(1)) {
                return Err("quantifier operand invalid".into());
            }
            seq.push(Piece { atom, min, max });
        }
        Ok(seq)
    }

    /// Whether a `{` at `i` starts a bound (a digit follows), not an ordinary character.
    fn bound_at(&self, i: usize) -> bool {
        self.s.get(i) == Some(&'{') && self.s.get(i + 1).is_some_and(|c| c.is_ascii_digit())
    }

    fn atom(&mut self) -> Result<Atom, String> {
        let c = self.s[self.i];
        self.i += 1;
        Ok(match c {
            '(' => {
                if self.peek() == Some('?') {
                    return Err("(?...) is not supported".into());
                }
                let alt = self.alt(1)?;
                self.i += 1;
                Atom::Group(alt)
            }
            '.' => Atom::Any,
            '^' => Atom::Start,
            '$' => Atom::End,
            '[' => self.bracket()?,
            '\\' => Atom::Char(self.escaped()?),
            '*' | '+' | '?' => return Err("quantifier operand invalid".into()),
            '{' if self.bound_at(self.i - 1) => return Err("quantifier operand invalid".into()),
            c => Atom::Char(c),
        })
    }

    /// The character after a `\`: one that is not a letter or digit stands for itself.
    fn escaped(&mut self) -> Result<char, String> {
        match self.peek() {
            None => Err("invalid escape \\ sequence".into()),
            Some(c) if c.is_alphanumeric() => Err(format!("the escape \\{c} is not supported")),
            Some(c) => {
                self.i += 1;
                Ok(c)
            }
        }
    }

    fn quantifier(&mut self) -> Result<(u32, Option<u32>), String> {
        let q = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') if self.bound_at(self.i) => {
                self.i += 1;
                let m = self.number()?;
                let n = if self.peek() == Some(',') {
                    self.i += 1;
                    if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        Some(self.number()?)
                    } else {
                        None
                    }
                } else {
                    Some(m)
                };
                if self.peek() != Some('}') {
                    return Err("braces {} not balanced".into());
                }
                if n.is_some_and(|n| n < m) {
                    return Err("invalid repetition count(s)".into());
                }
                (m, n)
            }
            _ => return Ok((1, Some(1))),
        };
        self.i += 1;
        // A non-greedy form matches the same names.
        if self.peek() == Some('?') {
            self.i += 1;
        }
        if matches!(self.peek(), Some('*' | '+' | '?')) || self.bound_at(self.i) {
            return Err("quantifier operand invalid".into());
        }
        Ok(q)
    }

    fn number(&mut self) -> Result<u32, String> {
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.i += 1;
        }
        if n > DUPMAX {
            return Err("invalid repetition count(s)".into());
        }
        Ok(n)
    }

    fn bracket(&mut self) -> Result<Atom, String> {
        let unbalanced = || "brackets [] not balanced".to_string();
        let negated = self.peek() == Some('^');
        if negated {
            self.i += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek().ok_or_else(unbalanced)?;
            self.i += 1;
            let lo = match c {
                ']' if !first => break,
                '[' if self.peek() == Some(':') => {
                    let rest = &self.s[self.i + 1..];
                    let end = rest
                        .windows(2)
                        .position(|w| w == [':', ']'])
                        .ok_or_else(unbalanced)?;
                    let name: String = rest[..end].iter().collect();
                    let f = class(&name)
                        .ok_or_else(|| format!("invalid character class [:{name}:]"))?;
                    items.push(Item::Named(f));
                    self.i += end + 3;
                    first = false;
                    continue;
                }
                '[' if matches!(self.peek(), Some('.' | '=')) => {
                    return Err(
                        "collating elements [.x.] and equivalence classes [=x=] are not supported"
                            .into(),
                    );
                }
                '\\' => self.escaped()?,
                c => c,
            };
            first = false;
            // `a-z`; a `-` before the closing `]` is itself.
            if self.peek() == Some('-') && self.s.get(self.i + 1).is_some_and(|&c| c != ']') {
                self.i += 1;
                let c = self.peek().ok_or_else(unbalanced)?;
                self.i += 1;
                let hi = if c == '\\' { self.escaped()? } else { c };
                if hi < lo {
                    return Err("invalid character range".into());
                }
                items.push(Item::Range(lo, hi));
            } else {
                items.push(Item::Range(lo, lo));
            }
        }
        Ok(Atom::Class { negated, items })
    }
}

impl Regex {
    fn parse(re: &str) -> Result<Regex, String> {
        let s: Vec<char> = re.chars().collect();
        let mut p = Parser { s: &s, i: 0 };
        Ok(Regex(p.alt(0)?))
    }

    /// Whether the expression matches somewhere in `name` (as `name ~ re`).
    fn is_match(&self, name: &str) -> bool {
        let s: Vec<char> = name.chars().collect();
        let from = vec![true; s.len() + 1];
        alt_step(&self.0, &s, &from).contains(&true)
    }
}

/// The positions reached from any of `from` by one match of `alt`.
fn alt_step(alt: &Alt, s: &[char], from: &[bool]) -> Vec<bool> {
    let mut out = vec![false; from.len()];
    for seq in alt {
        let mut cur = from.to_vec();
        for p in seq {
            cur = piece_step(p, s, &cur);
        }
        or(&mut out, &cur);
    }
    out
}

fn or(acc: &mut [bool], x: &[bool]) -> bool {
    let mut grew = false;
    for (a, &b) in acc.iter_mut().zip(x) {
        if b && !*a {
            *a = true;
            grew = true;
        }
    }
    grew
}

fn piece_step(p: &Piece, s: &[char], from: &[bool]) -> Vec<bool> {
    let mut cur = from.to_vec();
    for _ in 0..p.min {
        cur = atom_step(&p.atom, s, &cur);
    }
    let mut acc = cur.clone();
    let mut n = p.min;
    // More repeats until the bound or until no new position is reached.
    while p.max.is_none_or(|m| n < m) {
        cur = atom_step(&p.atom, s, &cur);
        n += 1;
        if !or(&mut acc, &cur) {
            break;
        }
    }
    acc
}

fn atom_step(a: &Atom, s: &[char], from: &[bool]) -> Vec<bool> {
    let mut out = vec![false; from.len()];
    let one = |out: &mut Vec<bool>, f: &dyn Fn(char) -> bool| {
        for (i, &c) in s.iter().enumerate() {
            if from[i] && f(c) {
                out[i + 1] = true;
            }
        }
    };
    match a {
        Atom::Char(x) => one(&mut out, &|c| c == *x),
        Atom::Any => one(&mut out, &|_| true),
        Atom::Class { negated, items } => one(&mut out, &|c| {
            items.iter().any(|it| match it {
                Item::Range(lo, hi) => (*lo..=*hi).contains(&c),
                Item::Named(f) => f(c),
            }) != *negated
        }),
        Atom::Start => out[0] = from[0],
        Atom::End => out[s.len()] = from[s.len()],
        Atom::Group(alt) => out = alt_step(alt, s, from),
    }
    out
}

/// psql's `patternToSQLRegex`: the pattern's parts as anchored expressions (at most
/// `max_parts`; further dots are kept as characters, as psql does) and the number of
/// separating dots.
fn to_regexes(pattern: &str, max_parts: usize) -> (Vec<String>, usize) {
    let mut parts = vec![String::from("^(")];
    let mut dots = 0;
    let mut quoted = false;
    let mut it = pattern.chars().peekable();
    while let Some(c) = it.next() {
        let full = parts.len() >= max_parts;
        let cur = parts.last_mut().expect("one part at least");
        match c {
            '"' => {
                if quoted && it.peek() == Some(&'"') {
                    it.next();
                    cur.push('"');
                } else {
                    quoted = !quoted;
                }
            }
            c if !quoted && c.is_ascii_uppercase() => cur.push(c.to_ascii_lowercase()),
            '*' if !quoted => cur.push_str(".*"),
            '?' if !quoted => cur.push('.'),
            '.' if !quoted => {
                dots += 1;
                if full {
                    cur.push('.');
                } else {
                    cur.push_str(")$");
                    parts.push(String::from("^("));
                }
            }
            '$' => cur.push_str("\\$"),
            c => {
                if (quoted && "|*+?()[]{}.^$\\".contains(c))
                    || (c == '[' && it.peek() == Some(&']'))
                {
                    cur.push('\\');
                }
                cur.push(c);
            }
        }
    }
    parts.last_mut().expect("one part at least").push_str(")$");
    (parts, dots)
}

/// A `-t`/`-T` (table) or `-n`/`-N` (schema) pattern, as pg_dump reads it (see the module
/// comment).
#[derive(Debug, Clone)]
pub struct NamePattern {
    /// The schema's expression, when the pattern has one.
    schema: Option<Regex>,
    /// The table's expression (`None` for a schema pattern).
    table: Option<Regex>,
    text: String,
}

impl NamePattern {
    /// A table pattern: `table` or `schema.table`.
    pub fn table(p: &str) -> Result<NamePattern, String> {
        let (parts, dots) = to_regexes(p, 3);
        let compile = |re: &str| {
            Regex::parse(re).map_err(|e| {
                format!(
                    "invalid pattern '{p}': {e} (outside double quotes pg_dump's patterns are \
                     regular expressions, with * and ? as wildcards and . between schema and \
                     table)"
                )
            })
        };
        match dots {
            0 => Ok(NamePattern {
                schema: None,
                table: Some(compile(&parts[0])?),
                text: p.into(),
            }),
            1 => Ok(NamePattern {
                schema: Some(compile(&parts[0])?),
                table: Some(compile(&parts[1])?),
                text: p.into(),
            }),
            2 => Err(format!(
                "pattern '{p}' names a database (database.schema.table): a dump does not say \
                 which database it holds; leave the database part out, or quote a name with \
                 dots (\"a.b\")"
            )),
            _ => Err(format!(
                "improper relation name (too many dotted names): '{p}' (quote a name with \
                 dots: \"a.b\")"
            )),
        }
    }

    /// A schema pattern: `schema`.
    pub fn schema(p: &str) -> Result<NamePattern, String> {
        let (parts, dots) = to_regexes(p, 1);
        if dots > 0 {
            return Err(format!(
                "schema pattern '{p}' has a dot: a schema pattern names a schema only \
                 (a database part is not supported; quote a name with dots: \"a.b\")"
            ));
        }
        let re = Regex::parse(&parts[0]).map_err(|e| {
            format!(
                "invalid pattern '{p}': {e} (outside double quotes pg_dump's patterns are \
                 regular expressions, with * and ? as wildcards)"
            )
        })?;
        Ok(NamePattern {
            schema: Some(re),
            table: None,
            text: p.into(),
        })
    }

    /// The pattern as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the table `schema.table` matches.
    pub fn matches(&self, schema: &str, table: &str) -> bool {
        self.schema.as_ref().is_none_or(|r| r.is_match(schema))
            && self.table.as_ref().is_none_or(|r| r.is_match(table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(p: &str) -> NamePattern {
        NamePattern::table(p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn conversion_is_psql_s() {
        assert_eq!(to_regexes("Public.ord*", 3).0, ["^(public)$", "^(ord.*)$"]);
        assert_eq!(to_regexes("\"A.b*\"", 3).0, ["^(A\\.b\\*)$"]);
        assert_eq!(to_regexes("a$b", 3).0, ["^(a\\$b)$"]);
        assert_eq!(to_regexes("int[]", 3).0, ["^(int\\[])$"]);
        assert_eq!(to_regexes("a.b", 1), (vec!["^(a.b)$".to_string()], 1));
        assert_eq!(to_regexes("x\"\"\"y\"", 3).0, ["^(x\"y)$"]);
    }

    #[test]
    fn patterns() {
        let p = t("public.ord*");
        assert!(p.matches("public", "orders"));
        assert!(!p.matches("sales", "orders"));
        let p = t("Items");
        assert!(p.matches("sales", "items"));
        assert!(!p.matches("sales", "Items"));
        assert!(t("\"Items\"").matches("x", "Items"));
        assert!(t("\"my.table name\"").matches("public", "my.table name"));
        let p = t("t?");
        assert!(p.matches("s", "t1") && !p.matches("s", "t12"));
        let p = t("audit_[0-9]*");
        assert!(p.matches("s", "audit_2024") && p.matches("s", "audit_1"));
        assert!(!p.matches("s", "audit_x") && !p.matches("s", "audit_[0-9]"));
        let p = t("tmp(1|2)");
        assert!(p.matches("s", "tmp1") && p.matches("s", "tmp2") && !p.matches("s", "tmp3"));
        assert!(!p.matches("s", "tmp(1|2)"));
        let p = t("a+b{2}");
        assert!(p.matches("s", "aaabb") && !p.matches("s", "ab") && !p.matches("s", "aabbb"));
        assert!(t("x{2,3}").matches("s", "xxx") && !t("x{2,3}").matches("s", "xxxx"));
        assert!(t("[^a-c]z").matches("s", "dz") && !t("[^a-c]z").matches("s", "bz"));
        assert!(t("[[:digit:]]+").matches("s", "42") && !t("[[:digit:]]+").matches("s", "4a"));
        // psql escapes a `[` right before `]`: `[]x]` is literal.
        assert!(t("[]x]").matches("s", "[]x]") && !t("[]x]").matches("s", "]"));
        assert!(t("a[^]x]").matches("s", "ab") && !t("a[^]x]").matches("s", "a]"));
        assert!(t("[a-]").matches("s", "-"));
        assert!(t("\"t(1|2)\"").matches("s", "t(1|2)"));
        assert!(t("t\\(").matches("s", "t("));
        // A `)` of the user's closes psql's group: the rest is an alternative.
        assert!(t("a)|(b").matches("s", "abc") && t("a)|(b").matches("s", "cab"));
        assert!(!t("a)|(b").matches("s", "cac"));
        assert!(!t("(a*)*b").matches("s", &format!("{}c", "a".repeat(60))));
    }

    #[test]
    fn what_is_not_implemented_or_invalid_is_refused() {
        for p in [
            "a(",
            "a)",
            "[a",
            "*+",
            "a{2,1}",
            "a{300}",
            "\\d",
            "[[.a.]]",
            "[[=a=]]",
            "[[:nope:]]",
            "a.b.c",
            "a.b.c.d",
            "a\\",
            "[z-a]",
            "+a",
            "a+{2}",
        ] {
            assert!(NamePattern::table(p).is_err(), "{p}");
        }
        assert!(NamePattern::schema("a.b").is_err());
        assert!(
            NamePattern::schema("tmp(1|2)")
                .unwrap()
                .matches("tmp2", "x")
        );
    }
}
