//! pgdump2csv's manifest carries the dump's enums and domains, so `csvcheck -m` alone checks
//! enum labels and domain base types and NOT NULL (issue 34 item 7; before, csvcheck said `type
//! shop.status is not checked ... give the schema file with --ddl`); a manifest written before
//! them still reads, and says what it cannot check.

use crate::support::cmd::Cmd;
use std::path::Path;

const DUMP: &str = "--\n-- PostgreSQL database dump\n--\n\n\
SET standard_conforming_strings = on;\n\
SELECT pg_catalog.set_config('search_path', '', false);\n\
CREATE SCHEMA shop;\n\
CREATE TYPE shop.status AS ENUM (\n    'new',\n    'paid',\n    'Shipped ok'\n);\n\
CREATE DOMAIN shop.qty AS integer NOT NULL CONSTRAINT qty_check CHECK ((VALUE > 0));\n\
CREATE DOMAIN shop.qty2 AS shop.qty;\n\
CREATE TABLE shop.orders (\n    id integer NOT NULL,\n    st shop.status,\n    q shop.qty\n);\n\
COPY shop.orders (id, st, q) FROM stdin;\n\
1\tnew\t3\n\
2\tlost\t4\n\
3\tShipped ok\tx\n\
4\tpaid\t\\N\n\
\\.\n\n--\n-- PostgreSQL database dump complete\n--\n";

fn convert(dir: &Path) -> std::path::PathBuf {
    let dump = dir.join("d.sql");
    std::fs::write(&dump, DUMP).unwrap();
    let m = dir.join("m.json");
    Cmd::new("pgdump2csv")
        .arg("-o")
        .arg(dir.join("csv"))
        .arg("--write-manifest")
        .arg(&m)
        .arg(&dump)
        .expect(0);
    m
}

#[test]
fn csvcheck_m_alone_checks_enum_labels_and_domains() {
    let dir = tempfile::tempdir().unwrap();
    let m = convert(dir.path());
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
    assert_eq!(
        j["enums"][0]["labels"],
        serde_json::json!(["new", "paid", "Shipped ok"]),
        "{j}"
    );
    assert_eq!(j["domains"][0]["base_type"], "integer", "{j}");
    assert_eq!(j["domains"][1]["base_type"], "shop.qty", "{j}");
    // A manifest's file names are relative to the manifest's directory.
    let csv = dir.path().join(j["tables"][0]["file"].as_str().unwrap());
    let r = Cmd::new("csvcheck").arg("-m").arg(&m).arg(&csv).expect(1);
    let e = r.stderr_str();
    // Record 2's label, record 3's quantity (the domain's base type) and record 4's NULL (the
    // domain's NOT NULL) are each found.
    assert!(e.contains("lost"), "{e}");
    assert!(e.contains("3 bad"), "{e}");
    assert!(!e.contains("is not checked"), "{e}");
    assert!(e.contains("CHECK constraints of domain"), "{e}");

    // A manifest from before the types were carried: read as before, the enum unchecked.
    let mut old = j.clone();
    let o = old.as_object_mut().unwrap();
    o.remove("enums");
    o.remove("domains");
    let om = dir.path().join("old.json");
    std::fs::write(&om, serde_json::to_vec(&old).unwrap()).unwrap();
    let r = Cmd::new("csvcheck").arg("-m").arg(&om).arg(&csv).run();
    let e = r.stderr_str();
    assert!(
        e.contains("type shop.status is not checked") && e.contains("--ddl"),
        "{e}"
    );
}
