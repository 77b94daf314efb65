//! Script printing: each TOC entry as `_printTocEntry` prints it (comment header, session
//! settings on change, the definition, owner and ACL statements), with pg_dump's identifier
//! quoting.

use super::*;

/// The session state `_printTocEntry` tracks to print `SET` commands only on change.
#[derive(Default)]
pub(super) struct State {
    pub(super) schema: Option<Vec<u8>>,
    pub(super) tablespace: Option<Vec<u8>>,
    pub(super) tableam: Option<Vec<u8>>,
}

/// pg_dump's `sanitize_line`: no newlines in a comment line; NULL or empty shown as `-`.
pub(super) fn sanitize(s: Option<&[u8]>, hyphen: bool) -> Vec<u8> {
    match s {
        None | Some([]) => {
            if hyphen {
                b"-".to_vec()
            } else {
                Vec::new()
            }
        }
        Some(v) => v
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect(),
    }
}

/// One entry as `_printTocEntry` prints it (without --no-owner, --verbose or
/// --use-set-session-authorization, as a plain pg_dump prints it).
pub(super) fn print_entry(
    t: &mut Vec<u8>,
    st: &mut State,
    e: &Entry,
    is_data: bool,
    have_search_path: bool,
    major: u32,
) {
    // Archives older than 1.13 have no SEARCHPATH entry: pg_restore sets the search path
    // per object (`_selectOutputSchema`).
    if !have_search_path
        && let Some(ns) = e.namespace.as_deref().filter(|n| !n.is_empty())
        && st.schema.as_deref() != Some(ns)
    {
        let ns_s = String::from_utf8_lossy(ns);
        t.extend_from_slice(b"SET search_path = ");
        t.extend_from_slice(fmt_id(&ns_s).as_bytes());
        if ns != b"pg_catalog" {
            t.extend_from_slice(b", pg_catalog");
        }
        t.extend_from_slice(b";\n\n");
        st.schema = Some(ns.to_vec());
    }
    if let Some(ts) = &e.tablespace
        && st.tablespace.as_ref() != Some(ts)
    {
        if ts.is_empty() {
            t.extend_from_slice(b"SET default_tablespace = '';\n\n");
        } else {
            t.extend_from_slice(
                format!(
                    "SET default_tablespace = {};\n\n",
                    fmt_id(&String::from_utf8_lossy(ts))
                )
                .as_bytes(),
            );
        }
        st.tablespace = Some(ts.clone());
    }
    if let Some(am) = &e.tableam
        && st.tableam.as_ref() != Some(am)
    {
        t.extend_from_slice(
            format!(
                "SET default_table_access_method = {};\n\n",
                fmt_id(&String::from_utf8_lossy(am))
            )
            .as_bytes(),
        );
        st.tableam = Some(am.clone());
    }
    t.extend_from_slice(b"--\n-- ");
    if is_data {
        t.extend_from_slice(b"Data for ");
    }
    t.extend_from_slice(b"Name: ");
    t.extend_from_slice(&sanitize(e.tag.as_deref(), false));
    t.extend_from_slice(b"; Type: ");
    t.extend_from_slice(&e.desc);
    t.extend_from_slice(b"; Schema: ");
    t.extend_from_slice(&sanitize(e.namespace.as_deref(), true));
    t.extend_from_slice(b"; Owner: ");
    t.extend_from_slice(&sanitize(e.owner.as_deref(), true));
    if let Some(ts) = e.tablespace.as_deref().filter(|t| !t.is_empty()) {
        t.extend_from_slice(b"; Tablespace: ");
        t.extend_from_slice(&sanitize(Some(ts), false));
    }
    t.extend_from_slice(b"\n--\n\n");
    if is_data {
        return;
    }
    if e.is("BLOB METADATA") {
        // Archive 1.16 groups large objects: the definition only lists their OIDs, and
        // pg_restore writes one lo_create (and ALTER OWNER) per object.
        let oids = blob_oids(e);
        for o in &oids {
            t.extend_from_slice(format!("SELECT pg_catalog.lo_create('{o}');\n").as_bytes());
        }
        t.push(b'\n');
        if let Some(owner) = e.owner.as_deref().filter(|o| !o.is_empty()) {
            for o in &oids {
                t.extend_from_slice(
                    format!(
                        "ALTER LARGE OBJECT {o} OWNER TO {};\n",
                        fmt_id(&String::from_utf8_lossy(owner))
                    )
                    .as_bytes(),
                );
            }
            t.push(b'\n');
        }
        return;
    }
    if let Some(d) = e.defn.as_deref().filter(|d| !d.is_empty()) {
        t.extend_from_slice(d);
        t.extend_from_slice(b"\n\n");
    }
    if let Some(owner) = e.owner.as_deref().filter(|o| !o.is_empty())
        && e.drop_stmt.as_deref().is_some_and(|d| !d.is_empty())
        && let Some(obj) = object_description(e, major)
    {
        t.extend_from_slice(b"ALTER ");
        t.extend_from_slice(&obj);
        t.extend_from_slice(b" OWNER TO ");
        t.extend_from_slice(&fmt_id_bytes(owner));
        t.extend_from_slice(b";\n\n");
    }
}

