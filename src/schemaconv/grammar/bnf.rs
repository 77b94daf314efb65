//! The grammar files (`crdb-*.bnf`, written by `derive_crdb.py`) read and compiled: every
//! rule's right-hand side, a regular expression over terminals and nonterminals, becomes a
//! small deterministic automaton, which is what the recognizer (`earley.rs`) steps through.
//!
//! The file format, as the files' headers describe it: `name ::= expression`, continued on
//! lines that start with white space; an expression is items in sequence, `|` between
//! alternatives, `( )` to group, `()` for nothing, postfix `?`, `*`, `+`. `'WORD'` is a
//! keyword, `'('` punctuation, a bare `UPPER_CASE` name a token class of the lexer, a bare
//! `lower_case` name a rule; `#` starts a comment line. The first rule is the start symbol.

use std::collections::{BTreeSet, HashMap};

/// A terminal of the grammar: what the lexer hands the recognizer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// A keyword, by its upper-case spelling (`SELECT`).
    Keyword(String),
    /// One character of punctuation (`(`).
    Punct(char),
    /// A token class of CockroachDB's lexer (`IDENT`, `SCONST`, `TYPECAST`, `NOT_LA`...).
    Class(String),
}

impl std::fmt::Display for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Term::Keyword(k) => f.write_str(k),
            Term::Punct(c) => write!(f, "'{c}'"),
            Term::Class(c) => f.write_str(c),
        }
    }
}

/// One state of a rule's automaton. The transitions are sorted by symbol.
#[derive(Debug, Default)]
pub struct State {
    /// The rule (nonterminal) the state belongs to.
    pub rule: u32,
    /// Whether the rule may end here.
    pub accept: bool,
    /// On a terminal (its index in [`Compiled::terms`]) to a state.
    pub on_term: Vec<(u32, u32)>,
    /// On a nonterminal (a rule index) to a state.
    pub on_rule: Vec<(u32, u32)>,
}

/// A grammar compiled for the recognizer.
#[derive(Debug)]
pub struct Compiled {
    /// The terminals, by index.
    pub terms: Vec<Term>,
    /// The rule names, by index; rule 0 is the start symbol.
    pub rule_names: Vec<String>,
    /// Each rule's first state.
    pub rule_start: Vec<u32>,
    /// Whether each rule derives the empty string.
    pub nullable: Vec<bool>,
    /// Whether each rule is one of the keyword lists (named `*_keyword`).
    pub keyword_list: Vec<bool>,
    /// All rules' states.
    pub states: Vec<State>,
    /// The lexer's keywords: lower-case word to terminal. Only the words of the rules named
    /// `*_keyword`, as CockroachDB's keyword table is made from them (all_keywords.awk);
    /// another word in a rule (the grammar's `DATE`) is never a token.
    pub keywords: HashMap<String, u32>,
    /// Punctuation to terminal.
    pub punct: HashMap<char, u32>,
    /// Token class to terminal.
    pub classes: HashMap<String, u32>,
}

/// A right-hand side as read.
#[derive(Debug, Clone)]
enum Expr {
    Term(u32),
    Rule(String),
    Seq(Vec<Expr>),
    Alt(Vec<Expr>),
    Opt(Box<Expr>),
    Star(Box<Expr>),
    Plus(Box<Expr>),
}

struct Reader<'t, 'm> {
    toks: Vec<&'t str>,
    pos: usize,
    terms: &'m mut Vec<Term>,
    term_ids: &'m mut HashMap<Term, u32>,
}

impl<'t> Reader<'t, '_> {
    fn peek(&self) -> Option<&'t str> {
        self.toks.get(self.pos).copied()
    }

    fn term(&mut self, t: Term) -> u32 {
        if let Some(&i) = self.term_ids.get(&t) {
            return i;
        }
        let i = self.terms.len() as u32;
        self.terms.push(t.clone());
        self.term_ids.insert(t, i);
        i
    }

    fn alt(&mut self) -> Result<Expr, String> {
        let mut alts = vec![self.seq()?];
        while self.peek() == Some("|") {
            self.pos += 1;
            alts.push(self.seq()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Expr::Seq(Vec::new()))
        } else {
            Expr::Alt(alts)
        })
    }

    fn seq(&mut self) -> Result<Expr, String> {
        let mut items = Vec::new();
        while let Some(t) = self.peek() {
            if t == "|" || t == ")" {
                break;
            }
            self.pos += 1;
            let mut e = match t {
                "(" => {
                    let inner = self.alt()?;
                    if self.peek() != Some(")") {
                        return Err("a ( without its )".into());
                    }
                    self.pos += 1;
                    inner
                }
                "()" => Expr::Seq(Vec::new()),
                _ if t.starts_with('\'') => {
                    let body = &t[1..t.len() - 1];
                    let mut chars = body.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) if !c.is_ascii_alphanumeric() => {
                            Expr::Term(self.term(Term::Punct(c)))
                        }
                        _ if is_upper_word(body) => {
                            Expr::Term(self.term(Term::Keyword(body.to_string())))
                        }
                        _ => {
                            return Err(format!(
                                "terminal {t} is neither a keyword nor punctuation"
                            ));
                        }
                    }
                }
                _ if is_upper_word(t) => Expr::Term(self.term(Term::Class(t.to_string()))),
                _ if t
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') =>
                {
                    Expr::Rule(t.to_string())
                }
                _ => return Err(format!("unexpected {t:?}")),
            };
            while let Some(op) = self.peek() {
                e = match op {
                    "?" => Expr::Opt(Box::new(e)),
                    "*" => Expr::Star(Box::new(e)),
                    "+" => Expr::Plus(Box::new(e)),
                    _ => break,
                };
                self.pos += 1;
            }
            items.push(e);
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Expr::Seq(Vec::new()))
        } else {
            Expr::Seq(items)
        })
    }
}

