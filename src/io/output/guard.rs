//! The files of one run checked for overlaps before anything is written ([`Guard`]): the
//! toolkit's one overwrite rule, and no output that replaces an input or another output.

use crate::io::error::{Error, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// One named file of a run, for [`Guard`].
#[derive(Debug, Clone)]
struct Entry {
    /// The option that names it (`-o`, `--dups-out`, `FILE`...).
    option: String,
    /// The path as given.
    path: PathBuf,
    id: Ident,
    output: bool,
    /// An output already created by this run (a second creation is a second writer).
    claimed: bool,
}

/// What makes two paths the same file: the inode of an existing file, and the canonical path
/// (for a file not created yet: its canonical directory plus its name).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ident {
    inode: Option<(u64, u64)>,
    path: PathBuf,
}

impl Ident {
    /// `None` for what cannot be overwritten by renaming: stdin/stdout (`-`), devices, FIFOs,
    /// directories.
    fn of(p: &Path) -> Option<Ident> {
        use std::os::unix::fs::MetadataExt;
        if crate::io::stream::is_stdin(p) {
            return None;
        }
        match fs::metadata(p) {
            Ok(m) if !m.is_file() => None,
            Ok(m) => Some(Ident {
                inode: Some((m.dev(), m.ino())),
                path: fs::canonicalize(p).unwrap_or_else(|_| absolute(p)),
            }),
            Err(_) => Some(Ident {
                inode: None,
                path: absolute(p),
            }),
        }
    }

    fn same(&self, o: &Ident) -> bool {
        self.path == o.path || (self.inode.is_some() && self.inode == o.inode)
    }
}

/// The canonical form of a path that may not exist yet: its longest existing ancestor
/// canonicalized, plus the remaining components (`.` dropped, `..` applied).
fn absolute(p: &Path) -> PathBuf {
    use std::path::Component;
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut base = p.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = fs::canonicalize(base) {
            let mut out = c;
            for comp in rest.iter().rev() {
                match comp {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c.as_os_str()),
                }
            }
            return out;
        }
        match (base.parent(), base.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                base = parent;
            }
            _ => return p.clone(),
        }
    }
}

/// The files of one run, checked for overlaps before anything is written: an output that is
/// also an input (or another output) would destroy it when renamed into place.
///
/// Built with [`Guard::input`]/[`Guard::output`] and made active with [`Guard::install`],
/// after which every [`AtomicFile::create`](super::AtomicFile::create) of the process checks
/// its destination against it: files a tool names itself (pgdump2csv's table files, csvsplit's
/// shards) are refused when they would replace an input or an output created earlier in the
/// run.
///
/// The one overwrite rule of the toolkit (dumpshard(7), FILES): an output file that exists
/// before the run is refused (exit 2, a usage error naming its option and the remedy) unless
/// [`Guard::force`]; declared outputs are checked at [`Guard::install`], before anything is
/// written, files the tool names itself when created. Devices, FIFOs and `-` are not files
/// anyone could lose and are written in place.
#[derive(Debug, Default)]
pub struct Guard {
    entries: Vec<Entry>,
    /// What the files created under names the tool chose are, for messages.
    created: String,
    /// Output directories, with their options.
    dirs: Vec<(String, PathBuf)>,
    /// `--force`: an existing file may be replaced. Without it, the toolkit's one overwrite
    /// rule holds: an output file that exists before the run (and so was not created by it)
    /// is refused.
    force: bool,
    /// Directories whose files with one of these name endings the run writes, with their
    /// options: refused at install when any exists (unless `force`).
    dir_files: Vec<(String, PathBuf, Vec<String>)>,
}

fn guard_state() -> &'static Mutex<Option<Guard>> {
    static G: OnceLock<Mutex<Option<Guard>>> = OnceLock::new();
    G.get_or_init(|| Mutex::new(None))
}

impl Guard {
    /// An empty set; `created` says in messages what the files are that the tool names itself
    /// (e.g. "a shard of -o").
    pub fn new(created: &str) -> Guard {
        Guard {
            entries: Vec::new(),
            created: created.to_string(),
            dirs: Vec::new(),
            force: false,
            dir_files: Vec::new(),
        }
    }

    /// `--force`: existing files may be replaced by this run's outputs (see [`Guard`]).
    pub fn force(mut self, force: bool) -> Guard {
        self.force = force;
        self
    }

