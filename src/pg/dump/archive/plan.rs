//! The TOC plan: which entries are printed in which of pg_restore's passes, and in what
//! order, as the [`Step`]s of the script (text, then each entry's data).

use super::print::{State, blob_oids, dump_major, print_entry};
use super::*;

pub(super) enum Step {
    Text(Vec<u8>),
    /// The data of a `BLOBS` entry: large objects, printed as pg_restore prints them.
    Blobs {
        id: i64,
        what: String,
        file: Vec<u8>,
        offset: u64,
        std_strings: bool,
    },
    Data {
        id: i64,
        what: String,
        file: Vec<u8>,
        offset: u64,
    },
}

pub(super) fn count_large_objects(entries: &[Entry]) -> u64 {
    entries
        .iter()
        .map(|e| {
            if e.is("BLOB") {
                1
            } else if e.is("BLOB METADATA") {
                blob_oids(e).len() as u64
            } else {
                0
            }
        })
        .sum()
}

/// Which of pg_restore's passes an entry is printed in (`_tocEntryRestorePass`).
pub(super) fn pass(e: &Entry) -> u8 {
    if e.is("ACL") || e.is("ACL LANGUAGE") || e.is("DEFAULT ACL") {
        1
    } else if e.is("EVENT TRIGGER")
        || e.is("MATERIALIZED VIEW DATA")
        || (e.is("COMMENT")
            && e.tag
                .as_deref()
                .is_some_and(|t| t.starts_with(b"EVENT TRIGGER ")))
    {
        2
    } else {
        0
    }
}