fn is_upper_word(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && s.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The words of a right-hand side: quoted terminals (with a `\'` inside allowed), `()`,
/// punctuation of the notation, names.
fn lex(rhs: &str) -> Result<Vec<&str>, String> {
    let b = rhs.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'\'' {
            let mut j = i + 1;
            while j < b.len() && (b[j] != b'\'' || j == i + 1) {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            if j >= b.len() {
                return Err("an unterminated quote".into());
            }
            out.push(&rhs[i..=j]);
            i = j + 1;
        } else if rhs[i..].starts_with("()") {
            out.push("()");
            i += 2;
        } else if b"()|?*+".contains(&c) {
            out.push(&rhs[i..i + 1]);
            i += 1;
        } else {
            let j = (i..b.len())
                .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_'))
                .unwrap_or(b.len());
            if j == i {
                return Err(format!("unexpected {:?}", c as char));
            }
            out.push(&rhs[i..j]);
            i = j;
        }
    }
    Ok(out)
}

/// Reads and compiles a grammar file.
pub fn compile(text: &str) -> Result<Compiled, String> {
    // Rules: a line `name ::= ...` and the indented lines after it.
    let mut rules: Vec<(String, String)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            let last = rules
                .last_mut()
                .ok_or(format!("line {}: a continuation before any rule", n + 1))?;
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else {
            let (name, rhs) = line
                .split_once("::=")
                .ok_or(format!("line {}: no ::=", n + 1))?;
            rules.push((name.trim().to_string(), rhs.trim().to_string()));
        }
    }
    let index: HashMap<&str, u32> = rules
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i as u32))
        .collect();
    if index.len() != rules.len() {
        return Err("a rule is defined twice".into());
    }
    let mut terms = Vec::new();
    let mut term_ids = HashMap::new();
    let mut exprs = Vec::new();
    for (name, rhs) in &rules {
        let toks = lex(rhs).map_err(|e| format!("{name}: {e}"))?;
        let mut r = Reader {
            toks,
            pos: 0,
            terms: &mut terms,
            term_ids: &mut term_ids,
        };
        let e = r.alt().map_err(|e| format!("{name}: {e}"))?;
        if r.pos != r.toks.len() {
            return Err(format!("{name}: unexpected {:?}", r.toks[r.pos]));
        }
        exprs.push(e);
    }

    let mut states = Vec::new();
    let mut rule_start = Vec::new();
    for (i, e) in exprs.iter().enumerate() {
        let mut nfa = Nfa::default();
        let (s, f) = (nfa.state(), nfa.state());
        nfa.build(e, s, f, &index)
            .map_err(|e| format!("{}: {e}", rules[i].0))?;
        rule_start.push(states.len() as u32);
        nfa.determinise(s, f, i as u32, &mut states);
    }

    // Nullable rules: a rule is nullable when its first state reaches an accepting one by
    // nullable rules alone.
    let mut nullable = vec![false; rules.len()];
    loop {
        let mut changed = false;
        for r in 0..rules.len() {
            if nullable[r] {
                continue;
            }
            let mut seen = BTreeSet::new();
            let mut todo = vec![rule_start[r]];
            while let Some(s) = todo.pop() {
                if !seen.insert(s) {
                    continue;
                }
                let st = &states[s as usize];
                if st.accept {
                    nullable[r] = true;
                    changed = true;
                    break;
                }
                todo.extend(
                    st.on_rule
                        .iter()
                        .filter(|&&(n, _)| nullable[n as usize])
                        .map(|&(_, t)| t),
                );
            }
        }
        if !changed {
            break;
        }
    }

    let mut keywords = HashMap::new();
    let mut punct = HashMap::new();
    let mut classes = HashMap::new();
    for (i, t) in terms.iter().enumerate() {
        match t {
            Term::Punct(c) => {
                punct.insert(*c, i as u32);
            }
            Term::Class(c) => {
                classes.insert(c.clone(), i as u32);
            }
            Term::Keyword(_) => {}
        }
    }
    for (r, (name, _)) in rules.iter().enumerate() {
        if !name.ends_with("_keyword") {
            continue;
        }
        let first = rule_start[r] as usize;
        let last = rule_start.get(r + 1).map_or(states.len(), |&s| s as usize);
        for st in &states[first..last] {
            for &(t, _) in &st.on_term {
                if let Term::Keyword(k) = &terms[t as usize] {
                    keywords.insert(k.to_ascii_lowercase(), t);
                }
            }
        }
    }
    Ok(Compiled {
        terms,
        keyword_list: rules.iter().map(|(n, _)| n.ends_with("_keyword")).collect(),
        rule_names: rules.into_iter().map(|(n, _)| n).collect(),
        rule_start,
        nullable,
        states,
        keywords,
        punct,
        classes,
    })
}

