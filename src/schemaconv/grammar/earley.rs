//! An Earley recognizer over the rules' automata (`bnf.rs`): an item is a state of a rule's
//! automaton and the token where the rule began. Empty rules are handled as Aycock and
//! Horspool do ("Practical Earley Parsing", 2002): when an item waits on a nullable rule, it
//! also moves past it at once, so a rule completed where it began never has to be looked
//! back for. Only the answer is kept, not the parse: per token, the items waiting on each
//! rule (for later completions), nothing else.

use super::bnf::Compiled;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Where a statement stopped being in the grammar: the index of the token the grammar could
/// not take (the number of tokens when the statement ended too early), and the terminals
/// it could have taken there (see `stop`).
#[derive(Debug)]
pub struct Stop {
    /// Token index.
    pub at: usize,
    /// Terminal indexes, sorted.
    pub expected: Vec<u32>,
}

/// Items are hashed a great many times; they are two small integers, which need no
/// protection against chosen collisions.
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type ItemSet = HashSet<u64, BuildHasherDefault<Mix>>;

struct Set {
    items: Vec<(u32, u32)>,
    seen: ItemSet,
}

impl Set {
    fn new() -> Set {
        Set {
            items: Vec::new(),
            seen: ItemSet::default(),
        }
    }

    fn add(&mut self, state: u32, origin: u32) {
        if self.seen.insert((state as u64) << 32 | origin as u64) {
            self.items.push((state, origin));
        }
    }
}

/// Whether the terminals `toks` (`None`: a token no rule has) are a sentence of `g`'s start
/// rule.
pub fn recognize(g: &Compiled, toks: &[Option<u32>]) -> Result<(), Stop> {
    // waiting[k]: (rule, next state, origin) of the items of set k that wait on a rule,
    // sorted by rule; what a rule completed later with origin k moves on.
    let mut waiting: Vec<Vec<(u32, u32, u32)>> = Vec::with_capacity(toks.len() + 1);
    // predicted[r] == k + 1: rule r has been predicted in set k.
    let mut predicted = vec![0u32; g.rule_names.len()];
    let mut cur = Set::new();
    cur.add(g.rule_start[0], 0);
    for k in 0..=toks.len() {
        let kk = k as u32;
        let mut wait = Vec::new();
        let mut i = 0;
        while i < cur.items.len() {
            let (s, o) = cur.items[i];
            i += 1;
            let st = &g.states[s as usize];
            for &(r, t) in &st.on_rule {
                wait.push((r, t, o));
                if predicted[r as usize] != kk + 1 {
                    predicted[r as usize] = kk + 1;
                    cur.add(g.rule_start[r as usize], kk);
                }
                if g.nullable[r as usize] {
                    cur.add(t, o);
                }
            }
            // A rule that began here is nullable and already moved past (above).
            if st.accept && o < kk {
                let w = &waiting[o as usize];
                let from = w.partition_point(|&(r, _, _)| r < st.rule);
                for &(_, t, o2) in w[from..].iter().take_while(|&&(r, _, _)| r == st.rule) {
                    cur.add(t, o2);
                }
            }
        }
        if k == toks.len() {
            let start = 0;
            if cur.items.iter().any(|&(s, o)| {
                o == 0 && g.states[s as usize].accept && g.states[s as usize].rule == start
            }) {
                return Ok(());
            }
            return Err(stop(g, &cur, k));
        }
        wait.sort_unstable();
        waiting.push(wait);
        let mut next = Set::new();
        if let Some(t) = toks[k] {
            for &(s, o) in &cur.items {
                let on = &g.states[s as usize].on_term;
                if let Ok(x) = on.binary_search_by_key(&t, |&(term, _)| term) {
                    next.add(on[x].1, o);
                }
            }
        }
        if next.items.is_empty() {
            return Err(stop(g, &cur, k));
        }
        cur = next;
    }
    unreachable!("the loop returns at the last set")
}

