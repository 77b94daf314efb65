//! The load statements csvsplit prints for its shards: one CockroachDB `IMPORT INTO ... CSV
//! DATA (...)` (`--import-sql`) or a psql script of `\copy` lines for PostgreSQL and
//! YugabyteDB (`--copy-sql`). Both spell out the CSV contract's options (NULL token, header,
//! compression) so that loading the shards gives back the source table exactly.
//!
//! Names come from a manifest, so they are untrusted: both scripts are written line by line
//! from fixed text and quoted names, and a name, path or NULL token holding CR or LF is
//! refused, since psql's `\copy` and CockroachDB's shell commands (`\!`, `\|`) are read a
//! line at a time and a line break would let the rest run as a command.

use crate::manifest;
use crate::pg::dump::psql::line_safe;
use std::path::Path;

/// What the statements need to know.
#[derive(Debug, Clone)]
pub struct Target<'a> {
    /// Table name, already quoted as SQL needs it.
    pub table: &'a str,
    /// Column names (unquoted), or empty to load all columns in table order.
    pub columns: &'a [String],
    /// The NULL token.
    pub null: &'a str,
    /// Whether the shards are gzip-compressed.
    pub gzip: bool,
}

/// `"name"`, with embedded quotes doubled: always quoting keeps keywords and mixed case safe.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A SQL string literal.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn column_list(cols: &[String]) -> String {
    if cols.is_empty() {
        String::new()
    } else {
        let c: Vec<String> = cols.iter().map(|c| quote_ident(c)).collect();
        format!(" ({})", c.join(", "))
    }
}

/// Refuses, before anything is written, a table whose script cannot be written safely: its
/// schema, name, a column or the NULL token (`table`: from the manifest; `raw`: `--table`
/// as given) holds a CR or LF.
pub fn check_names(
    table: Option<&manifest::Table>,
    raw: Option<&str>,
    null: &str,
) -> Result<(), String> {
    let shown = match (table, raw) {
        (Some(t), _) => format!("{}.{}", quote_ident(&t.schema), quote_ident(&t.name)),
        (None, Some(r)) => r.to_string(),
        (None, None) => String::new(),
    };
    let cols = table.map_or(&[][..], |t| &t.columns[..]);
    let bad = table.is_some_and(|t| !line_safe(&t.schema) || !line_safe(&t.name))
        || raw.is_some_and(|r| !line_safe(r))
        || cols.iter().any(|c| !line_safe(&c.name))
        || !line_safe(null);
    if bad {
        return Err(unsafe_msg(&shown));
    }
    Ok(())
}

fn unsafe_msg(table: &str) -> String {
    format!(
        "table {}: a name, path or the NULL token holds a CR or LF, which cannot be written safely into a line-based psql or SQL shell script; load this table over the protocol (csvload) instead",
        table.escape_debug()
    )
}

fn check_paths(t: &Target, files: &[&Path], url_prefix: &str) -> Result<(), String> {
    let paths_ok = files.iter().all(|f| line_safe(&f.to_string_lossy()));
    if !paths_ok
        || !line_safe(url_prefix)
        || !line_safe(t.table)
        || !line_safe(t.null)
        || t.columns.iter().any(|c| !line_safe(c))
    {
        return Err(unsafe_msg(t.table));
    }
    Ok(())
}

/// The CockroachDB statement. `files` are the shard paths; each URL is `url_prefix/` plus the
/// shard's file name, inserted before the prefix's query string if it has one: cloud storage
/// URLs carry their credentials after the object path (`s3://b/dir?AUTH=implicit` gives
/// `s3://b/dir/0000.csv?AUTH=implicit`). `skip_header`: every shard starts with a header.
/// Every line starts with fixed text (no line can start with a backslash, which `cockroach
/// sql` would run as a client-side command).
pub fn import_into(
    t: &Target,
    url_prefix: &str,
    files: &[&Path],
    skip_header: bool,
) -> Result<String, String> {
    check_paths(t, files, url_prefix)?;
    let (path, query) = match url_prefix.find('?') {
        Some(i) => url_prefix.split_at(i),
        None => (url_prefix, ""),
    };
    let prefix = path.trim_end_matches('/');
    let mut s = format!(
        "IMPORT INTO {}{} CSV DATA (\n",
        t.table,
        column_list(t.columns)
    );
    for (i, f) in files.iter().enumerate() {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sep = if i + 1 < files.len() { "," } else { "" };
        s.push_str(&format!(
            "    {}{sep}\n",
            literal(&format!("{prefix}/{name}{query}"))
        ));
    }
    let mut opts = vec![format!("nullif = {}", literal(t.null))];
    if skip_header {
        opts.push("skip = '1'".into());
    }
    if t.gzip {
        opts.push("decompress = 'gzip'".into());
    }
    s.push_str(&format!(") WITH {};\n", opts.join(", ")));
    Ok(s)
}