/// A rule's nondeterministic automaton (Thompson's construction), made deterministic for the
/// recognizer. Symbols: terminal `t` is `2t`, rule `r` is `2r + 1`.
#[derive(Default)]
struct Nfa {
    edges: Vec<Vec<(Option<u32>, usize)>>,
}

impl Nfa {
    fn state(&mut self) -> usize {
        self.edges.push(Vec::new());
        self.edges.len() - 1
    }

    fn build(
        &mut self,
        e: &Expr,
        a: usize,
        b: usize,
        index: &HashMap<&str, u32>,
    ) -> Result<(), String> {
        match e {
            Expr::Term(t) => self.edges[a].push((Some(2 * t), b)),
            Expr::Rule(r) => {
                let i = index.get(r.as_str()).ok_or(format!("no rule {r}"))?;
                self.edges[a].push((Some(2 * i + 1), b));
            }
            Expr::Seq(items) => {
                let mut cur = a;
                for (k, x) in items.iter().enumerate() {
                    let next = if k + 1 == items.len() {
                        b
                    } else {
                        self.state()
                    };
                    self.build(x, cur, next, index)?;
                    cur = next;
                }
                if items.is_empty() {
                    self.edges[a].push((None, b));
                }
            }
            Expr::Alt(alts) => {
                for x in alts {
                    self.build(x, a, b, index)?;
                }
            }
            Expr::Opt(x) => {
                self.build(x, a, b, index)?;
                self.edges[a].push((None, b));
            }
            Expr::Star(x) | Expr::Plus(x) => {
                let (m1, m2) = (self.state(), self.state());
                self.edges[a].push((None, m1));
                self.build(x, m1, m2, index)?;
                self.edges[m2].push((None, m1));
                self.edges[m2].push((None, b));
                if matches!(e, Expr::Star(_)) {
                    self.edges[a].push((None, b));
                }
            }
        }
        Ok(())
    }

    fn closure(&self, set: &mut BTreeSet<usize>) {
        let mut todo: Vec<usize> = set.iter().copied().collect();
        while let Some(s) = todo.pop() {
            for &(lab, t) in &self.edges[s] {
                if lab.is_none() && set.insert(t) {
                    todo.push(t);
                }
            }
        }
    }

    /// Subset construction; the states are appended to `out`, the first one first.
    fn determinise(&self, start: usize, fin: usize, rule: u32, out: &mut Vec<State>) {
        let base = out.len() as u32;
        let mut first = BTreeSet::from([start]);
        self.closure(&mut first);
        let mut ids: HashMap<BTreeSet<usize>, u32> = HashMap::from([(first.clone(), 0)]);
        let mut sets = vec![first];
        let mut k = 0;
        while k < sets.len() {
            let mut moves: std::collections::BTreeMap<u32, BTreeSet<usize>> = Default::default();
            for &s in &sets[k] {
                for &(lab, t) in &self.edges[s] {
                    if let Some(sym) = lab {
                        moves.entry(sym).or_default().insert(t);
                    }
                }
            }
            let mut st = State {
                rule,
                accept: sets[k].contains(&fin),
                ..State::default()
            };
            for (sym, mut set) in moves {
                self.closure(&mut set);
                let next = match ids.get(&set) {
                    Some(&i) => i,
                    None => {
                        let i = sets.len() as u32;
                        ids.insert(set.clone(), i);
                        sets.push(set);
                        i
                    }
                };
                if sym % 2 == 0 {
                    st.on_term.push((sym / 2, base + next));
                } else {
                    st.on_rule.push((sym / 2, base + next));
                }
            }
            out.push(st);
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_compiles() {
        let g = compile(
            "# a comment\nlist ::= item ( ',' item )* | ()\nitem ::= 'A' IDENT?\n    | name_keyword\nname_keyword ::= 'B' | 'C'\n",
        )
        .unwrap();
        assert_eq!(g.rule_names, ["list", "item", "name_keyword"]);
        assert_eq!(g.nullable, [true, false, false]);
        assert_eq!(g.keywords.len(), 2, "only B and C are lexer keywords");
        assert!(g.keywords.contains_key("b") && !g.keywords.contains_key("a"));
        assert!(g.punct.contains_key(&',') && g.classes.contains_key("IDENT"));
        let s = &g.states[g.rule_start[0] as usize];
        assert!(s.accept && s.on_rule.len() == 1);
    }

    #[test]
    fn refuses_bad_text() {
        assert!(compile("a ::= ( b\nb ::= 'X'").is_err());
        assert!(compile("a ::= c").is_err());
        assert!(compile("a ::= 'ab'").is_err());
        assert!(compile("  | 'X'").is_err());
    }
}