    fn add(mut self, option: &str, path: Option<&Path>, output: bool) -> Guard {
        if let Some(p) = path
            && let Some(id) = Ident::of(p)
        {
            self.entries.push(Entry {
                option: option.to_string(),
                path: p.to_path_buf(),
                id,
                output,
                claimed: false,
            });
        }
        self
    }

    /// An input named by `option` (`None`, `-`, devices and FIFOs are ignored).
    pub fn input(self, option: &str, path: Option<&Path>) -> Guard {
        self.add(option, path, false)
    }

    /// Several inputs named by `option` (`FILE` arguments).
    pub fn inputs(mut self, option: &str, paths: &[PathBuf]) -> Guard {
        for p in paths {
            self = self.input(option, Some(p));
        }
        self
    }

    /// A directory the tool writes into, named by `option`: refused at [`Guard::install`]
    /// when it exists and is not a directory (`-o /dev/full`, `-o FILE`).
    pub fn output_dir(mut self, option: &str, dir: Option<&Path>) -> Guard {
        if let Some(d) = dir {
            self.dirs.push((option.to_string(), d.to_path_buf()));
        }
        self
    }

    /// Files the tool names itself in `dir` (named by `option`), whose names end in one of
    /// `endings`: refused at [`Guard::install`] when any exists, unless `--force`, so that a
    /// rerun into an earlier run's directory stops before writing anything rather than at
    /// its first table.
    pub fn output_files_in(mut self, option: &str, dir: Option<&Path>, endings: &[&str]) -> Guard {
        if let Some(d) = dir {
            let endings = endings.iter().map(|e| e.to_string()).collect();
            self.dir_files
                .push((option.to_string(), d.to_path_buf(), endings));
        }
        self
    }

    /// An output named by `option` (`None`, `-`, devices and FIFOs are ignored).
    pub fn output(self, option: &str, path: Option<&Path>) -> Guard {
        self.add(option, path, true)
    }

    /// Refuses (usage error, exit 2) any output that is an input or another output, naming
    /// both options; then makes the set active for the rest of the process.
    pub fn install(self) -> Result<()> {
        self.check()?;
        *guard_state().lock().unwrap_or_else(|e| e.into_inner()) = Some(self);
        Ok(())
    }