/// The large-object OIDs a `BLOB METADATA` entry lists (decimal numbers, whitespace-separated).
pub(super) fn blob_oids(e: &Entry) -> Vec<String> {
    let d = String::from_utf8_lossy(e.defn.as_deref().unwrap_or(b"")).into_owned();
    d.split_ascii_whitespace()
        .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// The major version of the pg_dump that wrote the archive ("17.10" -> 17; 0 when the
/// header does not say): the script is printed as that version's pg_restore prints it,
/// which is what its plain dump holds.
pub(super) fn dump_major(h: &Header) -> u32 {
    let v = h.dump_version.as_deref().unwrap_or(b"");
    let digits = v.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&v[..digits])
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

/// What `_getObjectDescription` names an object in `ALTER ... OWNER TO`, or `None` for
/// objects without owners: the entry's schema and tag through `fmtId` (the DROP statement,
/// which may end in CASCADE, only for the kinds that need argument lists). pg_restore before
/// 17 says `TABLE` for views, materialized views and sequences.
pub(super) fn object_description(e: &Entry, major: u32) -> Option<Vec<u8>> {
    pub(super) const PLAIN: &[&str] = &[
        "COLLATION",
        "CONVERSION",
        "DOMAIN",
        "FOREIGN TABLE",
        "MATERIALIZED VIEW",
        "SEQUENCE",
        "STATISTICS",
        "TABLE",
        "TEXT SEARCH DICTIONARY",
        "TEXT SEARCH CONFIGURATION",
        "TYPE",
        "VIEW",
        "DATABASE",
        "PROCEDURAL LANGUAGE",
        "SCHEMA",
        "EVENT TRIGGER",
        "FOREIGN DATA WRAPPER",
        "SERVER",
        "PUBLICATION",
        "SUBSCRIPTION",
    ];
    pub(super) const DECORATED: &[&str] = &[
        "AGGREGATE",
        "FUNCTION",
        "OPERATOR",
        "OPERATOR CLASS",
        "OPERATOR FAMILY",
        "PROCEDURE",
    ];
    let desc = std::str::from_utf8(&e.desc).ok()?;
    if DECORATED.contains(&desc) {
        let drop = e.drop_stmt.as_deref()?;
        let mut end = drop.len();
        while end > 0 && matches!(drop[end - 1], b'\n' | b';') {
            end -= 1;
        }
        return drop[..end].strip_prefix(b"DROP ").map(<[u8]>::to_vec);
    }
    if e.is("BLOB") {
        let mut v = b"LARGE OBJECT ".to_vec();
        v.extend_from_slice(e.tag.as_deref().unwrap_or(b""));
        return Some(v);
    }
    if !PLAIN.contains(&desc) {
        return None;
    }
    let kind = match desc {
        "VIEW" | "SEQUENCE" | "MATERIALIZED VIEW" if major < 17 => "TABLE",
        d => d,
    };
    let mut v = kind.as_bytes().to_vec();
    v.push(b' ');
    if let Some(ns) = e.namespace.as_deref().filter(|n| !n.is_empty()) {
        v.extend_from_slice(&fmt_id_bytes(ns));
        v.push(b'.');
    }
    v.extend_from_slice(&fmt_id_bytes(e.tag.as_deref().unwrap_or(b"")));
    Some(v)
}

/// PostgreSQL's keywords that `fmtId` must quote (every category but unreserved).
pub(super) const QUOTED_KEYWORDS: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "json",
    "json_array",
    "json_arrayagg",
    "json_exists",
    "json_object",
    "json_objectagg",
    "json_query",
    "json_scalar",
    "json_serialize",
    "json_table",
    "json_value",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "merge_action",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "system_user",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// pg_dump's `fmtId`: the name as is when it is a lower-case identifier and not a keyword
/// that needs quoting, else double-quoted with quotes doubled.
pub(super) fn fmt_id(s: &str) -> String {
    let simple = s
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !QUOTED_KEYWORDS.contains(&s);
    if simple {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}

/// [`fmt_id`] of a name's bytes as the archive holds them (in the database's encoding, which
/// need not be UTF-8): a name that is not UTF-8 is never a plain identifier, so it is quoted.
pub(super) fn fmt_id_bytes(b: &[u8]) -> Vec<u8> {
    match std::str::from_utf8(b) {
        Ok(s) => fmt_id(s).into_bytes(),
        Err(_) => {
            let mut v = vec![b'"'];
            for &c in b {
                if c == b'"' {
                    v.push(b'"');
                }
                v.push(c);
            }
            v.push(b'"');
            v
        }
    }
}
