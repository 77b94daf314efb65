//! `--target-version`: the release of CockroachDB or YugabyteDB a converted schema is for,
//! how releases are ordered, and how a server's `version()` text names its release.
//!
//! Releases are compared by a key that follows their release dates, not their numbers:
//! YugabyteDB's `2.25` preview came out after `2024.2` and before `2025.1` (its releases
//! page: <https://docs.yugabyte.com/stable/releases/ybdb-releases/>), so a key made of the
//! two numbers would order it wrongly. CockroachDB's `vYY.R` numbers are in release order
//! (<https://www.cockroachlabs.com/docs/releases/>).

use super::TargetKind;

/// A release series of a target (`cockroachdb:24.3`, `yugabytedb:2024.2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetVersion {
    /// The kind.
    pub kind: TargetKind,
    /// The series' first number (`24`, `2024`, `2`).
    pub major: u32,
    /// Its second number (`3`, `2`, `20`).
    pub minor: u32,
}

/// The CockroachDB series `--target-version` takes, oldest first. The oldest the vendor
/// still supports on 2026-12-03 is v24.3 (LTS, assistance support until 2027-05-05; v24.1's
/// ended 2026-10-21): its support table, cockroachdb/docs `src/current/_data/versions.csv`
/// (<https://www.cockroachlabs.com/docs/releases/release-support-policy>). v24.1 is kept
/// for clusters not yet upgraded. Releases after v26.2 were not checked: refused.
pub const CRDB_SERIES: &[(u32, u32)] = &[
    (24, 1),
    (24, 3),
    (25, 1),
    (25, 2),
    (25, 3),
    (25, 4),
    (26, 1),
    (26, 2),
];

/// The YugabyteDB series `--target-version` takes, in release order, with the month each
/// came out (the order key) and the PostgreSQL version its YSQL is built on. 2024.2 LTS is
/// the oldest the vendor supports on 2026-12-03 (end of maintenance 2026-12-09, end of life
/// 2027-06-09; 2.20 LTS reached end of life 2026-05-13, 2024.1 STS 2026-03-07): its releases
/// page (<https://docs.yugabyte.com/stable/releases/ybdb-releases/>). YSQL is PostgreSQL
/// 11.2 up to 2024.2 and PostgreSQL 15 from the 2.25 preview and 2025.1 on
/// (<https://docs.yugabyte.com/stable/releases/ybdb-releases/v2025.1/>).
pub const YB_SERIES: &[(u32, u32, u32, u32)] = &[
    // (major, minor, released YYYYMM, PostgreSQL major)
    (2, 20, 202311, 11),
    (2024, 1, 202406, 11),
    (2024, 2, 202412, 11),
    (2, 25, 202501, 15),
    (2025, 1, 202507, 15),
    (2025, 2, 202512, 15),
    (2026, 1, 202606, 15),
];

/// The default `--target-version` per kind: the oldest release its vendor still supports.
pub fn default_for(kind: TargetKind) -> Option<TargetVersion> {
    match kind {
        TargetKind::Postgresql => None,
        TargetKind::Cockroachdb => Some(TargetVersion {
            kind,
            major: 24,
            minor: 3,
        }),
        TargetKind::Yugabytedb => Some(TargetVersion {
            kind,
            major: 2024,
            minor: 2,
        }),
    }
}

impl TargetVersion {
    /// The PostgreSQL major a YugabyteDB release's YSQL is built on (11 or 15); 0 for
    /// CockroachDB.
    pub fn pg_major(&self) -> u32 {
        YB_SERIES
            .iter()
            .find(|&&(major, minor, _, _)| major == self.major && minor == self.minor)
            .map_or(0, |&(_, _, _, pg)| pg)
    }

