//! The layering of `src/` kept true (issue 23, ARCHITECTURE.md "Layers"): every module of the
//! library belongs to one layer, and no module imports one of a higher layer; the five tools
//! import none of each other; and no two sibling modules (top-level ones, or the files of one
//! directory) import each other, directly or round a ring. Read from the source text, so it
//! runs without building anything: `crate::`, `super::` and `self::` paths outside comments
//! and test modules are the imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, as the directories (and top-level modules) of `src/`: 1 plumbing (`io/`),
/// 2 CSV mechanics (`csv/`), 3 PostgreSQL knowledge (`pg/`), 4 keys, manifests and target
/// schemas, 5 the tools (`tools/`). A module may import modules of its own layer or lower.
/// A new top-level module or directory must be placed here.
const LAYERS: &[(&str, u32)] = &[
    ("io", 1),
    ("csv", 2),
    ("pg", 3),
    ("keys", 4),
    ("manifest", 4),
    ("schemaconv", 4),
    ("tools", 5),
];

/// Within the plumbing the units order `error <- signals <- stream <- {input, output,
/// progress} <- cli`: a unit may import units of its own rank or lower. A new module in
/// `src/io/` must be placed here.
const IO_RANKS: &[(&str, u32)] = &[
    ("error", 10),
    ("names", 10),
    ("signals", 11),
    ("stream", 12),
    ("gzblocks", 13),
    ("input", 13),
    ("output", 13),
    ("progress", 13),
    ("cli", 14),
];

type ModPath = Vec<String>;

