//! Shard file names: `-o shards/orders-{n:04}.csv.gz` expands `{n}` to the 0-based shard
//! number, zero-padded to the given width. A template is checked once, up front, so a typo
//! fails before any input is read.

use crate::io::error::{Error, Result};
use std::path::{Path, PathBuf};

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

    /// The template's directory and the parts of the file name; `None` when `{n}` is in a
    /// directory part.
    fn name_pattern(&self) -> Option<(PathBuf, Vec<Part>)> {
        let shard0 = self.render(0);
        let dir = match shard0.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut name_parts = Vec::new();
        let mut rest = self.parts.iter().rev();
        for p in rest.by_ref() {
            match p {
                Part::Lit(l) if l.contains('/') => {
                    let tail = &l[l.rfind('/').map_or(0, |i| i + 1)..];
                    if !tail.is_empty() {
                        name_parts.push(Part::Lit(tail.to_string()));
                    }
                    break;
                }
                p => name_parts.push(p.clone()),
            }
        }
        if rest.any(|p| matches!(p, Part::N(_))) {
            return None;
        }
        name_parts.reverse();
        Some((dir, name_parts))
    }

    /// The shard number whose name `path` is, if the template renders it for some number.
    pub fn number_of(&self, path: &Path) -> Option<usize> {
        let (dir, parts) = self.name_pattern()?;
        let parent = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let canon = |p: &Path| std::fs::canonicalize(p).or_else(|_| std::path::absolute(p));
        if canon(parent).ok()? != canon(&dir).ok()? {
            return None;
        }
        match_name(&parts, path.file_name()?.to_str()?, None)
    }

    /// The files in the template's directory whose names it could render, with their shard
    /// numbers, sorted (the files a run of any size might write). Empty when `{n}` is in a
    /// directory part of the template, whose directories are not searched.
    pub fn existing(&self) -> Result<Vec<(usize, PathBuf)>> {
        let Some((dir, parts)) = self.name_pattern() else {
            return Ok(Vec::new());
        };
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&dir, e)),
        };
        let mut found = Vec::new();
        for e in entries {
            let e = e.map_err(|e| Error::io(&dir, e))?;
            if let Some(name) = e.file_name().to_str()
                && let Some(n) = match_name(&parts, name, None)
            {
                found.push((n, self.render(n)));
            }
        }
        found.sort();
        Ok(found)
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

/// The shard number `name` was rendered with by `parts`, if any (`n`: the number an earlier
/// `{n}` matched, which every later one must repeat).
fn match_name(parts: &[Part], name: &str, n: Option<usize>) -> Option<usize> {
    let Some((first, rest)) = parts.split_first() else {
        return if name.is_empty() { n } else { None };
    };
    match first {
        Part::Lit(l) => match_name(rest, name.strip_prefix(l.as_str())?, n),
        Part::N(w) => {
            let digits = name.bytes().take_while(u8::is_ascii_digit).count();
            // Try every digit run length: `{n}1.csv` is ambiguous by design of the user.
            (1..=digits).rev().find_map(|len| {
                let d = &name[..len];
                let v: usize = d.parse().ok()?;
                if format!("{v:0w$}", w = *w) != d || n.is_some_and(|m| m != v) {
                    return None;
                }
                match_name(rest, &name[len..], Some(v))
            })
        }
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
        let dir = tempfile::tempdir().unwrap();
        let t = Template::parse(&format!("{}/p-{{n:02}}.csv", dir.path().display())).unwrap();
        for f in [
            "p-00.csv",
            "p-07.csv",
            "p-123.csv",
            "p-7.csv",
            "p-00.csv.x",
            "q-01.csv",
        ] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let got: Vec<usize> = t.existing().unwrap().iter().map(|(n, _)| *n).collect();
        assert_eq!(got, vec![0, 7, 123]);
        assert_eq!(t.number_of(&dir.path().join("p-05.csv")), Some(5));
        assert_eq!(t.number_of(&dir.path().join("p-5.csv")), None);
        assert_eq!(t.number_of(Path::new("p-05.csv")), None);
        for bad in [
            "x.csv", "x{m}.csv", "x{n", "x}{n}", "x{n:}", "x{n:99}", "{n:-1}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
    }
}