    /// Parses `KIND:VERSION` or `VERSION` (the kind from `kind`): a release series from
    /// [`CRDB_SERIES`] or [`YB_SERIES`]; a patch number after the series (`24.3.5`) is
    /// allowed and ignored (rules change between series, not patches).
    pub fn parse(s: &str, kind: Option<TargetKind>) -> Result<TargetVersion, String> {
        let (k, v) = match s.split_once(':') {
            Some((k, v)) => {
                let k = match k {
                    "cockroachdb" => TargetKind::Cockroachdb,
                    "yugabytedb" => TargetKind::Yugabytedb,
                    _ => {
                        return Err(format!(
                            "--target-version '{s}': the kind is cockroachdb or yugabytedb"
                        ));
                    }
                };
                if let Some(given) = kind
                    && given != k
                {
                    return Err(format!(
                        "--target-version '{s}' is for {} but --target-kind is {}",
                        k.name(),
                        given.name()
                    ));
                }
                (k, v)
            }
            None => match kind {
                Some(k @ (TargetKind::Cockroachdb | TargetKind::Yugabytedb)) => (k, s),
                _ => {
                    return Err(format!(
                        "--target-version '{s}': say which target (cockroachdb:{s} or yugabytedb:{s}), or give --target-kind"
                    ));
                }
            },
        };
        let v = v.strip_prefix('v').unwrap_or(v);
        let mut parts = v.split('.');
        let num = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (num(parts.next()), num(parts.next())) else {
            return Err(format!(
                "--target-version '{s}': a release series is two numbers ({})",
                known(k)
            ));
        };
        if parts.any(|p| p.parse::<u32>().is_err()) {
            return Err(format!("--target-version '{s}': not a version number"));
        }
        let t = TargetVersion {
            kind: k,
            major,
            minor,
        };
        let ok = match k {
            TargetKind::Cockroachdb => CRDB_SERIES.contains(&(major, minor)),
            _ => YB_SERIES.iter().any(|r| (r.0, r.1) == (major, minor)),
        };
        if !ok {
            return Err(format!(
                "--target-version '{s}': the rules were checked for {} only",
                known(k)
            ));
        }
        Ok(t)
    }

    /// The release a server's `version()` text names, if it is one of these kinds:
    /// `CockroachDB CCL v24.3.1 (...)`, `PostgreSQL 11.2-YB-2024.2.3.0-b0 on ...`. A series
    /// not in the tables is still ordered (see [`TargetVersion::key`]).
    pub fn from_server(text: &str) -> Option<TargetVersion> {
        let (kind, rest) = if let Some(r) = text.strip_prefix("CockroachDB") {
            let v = r.split_whitespace().find(|w| w.starts_with('v'))?;
            (TargetKind::Cockroachdb, &v[1..])
        } else {
            let at = text.find("-YB-")?;
            (TargetKind::Yugabytedb, &text[at + 4..])
        };
        let mut parts = rest.split(|c: char| !c.is_ascii_digit());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(TargetVersion { kind, major, minor })
    }

    /// The order key: later releases have larger keys. CockroachDB: `YY * 100 + R`;
    /// YugabyteDB: the release month (`YYYYMM`) from [`YB_SERIES`]; a year series not in the
    /// table (`2026.2`) is placed by its numbers (minor 1 in June, 2 in December), a `2.N`
    /// preview not in the table just after the last year series before it is impossible to
    /// know, so it is placed by the nearest known `2.N` below it.
    pub fn key(&self) -> u32 {
        match self.kind {
            TargetKind::Cockroachdb => self.major * 100 + self.minor,
            _ => {
                if let Some(r) = YB_SERIES
                    .iter()
                    .find(|r| (r.0, r.1) == (self.major, self.minor))
                {
                    return r.2;
                }
                if self.major >= 2000 {
                    return self.major * 100 + if self.minor <= 1 { 6 } else { 12 };
                }
                YB_SERIES
                    .iter()
                    .filter(|r| r.0 == 2 && r.1 <= self.minor)
                    .map(|r| r.2)
                    .max()
                    .unwrap_or(0)
            }
        }
    }

    /// `cockroachdb:24.3`.
    pub fn label(&self) -> String {
        format!("{}:{}.{}", self.kind.name(), self.major, self.minor)
    }

    /// Whether this is at least `other` (same kind).
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        let o = TargetVersion {
            kind: self.kind,
            major,
            minor,
        };
        self.key() >= o.key()
    }

    /// YugabyteDB: the PostgreSQL major version YSQL is built on (11 or 15).
    pub fn yb_pg(&self) -> u32 {
        if self.at_least(2, 25) { 15 } else { 11 }
    }
}