/// A psql script: one `\copy` per shard, after `\set ON_ERROR_STOP on` so that the first
/// failing shard stops the script with a non-zero exit. `header[i]`: shard `i` starts with a
/// header. There is no `\restrict` guard: restricted mode refuses `\copy` itself. Safety
/// comes instead from every line being ours: psql reads a `\copy` line to its end and
/// parses its quoted names itself, so quotes and backslashes in names are data, and line
/// breaks are refused.
pub fn copy_script(t: &Target, files: &[&Path], header: &[bool]) -> Result<String, String> {
    check_paths(t, files, "")?;
    let mut s = String::from("\\set ON_ERROR_STOP on\n");
    for (i, f) in files.iter().enumerate() {
        let path = f.to_string_lossy();
        let source = if t.gzip {
            // The shell sees the path single-quoted; SQL sees the command as a literal.
            let shell = format!("'{}'", path.replace('\'', r"'\''"));
            format!("PROGRAM {}", literal(&format!("gzip -dc {shell}")))
        } else {
            literal(&path)
        };
        let h = header.get(i).copied().unwrap_or(false);
        s.push_str(&format!(
            "\\copy {}{} FROM {source} WITH (FORMAT csv, HEADER {h}, NULL {})\n",
            t.table,
            column_list(t.columns),
            literal(t.null)
        ));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements() {
        let cols = vec!["id".to_string(), "Na\"me".to_string()];
        let t = Target {
            table: "public.t",
            columns: &cols,
            null: "",
            gzip: true,
        };
        let a = Path::new("out/p-0.csv.gz");
        let b = Path::new("out/it's.csv.gz");
        let imp = import_into(&t, "s3://b/x/", &[a, b], true).unwrap();
        assert_eq!(
            imp,
            "IMPORT INTO public.t (\"id\", \"Na\"\"me\") CSV DATA (\n    's3://b/x/p-0.csv.gz',\n    \
             's3://b/x/it''s.csv.gz'\n) WITH nullif = '', skip = '1', decompress = 'gzip';\n"
        );
        let cp = copy_script(&t, &[b], &[false]).unwrap();
        assert_eq!(
            cp,
            "\\set ON_ERROR_STOP on\n\\copy public.t (\"id\", \"Na\"\"me\") FROM PROGRAM 'gzip -dc ''out/it''\\''''s.csv.gz''' \
             WITH (FORMAT csv, HEADER false, NULL '')\n"
        );
        let t = Target {
            table: "t",
            columns: &[],
            null: "\\N",
            gzip: false,
        };
        assert_eq!(
            copy_script(&t, &[a], &[true]).unwrap(),
            "\\set ON_ERROR_STOP on\n\\copy t FROM 'out/p-0.csv.gz' WITH (FORMAT csv, HEADER true, NULL '\\N')\n"
        );
        // Credentials in the query string stay after the object path.
        assert!(
            import_into(&t, "s3://b/x/?AUTH=implicit&a=b", &[a], false)
                .unwrap()
                .contains("'s3://b/x/p-0.csv.gz?AUTH=implicit&a=b'")
        );
        let nl = Path::new("out/a\n\\! x.csv");
        assert!(copy_script(&t, &[nl], &[false]).is_err());
        assert!(import_into(&t, "s3://b", &[nl], false).is_err());
        assert!(import_into(&t, "s3://b\r", &[a], false).is_err());
        let t = Target {
            table: "\"a\n\\! x\"",
            ..t
        };
        assert!(copy_script(&t, &[a], &[false]).is_err());
    }
}