/// The script, as pg_restore's `RestoreArchive` prints it in text mode.
///
/// With `defer`, every COPY gets an empty body and the data entries are returned in script
/// order instead, to be converted concurrently.
pub(super) fn plan(
    h: &Header,
    entries: &[Entry],
    want: Want<'_>,
    defer: bool,
) -> (Vec<Step>, Option<Vec<DataEntry>>) {
    let special = |e: &Entry| e.is("ENCODING") || e.is("STDSTRINGS") || e.is("SEARCHPATH");
    let find = |d: &str| {
        entries
            .iter()
            .find(|e| e.is(d))
            .and_then(|e| e.defn.clone())
    };
    let encoding = find("ENCODING")
        .and_then(|d| {
            let s = String::from_utf8_lossy(&d).into_owned();
            s.split('\'').nth(1).map(str::to_string)
        })
        .unwrap_or_else(|| "SQL_ASCII".into());
    let std_strings = find("STDSTRINGS").is_some_and(|d| d.windows(4).any(|w| w == b"'on'"));
    let search_path = find("SEARCHPATH");
    let major = dump_major(h);

    let mut steps = Vec::new();
    let mut t: Vec<u8> = Vec::new();
    t.extend_from_slice(b"--\n-- PostgreSQL database dump\n--\n\n");
    // pg_restore opens the script with a \restrict guard; the converter drops the pair, so
    // the key does not matter, only the line's place (it decides the blank lines kept).
    t.extend_from_slice(b"\\restrict pgdump2csv\n\n");
    if let Some(v) = &h.server_version {
        t.extend_from_slice(b"-- Dumped from database version ");
        t.extend_from_slice(v);
        t.push(b'\n');
    }
    if let Some(v) = &h.dump_version {
        t.extend_from_slice(b"-- Dumped by pg_dump version ");
        t.extend_from_slice(v);
        t.push(b'\n');
    }
    t.push(b'\n');
    t.extend_from_slice(
        b"SET statement_timeout = 0;\nSET lock_timeout = 0;\nSET idle_in_transaction_session_timeout = 0;\n",
    );
    if h.version.1 >= 16 {
        t.extend_from_slice(b"SET transaction_timeout = 0;\n");
    }
    t.extend_from_slice(format!("SET client_encoding = '{encoding}';\n").as_bytes());
    t.extend_from_slice(
        format!(
            "SET standard_conforming_strings = {};\n",
            if std_strings { "on" } else { "off" }
        )
        .as_bytes(),
    );
    if let Some(sp) = &search_path {
        t.extend_from_slice(sp);
    }
    t.extend_from_slice(
        b"SET check_function_bodies = false;\nSET xmloption = content;\nSET client_min_messages = warning;\n",
    );
    if !std_strings {
        t.extend_from_slice(b"SET escape_string_warning = off;\n");
    }
    t.extend_from_slice(b"SET row_security = off;\n\n");

    let mut st = State::default();
    let mut deferred = Vec::new();
    for p in 0..3u8 {
        for e in entries.iter().filter(|e| !special(e) && pass(e) == p) {
            let is_data = e.had_dumper;
            if is_data && matches!(e.extra, Extra::Block { no_data: true, .. }) {
                continue;
            }
            if is_data && e.is("BLOBS") {
                // Large objects: not converted to CSV, but printed into the script as
                // pg_restore prints them (so they land in the post-data, as from a plain dump).
                print_entry(&mut t, &mut st, e, true, search_path.is_some(), major);
                if search_path.is_none() && st.schema.as_deref() != Some(b"pg_catalog") {
                    t.extend_from_slice(b"SET search_path = pg_catalog;\n\n");
                    st.schema = Some(b"pg_catalog".to_vec());
                }
                steps.push(Step::Text(std::mem::take(&mut t)));
                steps.push(Step::Blobs {
                    id: e.id,
                    what: format!("entry {} (large objects)", e.id),
                    file: e.extra.file(),
                    offset: e.extra.offset(),
                    std_strings,
                });
                continue;
            }
            if is_data && !e.is("TABLE DATA") {
                // Other data entries (BLOB COMMENTS of pre-9.0 archives): not printed.
                continue;
            }
            if e.is("DATABASE") || e.is("DATABASE PROPERTIES") {
                // Only printed by pg_restore --create; a plain dump without -C has neither.
                continue;
            }
            if (e.is("COMMENT") || e.is("ACL") || e.is("SECURITY LABEL"))
                && e.tag
                    .as_deref()
                    .is_some_and(|t| t.starts_with(b"DATABASE "))
            {
                // The database's own properties go with --create too (`_tocEntryRequired`):
                // run against another database they would name the source one.
                continue;
            }
            print_entry(&mut t, &mut st, e, is_data, search_path.is_some(), major);
            if !is_data {
                continue;
            }
            if let Some(c) = &e.copy_stmt {
                t.extend_from_slice(c);
            }
            let ns = String::from_utf8_lossy(e.namespace.as_deref().unwrap_or(b"")).into_owned();
            let tag = String::from_utf8_lossy(e.tag.as_deref().unwrap_or(b"")).into_owned();
            if defer {
                deferred.push(DataEntry {
                    copy_stmt: e.copy_stmt.clone().unwrap_or_default(),
                    wanted: want(&ns, &tag),
                    what: format!("entry {} ({})", e.id, e.display_name()),
                    id: e.id,
                    file: e.extra.file(),
                    offset: e.extra.offset(),
                    size: 0,
                });
                // The same bytes as an entry not wanted: the data goes to DataSet.
                t.extend_from_slice(b"\\.\n\n\n");
            } else if want(&ns, &tag) {
                steps.push(Step::Text(std::mem::take(&mut t)));
                steps.push(Step::Data {
                    id: e.id,
                    what: format!("entry {} ({})", e.id, e.display_name()),
                    file: e.extra.file(),
                    offset: e.extra.offset(),
                });
            } else if e.copy_stmt.is_some() {
                // Not wanted: an empty COPY keeps the script well-formed; the block is
                // skipped unread.
                t.extend_from_slice(b"\\.\n\n\n");
            }
        }
    }
    t.extend_from_slice(
        b"--\n-- PostgreSQL database dump complete\n--\n\n\\unrestrict pgdump2csv\n\n",
    );
    steps.push(Step::Text(t));
    (steps, defer.then_some(deferred))
}