fn known(k: TargetKind) -> String {
    let v: Vec<String> = match k {
        TargetKind::Cockroachdb => CRDB_SERIES
            .iter()
            .map(|(a, b)| format!("{a}.{b}"))
            .collect(),
        _ => YB_SERIES
            .iter()
            .map(|r| format!("{}.{}", r.0, r.1))
            .collect(),
    };
    format!("{} {}", k.name(), v.join(", "))
}

/// The first line pgdump2csv writes into --write-schema and --write-post-data for a
/// CockroachDB or YugabyteDB target, and csvload reads back: a comment, so every shell
/// passes over it.
pub fn header_line(v: &TargetVersion) -> String {
    format!("-- dumpshard-target: {}\n", v.label())
}

/// The target a script's [`header_line`] names, if it has one within its first lines.
pub fn read_header(script: &[u8]) -> Option<TargetVersion> {
    let head = &script[..script.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    text.lines().take(8).find_map(|l| {
        let v = l.strip_prefix("-- dumpshard-target: ")?.trim();
        TargetVersion::parse(v, None).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> TargetVersion {
        TargetVersion::parse(s, None).unwrap()
    }

    #[test]
    fn parses_kind_and_series() {
        assert_eq!(v("cockroachdb:24.3").label(), "cockroachdb:24.3");
        assert_eq!(v("cockroachdb:v26.2.1").label(), "cockroachdb:26.2");
        assert_eq!(v("yugabytedb:2024.2").label(), "yugabytedb:2024.2");
        assert_eq!(
            TargetVersion::parse("2025.1", Some(TargetKind::Yugabytedb))
                .unwrap()
                .label(),
            "yugabytedb:2025.1"
        );
        for bad in [
            "cockroachdb:26.3",
            "cockroachdb:23.2",
            "yugabytedb:2.18",
            "postgresql:15",
            "cockroachdb:24",
            "24.3",
        ] {
            assert!(TargetVersion::parse(bad, None).is_err(), "{bad}");
        }
        assert!(TargetVersion::parse("cockroachdb:24.3", Some(TargetKind::Yugabytedb)).is_err());
    }

    #[test]
    fn yugabyte_order_follows_release_dates() {
        let order = ["2.20", "2024.1", "2024.2", "2.25", "2025.1", "2025.2"];
        for w in order.windows(2) {
            assert!(
                v(&format!("yugabytedb:{}", w[0])).key() < v(&format!("yugabytedb:{}", w[1])).key(),
                "{w:?}"
            );
        }
        assert_eq!(v("yugabytedb:2024.2").yb_pg(), 11);
        assert_eq!(v("yugabytedb:2.25").yb_pg(), 15);
        assert_eq!(v("yugabytedb:2025.1").yb_pg(), 15);
    }

    #[test]
    fn server_version_text() {
        let c = TargetVersion::from_server(
            "CockroachDB CCL v24.3.1 (x86_64-pc-linux-gnu, built 2024/12/01, go1.22.8)",
        )
        .unwrap();
        assert_eq!(c.label(), "cockroachdb:24.3");
        let y = TargetVersion::from_server(
            "PostgreSQL 11.2-YB-2024.2.3.0-b0 on x86_64-pc-linux-gnu, compiled by clang",
        )
        .unwrap();
        assert_eq!(y.label(), "yugabytedb:2024.2");
        let y = TargetVersion::from_server("PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64").unwrap();
        assert_eq!(y.label(), "yugabytedb:2.20");
        assert!(TargetVersion::from_server("PostgreSQL 15.8 on x86_64").is_none());
        // A later series than the tables know still orders after them.
        let n = TargetVersion::from_server("PostgreSQL 15.12-YB-2027.1.0.0-b1").unwrap();
        assert!(n.key() > v("yugabytedb:2026.1").key());
    }

    #[test]
    fn header_round_trip() {
        let t = v("cockroachdb:25.2");
        let mut s = b"\\restrict abc\n\n".to_vec();
        s.extend_from_slice(header_line(&t).as_bytes());
        assert_eq!(read_header(&s), Some(t));
        assert_eq!(read_header(b"SELECT 1;\n"), None);
    }
}