/// The terminals the items of `set` could take. Those of the keyword lists (hundreds of
/// words allowed as names) are left out when the other items can take anything.
fn stop(g: &Compiled, set: &Set, at: usize) -> Stop {
    let terms = |lists: bool| {
        let mut out: Vec<u32> = set
            .items
            .iter()
            .filter(|&&(s, _)| lists || !g.keyword_list[g.states[s as usize].rule as usize])
            .flat_map(|&(s, _)| g.states[s as usize].on_term.iter().map(|&(t, _)| t))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    let mut expected = terms(false);
    if expected.is_empty() {
        expected = terms(true);
    }
    Stop { at, expected }
}

#[cfg(test)]
mod tests {
    use super::super::bnf::compile;
    use super::*;

    fn run(g: &Compiled, words: &str) -> Result<(), Stop> {
        let toks: Vec<Option<u32>> = words
            .split_whitespace()
            .map(|w| {
                g.punct
                    .get(&w.chars().next().unwrap())
                    .copied()
                    .or_else(|| g.classes.get(w).copied())
            })
            .collect();
        recognize(g, &toks)
    }

    #[test]
    fn nullable_left_and_right_recursion() {
        // Ambiguous, left- and right-recursive, with empty rules in the middle: the cases
        // that trouble Earley's original algorithm.
        let g = compile(
            "s ::= e\ne ::= e o e | n | '(' e ')' | a e b\no ::= '+' | '*'\nn ::= X | ()\na ::= ()\nb ::= a a\n",
        )
        .unwrap();
        for ok in [
            "X",
            "X + X * X",
            "( X ) + ( ( X ) )",
            "",
            "+",
            "( ) * ( + )",
        ] {
            assert!(run(&g, ok).is_ok(), "{ok}");
        }
        let e = run(&g, "X X").unwrap_err();
        assert_eq!(e.at, 1);
        let e = run(&g, "( X").unwrap_err();
        assert_eq!(e.at, 2);
        let mut names: Vec<String> = e
            .expected
            .iter()
            .map(|&t| g.terms[t as usize].to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["')'", "'*'", "'+'"]);
    }

    /// Every word of up to 8 symbols over `( ) x +`, against independent checks of two
    /// languages: balanced parentheses around `x (+ x)*` sums, through nullable, left- and
    /// right-recursive and repeated rules.
    #[test]
    fn exhaustive_against_an_oracle() {
        let g = compile(
            "s ::= e\ne ::= e '+' e | t\nt ::= a X b | '(' e ')' | a t\na ::= () | a a\nb ::= ( '(' ')' )*\n",
        )
        .unwrap();
        // Oracle: s is a sum of terms; a term is X followed by balanced `()` pairs (b), or a
        // parenthesized sum.
        fn sum(w: &[&str], i: usize) -> Vec<usize> {
            // All ends of a sum starting at i.
            let mut ends = Vec::new();
            for e in term(w, i) {
                ends.push(e);
                if w.get(e) == Some(&"+") {
                    ends.extend(sum(w, e + 1));
                }
            }
            ends
        }
        fn term(w: &[&str], i: usize) -> Vec<usize> {
            let mut ends = Vec::new();
            match w.get(i) {
                Some(&"X") => {
                    let mut e = i + 1;
                    ends.push(e);
                    while w.get(e) == Some(&"(") && w.get(e + 1) == Some(&")") {
                        e += 2;
                        ends.push(e);
                    }
                }
                Some(&"(") => {
                    for e in sum(w, i + 1) {
                        if w.get(e) == Some(&")") {
                            ends.push(e + 1);
                        }
                    }
                }
                _ => {}
            }
            ends
        }
        let alphabet = ["(", ")", "X", "+"];
        let mut words: Vec<Vec<&str>> = vec![vec![]];
        let mut checked = 0;
        for _ in 0..8 {
            let mut longer = Vec::new();
            for w in &words {
                for a in alphabet {
                    let mut v = w.clone();
                    v.push(a);
                    longer.push(v);
                }
            }
            for w in &longer {
                let want = sum(w, 0).contains(&w.len());
                let got = run(&g, &w.join(" ")).is_ok();
                assert_eq!(got, want, "{}", w.join(" "));
                checked += 1;
            }
            words = longer;
        }
        assert_eq!(checked, (1..=8).map(|n| 4usize.pow(n)).sum::<usize>());
    }

    #[test]
    fn repetition_from_the_automata() {
        let g = compile("s ::= X ( ',' X )* Y? | '(' s ')'\n").unwrap();
        assert!(run(&g, "X , X , X Y").is_ok());
        assert!(run(&g, "( ( X ) )").is_ok());
        assert_eq!(run(&g, "X , , X").unwrap_err().at, 2);
        assert_eq!(run(&g, "X Y Y").unwrap_err().at, 2);
    }
}
