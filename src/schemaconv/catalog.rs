//! The built-in names of each PostgreSQL release a target is built on (YSQL is PostgreSQL 11
//! up to YugabyteDB 2024.2 and PostgreSQL 15 from 2.25 on): functions, types, settings and
//! operator classes, read off real servers (11.22, 15, 17, 18) into `catalog/pg*.txt`.
//!
//! The converter asks two questions of them: does the release's base have this setting
//! (pg_dump 17 writes `SET transaction_timeout`, which PostgreSQL 11 and 15 refuse), and is
//! this name one that only a *later* release has (`json_value()`, `jsonpath`,
//! `anycompatible`, `float8_bloom_ops`): a statement that uses such a name is refused by the
//! base. Only names of later releases count, so a name the lists do not know (a column alias,
//! a function the dump creates) is never taken for one. tests/referee_yb.rs compares each
//! file with the running server's catalog.

use std::collections::HashSet;
use std::sync::OnceLock;

/// The releases whose catalogs are here, oldest first, with their files: PostgreSQL 11's is
/// complete, each later one lists the names added (`+`) and removed (`-`) since the one before.
const FILES: [(u32, &str); 4] = [
    (11, include_str!("catalog/pg11.txt")),
    (15, include_str!("catalog/pg15.txt")),
    (17, include_str!("catalog/pg17.txt")),
    (18, include_str!("catalog/pg18.txt")),
];

/// The names of one release.
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    /// Function names (`pg_proc.proname`), any signature.
    pub functions: HashSet<String>,
    /// Type names (`pg_type.typname`, no array or row types).
    pub types: HashSet<String>,
    /// Setting names (`pg_settings.name`).
    pub settings: HashSet<String>,
    /// Operator class names (`pg_opclass.opcname`).
    pub opclasses: HashSet<String>,
}

impl Catalog {
    fn section(&mut self, name: &str) -> Option<&mut HashSet<String>> {
        match name {
            "functions" => Some(&mut self.functions),
            "types" => Some(&mut self.types),
            "settings" => Some(&mut self.settings),
            "opclasses" => Some(&mut self.opclasses),
            _ => None,
        }
    }

    /// Every set by name, for comparing with a server.
    pub fn sections(&self) -> [(&'static str, &HashSet<String>); 4] {
        [
            ("functions", &self.functions),
            ("types", &self.types),
            ("settings", &self.settings),
            ("opclasses", &self.opclasses),
        ]
    }
}

/// Every release's catalog, built once from the files.
fn all() -> &'static Vec<(u32, Catalog)> {
    static ALL: OnceLock<Vec<(u32, Catalog)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut out: Vec<(u32, Catalog)> = Vec::new();
        for (major, text) in FILES {
            let mut c = out.last().map(|(_, c)| c.clone()).unwrap_or_default();
            let mut sec: Option<String> = None;
            for line in text.lines() {
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    sec = Some(name.to_string());
                    continue;
                }
                let Some(set) = sec.as_deref().and_then(|s| c.section(s)) else {
                    continue;
                };
                match (line.strip_prefix('+'), line.strip_prefix('-')) {
                    (Some(n), _) => {
                        set.insert(n.to_string());
                    }
                    (_, Some(n)) if major != 11 => {
                        set.remove(n);
                    }
                    _ => {
                        set.insert(line.to_string());
                    }
                }
            }
            out.push((major, c));
        }
        out
    })
}

/// The catalog of PostgreSQL `major`, or of the newest release here before it (a YSQL base is
/// 11 or 15, both here).
pub fn of(major: u32) -> &'static Catalog {
    let all = all();
    all.iter()
        .rev()
        .find(|(m, _)| *m <= major)
        .map_or(&all[0].1, |(_, c)| c)
}

/// The names that some release after `major` has and `major` does not: a statement using one
/// was written for a newer PostgreSQL than `major`.
pub fn newer_than(major: u32) -> &'static Catalog {
    static CACHE: OnceLock<Vec<(u32, Catalog)>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| {
        FILES
            .iter()
            .map(|&(base, _)| {
                let b = of(base);
                let mut n = Catalog::default();
                for (m, c) in all() {
                    if *m <= base {
                        continue;
                    }
                    n.functions
                        .extend(c.functions.difference(&b.functions).cloned());
                    n.types.extend(c.types.difference(&b.types).cloned());
                    n.settings
                        .extend(c.settings.difference(&b.settings).cloned());
                    n.opclasses
                        .extend(c.opclasses.difference(&b.opclasses).cloned());
                }
                (base, n)
            })
            .collect()
    });
    cache
        .iter()
        .rev()
        .find(|(m, _)| *m <= major)
        .map_or(&cache[0].1, |(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_and_later_names() {
        assert!(of(11).settings.contains("statement_timeout"));
        assert!(!of(11).settings.contains("transaction_timeout"));
        assert!(!of(15).settings.contains("transaction_timeout"));
        assert!(of(17).settings.contains("transaction_timeout"));
        assert!(newer_than(11).types.contains("jsonpath"));
        assert!(newer_than(11).types.contains("anycompatible"));
        assert!(!newer_than(15).types.contains("jsonpath"));
        assert!(newer_than(11).opclasses.contains("float8_bloom_ops"));
        assert!(newer_than(15).functions.contains("any_value"));
        assert!(!newer_than(11).functions.contains("lower"));
        // Removed since 11 (abstime) is not a newer name.
        assert!(!newer_than(11).types.contains("abstime"));
    }
}
