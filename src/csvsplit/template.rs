//! Shard file names: `-o shards/orders-{n:04}.csv.gz` expands `{n}` to the 0-based shard
//! number, zero-padded to the given width. A template is checked once, up front, so a typo
//! fails before any input is read.

use crate::error::{Error, Result};
use std::path::PathBuf;

/// A parsed `--output` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
    gzip: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    /// The shard number, zero-padded to this many digits.
    N(usize),
}

impl Template {
    /// Parses `s`: literal text with one or more `{n}` or `{n:0W}` (`{n:W}` pads with zeros
    /// too); `{{` and `}}` stand for literal braces.
    pub fn parse(s: &str) -> Result<Template> {
        let bad = |why: &str| {
            Error::Usage(format!(
                "invalid --output template '{s}': {why} (use e.g. part-{{n:04}}.csv)"
            ))
        };
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let mut inner = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => inner.push(c),
                            None => return Err(bad("unclosed '{'")),
                        }
                    }
                    let width = match inner.as_str() {
                        "n" => 0,
                        _ => match inner.strip_prefix("n:") {
                            Some(w) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => w
                                .parse::<usize>()
                                .ok()
                                .filter(|&w| w <= 20)
                                .ok_or_else(|| bad("width must be at most 20"))?,
                            _ => return Err(bad(&format!("unknown field '{{{inner}}}'"))),
                        },
                    };
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::N(width));
                }
                '}' => return Err(bad("unmatched '}'")),
                c => lit.push(c),
            }
        }
        let gzip = lit.ends_with(".gz");
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        if !parts.iter().any(|p| matches!(p, Part::N(_))) {
            return Err(bad(
                "it must contain {n} so that every shard gets its own name",
            ));
        }
        Ok(Template { parts, gzip })
    }

    /// Whether shards are gzip-compressed (the template ends in `.gz`).
    pub fn gzip(&self) -> bool {
        self.gzip
    }

    /// The file name of shard `n`.
    pub fn render(&self, n: usize) -> PathBuf {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => s.push_str(l),
                Part::N(w) => s.push_str(&format!("{n:0w$}", w = *w)),
            }
        }
        PathBuf::from(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders() {
        let t = Template::parse("shards/orders-{n:04}.csv.gz").unwrap();
        assert!(t.gzip());
        assert_eq!(t.render(7), PathBuf::from("shards/orders-0007.csv.gz"));
        assert_eq!(t.render(12345), PathBuf::from("shards/orders-12345.csv.gz"));
        let t = Template::parse("p{n}-{{x}}.csv").unwrap();
        assert!(!t.gzip());
        assert_eq!(t.render(3), PathBuf::from("p3-{x}.csv"));
        assert_eq!(
            Template::parse("a{n:3}.csv").unwrap().render(5),
            PathBuf::from("a005.csv")
        );
        for bad in [
            "x.csv", "x{m}.csv", "x{n", "x}{n}", "x{n:}", "x{n:99}", "{n:-1}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
    }
}