/// The library's source files (not `src/bin`, separate crates) by module path.
fn modules(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<ModPath, PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                if prefix.is_empty() && name == "bin" {
                    continue;
                }
                let mut sub = prefix.to_vec();
                sub.push(name);
                walk(&p, &sub, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut m = prefix.to_vec();
                if stem != "mod" && !(prefix.is_empty() && stem == "lib") {
                    m.push(stem.to_string());
                }
                out.insert(m, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    out
}

/// The text that counts: without `//` comments (doc links are not imports) and without the
/// test module at the end of a file.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut end = lines.len();
    for (i, l) in lines.iter().enumerate() {
        if l.trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|n| n.trim_start().starts_with("mod ") && n.trim_end().ends_with('{'))
        {
            end = i;
            break;
        }
    }
    lines[..end]
        .iter()
        .map(|l| l.find("//").map_or(*l, |k| &l[..k]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(b: &[u8], mut i: usize) -> (String, usize) {
    let s = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    (String::from_utf8_lossy(&b[s..i]).into_owned(), i)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The paths that start at `b[i]` (after a `crate::`/`super::`/`self::`): `a::b`, or a group
/// `{a, b::{c, d}}` read as several. Returns them and where reading stopped.
fn paths_at(b: &[u8], i: usize) -> (Vec<Vec<String>>, usize) {
    let mut segs = Vec::new();
    let mut i = skip_ws(b, i);
    loop {
        if b.get(i) == Some(&b'{') {
            let mut out = Vec::new();
            i += 1;
            loop {
                i = skip_ws(b, i);
                match b.get(i) {
                    None => return (out, i),
                    Some(b'}') => return (out, i + 1),
                    Some(b',') => i += 1,
                    _ => {
                        let (sub, j) = paths_at(b, i);
                        out.extend(sub.into_iter().map(|s| {
                            let mut p = segs.clone();
                            p.extend(s.into_iter().filter(|x| x != "self"));
                            p
                        }));
                        if j == i {
                            i += 1;
                        } else {
                            i = j;
                        }
                    }
                }
            }
        }
        let (id, j) = ident_at(b, i);
        if id.is_empty() {
            return (vec![segs], i);
        }
        segs.push(id);
        i = j;
        if b[i..].starts_with(b"::") {
            i = skip_ws(b, i + 2);
        } else {
            return (vec![segs], i);
        }
    }
}

/// The modules `m` (in file `text`) refers to, resolved against the known modules.
fn references(m: &ModPath, text: &str, known: &BTreeSet<ModPath>) -> BTreeSet<ModPath> {
    let code = code(text);
    let b = code.as_bytes();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let (base, len): (Option<ModPath>, usize) = if !word_start {
            (None, 0)
        } else if b[i..].starts_with(b"crate::") {
            (Some(Vec::new()), 7)
        } else if b[i..].starts_with(b"self::") {
            (Some(m.clone()), 6)
        } else if b[i..].starts_with(b"super::") {
            let mut base = m.clone();
            let mut j = i;
            while b[j..].starts_with(b"super::") {
                base.pop();
                j += 7;
            }
            (Some(base), j - i)
        } else {
            (None, 0)
        };
        let Some(base) = base else {
            i += 1;
            continue;
        };
        let (paths, end) = paths_at(b, i + len);
        for p in paths {
            let mut full = base.clone();
            full.extend(p);
            // The longest prefix that is a module: `crate::io::output::Sink` is `output`.
            while !full.is_empty() && !known.contains(&full) {
                full.pop();
            }
            out.insert(full);
        }
        i = end.max(i + len);
    }
    out
}

/// Every import between two different modules, as (from, to) with both the sibling modules
/// under their closest common parent: `csvcheck::merge` importing `csvcheck::report::X` is
/// (`csvcheck::merge`, `csvcheck::report`); `output` importing `cli::f` is (`output`, `cli`).
/// A module importing its parent or its own child is part of it, not an edge.
fn edges(src: &Path) -> BTreeMap<(ModPath, ModPath), PathBuf> {
    let mods = modules(src);
    let known: BTreeSet<ModPath> = mods.keys().cloned().collect();
    let mut out = BTreeMap::new();
    for (m, file) in &mods {
        let text = std::fs::read_to_string(file).unwrap();
        for r in references(m, &text, &known) {
            let k = m.iter().zip(&r).take_while(|(a, b)| a == b).count();
            if k == m.len() || k == r.len() {
                continue;
            }
            out.entry((m[..=k].to_vec(), r[..=k].to_vec()))
                .or_insert_with(|| file.clone());
        }
    }
    out
}

fn show(m: &ModPath) -> String {
    m.join("::")
}

/// The import edges from the lower layers upward (within the plumbing too, and between
/// tools), as messages.
pub fn upward(src: &Path) -> Vec<String> {
    let layer = |m: &ModPath| LAYERS.iter().find(|(n, _)| *n == m[0]).map(|r| r.1);
    let io_rank = |m: &ModPath| IO_RANKS.iter().find(|(n, _)| *n == m[1]).map(|r| r.1);
    let mut bad = Vec::new();
    for m in modules(src).keys() {
        let unplaced = match m.len() {
            1 => layer(m).is_none(),
            2 if m[0] == "io" => io_rank(m).is_none(),
            _ => false,
        };
        if unplaced {
            bad.push(format!(
                "src/{}: a module in no layer: add it to LAYERS or IO_RANKS in tests/layers.rs \
                 and to ARCHITECTURE.md's layer table",
                m.join("/")
            ));
        }
    }
    for ((from, to), file) in edges(src) {
        let (f, t) = match from.len() {
            1 => (layer(&from), layer(&to)),
            2 if from[0] == "io" => (io_rank(&from), io_rank(&to)),
            2 if from[0] == "tools" => (Some(5), Some(6)),
            _ => continue,
        };
        let (Some(f), Some(t)) = (f, t) else {
            continue;
        };
        if t > f {
            bad.push(format!(
                "{}: {} ({f}) imports {} ({t}): a lower layer must not import a higher one, \
                 nor a tool another tool",
                file.display(),
                show(&from),
                show(&to)
            ));
        }
    }
    bad
}

/// The import cycles among sibling modules (strongly connected sets of two or more).
pub fn cycles(src: &Path) -> Vec<String> {
    let e = edges(src);
    let mut adj: BTreeMap<&ModPath, Vec<&ModPath>> = BTreeMap::new();
    for (a, b) in e.keys() {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default();
    }
    // Reachability by depth-first search from each node (the graphs are small).
    let reach = |s: &ModPath| -> BTreeSet<ModPath> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![s];
        while let Some(n) = stack.pop() {
            for &x in adj.get(n).into_iter().flatten() {
                if seen.insert(x.clone()) {
                    stack.push(x);
                }
            }
        }
        seen
    };
    let all: BTreeMap<ModPath, BTreeSet<ModPath>> =
        adj.keys().map(|&n| (n.clone(), reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for (n, r) in &all {
        if done.contains(n) || !r.contains(n) {
            continue;
        }
        let ring: BTreeSet<&ModPath> = r.iter().filter(|x| all[*x].contains(n)).collect();
        let list: Vec<String> = ring.iter().map(|x| show(x)).collect();
        let imports: Vec<String> = e
            .keys()
            .filter(|(a, b)| ring.contains(a) && ring.contains(b))
            .map(|(a, b)| format!("{} -> {}", show(a), show(b)))
            .collect();
        out.push(format!(
            "import cycle among {}: {}",
            list.join(", "),
            imports.join(", ")
        ));
        done.extend(ring.into_iter().cloned());
    }
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_upward_imports() {
    let bad = upward(&src());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_import_cycles() {
    let bad = cycles(&src());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The checker itself finds what it is for: an upward import and a ring, in a made-up tree.
#[test]
fn the_check_finds_an_upward_import_and_a_ring() {
    let dir = std::env::temp_dir().join(format!("dumpshard-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let put = |p: &str, s: &str| {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    };
    put("lib.rs", "pub mod io;\npub mod pg;\npub mod tools;\n");
    put("io/mod.rs", "pub mod output;\npub mod cli;\n");
    put(
        "io/output.rs",
        "//! [`crate::io::cli`] in a comment is no import.\nuse crate::io::{error, cli::register_temp};\n",
    );
    put("io/cli.rs", "fn f() { crate::io::output::mark(); }\n");
    put("pg/mod.rs", "use crate::tools::csvcheck::X;\n");
    put("tools/mod.rs", "pub mod csvcheck;\npub mod csvload;\n");
    put("tools/csvload.rs", "use super::csvcheck::Y;\n");
    put("tools/csvcheck/mod.rs", "mod a;\nmod b;\n");
    put(
        "tools/csvcheck/a.rs",
        "use super::b::X;\n#[cfg(test)]\nmod tests {\n    use crate::tools::csvload;\n}\n",
    );
    put("tools/csvcheck/b.rs", "use super::{a::{self, Y}, c};\n");
    let up = upward(&dir);
    let cyc = cycles(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(up.len(), 3, "{up:?}");
    assert!(
        up[0].contains("io::output (13) imports io::cli (14)"),
        "{up:?}"
    );
    assert!(up[1].contains("pg (3) imports tools (5)"), "{up:?}");
    assert!(
        up[2].contains("tools::csvload (5) imports tools::csvcheck"),
        "{up:?}"
    );
    assert_eq!(cyc.len(), 2, "{cyc:?}");
    assert!(cyc[0].contains("among io::cli, io::output"), "{cyc:?}");
    assert!(
        cyc[1].contains(
            "tools::csvcheck::a -> tools::csvcheck::b, tools::csvcheck::b -> tools::csvcheck::a"
        ),
        "{cyc:?}"
    );
}
