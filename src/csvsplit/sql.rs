//! The load statements csvsplit prints for its shards: one CockroachDB `IMPORT INTO ... CSV
//! DATA (...)` (`--import-sql`) or a psql script of `\copy` lines for PostgreSQL and
//! YugabyteDB (`--copy-sql`). Both spell out the CSV contract's options (NULL token, header,
//! compression) so that loading the shards gives back the source table exactly.

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

/// The CockroachDB statement. `files` are the shard paths; each URL is `url_prefix/` plus the
/// shard's file name. `skip_header`: every shard starts with a header.
pub fn import_into(t: &Target, url_prefix: &str, files: &[&Path], skip_header: bool) -> String {
    let prefix = url_prefix.trim_end_matches('/');
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
            literal(&format!("{prefix}/{name}"))
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
    s
}

/// A psql script: one `\copy` per shard. `header[i]`: shard `i` starts with a header.
pub fn copy_script(t: &Target, files: &[&Path], header: &[bool]) -> String {
    let mut s = String::new();
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
    s
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
        let imp = import_into(&t, "s3://b/x/", &[a, b], true);
        assert_eq!(
            imp,
            "IMPORT INTO public.t (\"id\", \"Na\"\"me\") CSV DATA (\n    's3://b/x/p-0.csv.gz',\n    \
             's3://b/x/it''s.csv.gz'\n) WITH nullif = '', skip = '1', decompress = 'gzip';\n"
        );
        let cp = copy_script(&t, &[b], &[false]);
        assert_eq!(
            cp,
            "\\copy public.t (\"id\", \"Na\"\"me\") FROM PROGRAM 'gzip -dc ''out/it''\\''''s.csv.gz''' \
             WITH (FORMAT csv, HEADER false, NULL '')\n"
        );
        let t = Target {
            table: "t",
            columns: &[],
            null: "\\N",
            gzip: false,
        };
        assert_eq!(
            copy_script(&t, &[a], &[true]),
            "\\copy t FROM 'out/p-0.csv.gz' WITH (FORMAT csv, HEADER true, NULL '\\N')\n"
        );
    }
}