    /// The checks of [`Guard::install`].
    fn check(&self) -> Result<()> {
        for (option, d) in &self.dirs {
            if fs::metadata(d).is_ok_and(|m| !m.is_dir()) {
                return Err(Error::Usage(format!(
                    "{option} {}: exists and is not a directory",
                    d.display()
                )));
            }
        }
        for (i, a) in self.entries.iter().enumerate() {
            for b in &self.entries[..i] {
                if (a.output || b.output) && a.id.same(&b.id) {
                    let (o, other) = if a.output { (a, b) } else { (b, a) };
                    return Err(overlap(o, &o.path, other));
                }
            }
        }
        if self.force {
            return Ok(());
        }
        if let Some(e) = self
            .entries
            .iter()
            .find(|e| e.output && e.id.inode.is_some())
        {
            return Err(exists(&e.option, &e.path));
        }
        for (option, dir, endings) in &self.dir_files {
            let Ok(rd) = fs::read_dir(dir) else { continue };
            let mut old: Vec<String> = rd
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| endings.iter().any(|x| n.ends_with(x.as_str())))
                .collect();
            if old.is_empty() {
                continue;
            }
            old.sort();
            let more = match old.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            old.truncate(3);
            return Err(Error::Usage(format!(
                "{option} {}: files of an earlier run exist already: {}{more} (remove them, or use --force to replace them)",
                dir.display(),
                old.iter()
                    .map(|n| crate::io::names::Escaped(n).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(())
    }

    /// Checks a file about to be created: it may be a declared output (once), and may not be
    /// an input or an output created before.
    fn check_new(&mut self, dest: &Path) -> Result<()> {
        let Some(id) = Ident::of(dest) else {
            return Ok(());
        };
        let created = Entry {
            option: self.created.clone(),
            path: dest.to_path_buf(),
            id: id.clone(),
            output: true,
            claimed: true,
        };
        let mut own = None;
        for (i, e) in self.entries.iter().enumerate() {
            if !e.id.same(&id) {
                continue;
            }
            if e.output && !e.claimed && e.path == dest && own.is_none() {
                own = Some(i);
            } else if e.output && e.claimed && e.path == dest {
                // A declared output written late (a manifest) whose name a file the tool
                // named itself took first: that file stays, the output is not written.
                return Err(Error::Usage(format!(
                    "{} {} is also {} written earlier in this run: refusing to write it",
                    e.option,
                    dest.display(),
                    self.created
                )));
            } else {
                return Err(overlap(&created, dest, e));
            }
        }
        match own {
            Some(i) => self.entries[i].claimed = true,
            None => {
                // A file the tool names itself (a table file, a shard) that exists already:
                // left by an earlier run or by someone else, and not this run's to replace.
                if !self.force && id.inode.is_some() {
                    return Err(exists(&self.created, dest));
                }
                self.entries.push(created)
            }
        }
        Ok(())
    }
}

/// The one overwrite rule's refusal: `option`'s file `path` exists and `--force` was not given.
pub fn exists(option: &str, path: &Path) -> Error {
    Error::Usage(format!(
        "{option} {}: exists already (remove it, or use --force to replace it)",
        path.display()
    ))
}

fn overlap(out: &Entry, path: &Path, other: &Entry) -> Error {
    let what = if other.output {
        "is the same file as"
    } else {
        "would overwrite"
    };
    Error::Usage(format!(
        "{} {} {what} {} {}: refusing to write it",
        out.option,
        path.display(),
        other.option,
        other.path.display()
    ))
}

/// Checks `dest` against the installed [`Guard`], if any.
pub(super) fn check_dest(dest: &Path) -> Result<()> {
    let mut g = guard_state().lock().unwrap_or_else(|e| e.into_inner());
    match g.as_mut() {
        Some(g) => g.check_new(dest),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_refuses_overlaps_and_second_writers() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("in.csv"), "x").unwrap();
        fs::hard_link(d.join("in.csv"), d.join("link.csv")).unwrap();
        std::os::unix::fs::symlink(d.join("in.csv"), d.join("sym.csv")).unwrap();
        let fresh = |out: &str, other: &Path| {
            Guard::new("a file")
                .input("FILE", Some(&d.join("in.csv")))
                .output(out, Some(other))
        };
        for other in [
            d.join("in.csv"),
            d.join("link.csv"),
            d.join("sym.csv"),
            d.join("sub/../in.csv"),
        ] {
            let err = fresh("-o", &other).check().unwrap_err().to_string();
            assert!(err.contains("-o") && err.contains("FILE"), "{err}");
        }
        fresh("-o", &d.join("out.csv")).check().unwrap();
        let err = Guard::new("")
            .output_dir("-o", Some(&d.join("in.csv")))
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a directory"), "{err}");
        // Two outputs not created yet, named differently.
        let a = Ident::of(&d.join("new/x.csv")).unwrap();
        let b = Ident::of(&d.join("new/./y/../x.csv")).unwrap();
        assert!(a.same(&b));
        // Devices and stdin are not files anyone could destroy by renaming.
        assert!(Ident::of(Path::new("/dev/null")).is_none());
        assert!(Ident::of(Path::new("-")).is_none());
        // A declared output may be created once; a tool-named file may not replace it.
        let out = d.join("o.csv");
        let mut g = Guard::new("a shard").output("-o", Some(&out));
        g.check_new(&out).unwrap();
        let err = g.check_new(&out).unwrap_err().to_string();
        assert!(err.contains("-o") && err.contains("a shard"), "{err}");
        // An existing file that is not an input of this guard: refused by the overwrite
        // rule, allowed with --force.
        let err = g.check_new(&d.join("in.csv")).unwrap_err().to_string();
        assert!(
            err.contains("exists already") && err.contains("--force"),
            "{err}"
        );
        let mut g = Guard::new("a shard").force(true);
        assert!(g.check_new(&d.join("in.csv")).is_ok(), "--force");
        // A declared output that exists: refused at install, before anything is written.
        let err = Guard::new("")
            .output("-o", Some(&d.join("in.csv")))
            .check()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("-o") && err.contains("exists already"),
            "{err}"
        );
        let mut g = Guard::new("a shard").input("FILE", Some(&d.join("in.csv")));
        let err = g.check_new(&d.join("link.csv")).unwrap_err().to_string();
        assert!(err.contains("would overwrite FILE"), "{err}");
    }
}
