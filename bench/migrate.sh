#!/usr/bin/env bash
# The whole migration against what a user would run instead (issue 22), side by side in one
# run, each into a fresh database of one throwaway local PostgreSQL:
#
#   migrate.mk    make -f examples/migrate.mk -j2 TARGET_KIND=postgresql DUMP=dump.sql
#                 (convert, check, cut, load with 2 connections per table, post-data, verify
#                 the row counts)
#   pg_restore    pg_restore -j 2 -d DB dump.dump   (the same data as pg_dump -Fc: schema,
#                 data, then indexes and constraints)
#   psql -f       psql -X -q -v ON_ERROR_STOP=1 -f dump.sql DB
#
# on two dumps of the same DBT-2 customer data (bench/gen_customer.py): one table of ROWS
# rows, and three tables of ROWS/2, ROWS/3 and ROWS/6 rows (the same bytes in several
# tables: make -j and pg_restore -j run tables side by side). The commands run RUNS rounds,
# interleaved (so load changes hit them alike), each round starting one command later than
# the round before (so no command always runs in the same place), after a warm-up round
# that is not counted (WARMUP=0: none); each database is dropped and created again,
# untimed, before its command, and what the command before wrote is flushed (CHECKPOINT,
# sync; autovacuum is off), so that no command pays for another. Prints medians of wall
# time, of the client's CPU (user + sys of the command and its children: the server's CPU
# is not in it), of the machine's busy
# CPU over the command (/proc/stat: client, server and anything else running) and the ratio to
# pg_restore -j 2, then checks every target against the psql -f restore, and that against
# the source when the run made the dumps (row count and an md5 of the rows in key order) and shows where migrate.mk's time went in its last run (the stamps'
# times).
#
#   bash bench/migrate.sh                                   # release build in target/release
#   ROWS=20000 RUNS=1 BINDIR=target/debug bash bench/migrate.sh   # a smoke test
#
# Needs: GNU make, python3, /usr/bin/time, PostgreSQL server and client binaries (found by
# bench/pgserver.sh: $PGBIN, else the highest /usr/lib/postgresql/*/bin), the dumpshard
# binaries in BINDIR (default $CARGO_TARGET_DIR/release, else target/release: cargo build
# --release). Env: ROWS (default 2000000), RUNS (default 3), WARMUP (default 1: a first
# round, not counted; 0: none), VARIANTS (default "1 3": the one-table and the three-table
# dump), SHAPE (a data shape of bench/gen_corpus.py, see bench/corpus.sh: its dump instead,
# restored and dumped again by pg_dump; `all` is three tables), EXTRA ("content": also
# migrate.mk VERIFY=content; "nocheck": also migrate.mk with csvcheck replaced by a stub that
# passes every table unread, beside every load (CHECK_IN_LOAD=, so no load checks its
# records either), the floor that the check's cost stands above: a measurement, never a way
# to run; "keyonly": also migrate.mk with a csvcheck that types only the primary
# key's columns and reads every other column as text, the check of the key alone with the
# types left to the server, beside every load (CHECK_IN_LOAD=): a measurement too),
# MK_VARS (more make variables for migrate.mk, e.g. 'SPLIT_MIN=1M LOAD_JOBS=4'), MK (the
# makefile, default examples/migrate.mk), MK_ALT (another version of it, run as one more row
# in every round: an A/B in one run),
# OUT (scratch directory, default a new one under $TMPDIR; removed at the end; put it on a
# real disk: the CSV and the chunks are written there, as a user's would be), DATA (where the
# dumps are kept between runs, default bench/data/migrate-ROWS; delete it to make them again).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ROWS=${ROWS:-2000000}
RUNS=${RUNS:-3}
VARIANTS=${VARIANTS:-1 3}
EXTRA=${EXTRA:-}
MK_VARS=${MK_VARS:-}
MK=$(realpath "${MK:-examples/migrate.mk}")
BINDIR=$(realpath -m "${BINDIR:-${CARGO_TARGET_DIR:-target}/release}")
for b in pgdump2csv csvcheck csvsplit csvload pksort; do
    [ -x "$BINDIR/$b" ] || { echo "bench/migrate.sh: no $BINDIR/$b: cargo build --release (or BINDIR=...)" >&2; exit 2; }
done
for t in make python3 /usr/bin/time; do
    command -v "$t" >/dev/null || { echo "bench/migrate.sh: needs $t" >&2; exit 2; }
done
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/migrate-bench.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT" # the server's user reaches its directory inside
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
pg_start "$OUT/pg"
SOCK=$OUT/pg/sock
export PGHOST=$SOCK PGUSER=postgres
unset PGDATABASE PGPORT PGHOSTADDR PGSERVICE
P="$PGBIN/psql -X -q -v ON_ERROR_STOP=1"
# No autovacuum: a command's freshly loaded tables (insert-only, vacuumed by PostgreSQL 13+
# after their load) were vacuumed while the next command ran, charging one command's work to
# another (the second command of each round was slower by up to 2 s of 9).
$P -d postgres -c "ALTER SYSTEM SET autovacuum = off" -c "SELECT pg_reload_conf()" >/dev/null

# The source databases and their dumps: src1 (public.customer) and src3 (public.customer1-3,
# the same definition with its primary key), each as plain SQL and as -Fc, kept in DATA for
# the next run.
. bench/corpus.sh
if [ -n "${SHAPE:-}" ]; then
    # The shape's dump, as pg_dump writes it of the restored tables (plain and -Fc).
    VARIANTS=$(echo $TABLES | wc -w)
    DATA=$(realpath -m "bench/data/migrate-$SHAPE-$ROWS")
    if [ ! -s "$DATA/dump$VARIANTS.sql" ] || [ ! -s "$DATA/dump$VARIANTS.dump" ]; then
        $P -d postgres -c "CREATE DATABASE src$VARIANTS"
        PGTZ=UTC $P -d "src$VARIANTS" -f "$DUMP" >/dev/null
        mkdir -p "$DATA"
        "$PGBIN/pg_dump" -d "src$VARIANTS" -f "$DATA/dump$VARIANTS.sql.tmp" && mv "$DATA/dump$VARIANTS.sql.tmp" "$DATA/dump$VARIANTS.sql"
        "$PGBIN/pg_dump" -Fc -d "src$VARIANTS" -f "$DATA/dump$VARIANTS.dump.tmp" && mv "$DATA/dump$VARIANTS.dump.tmp" "$DATA/dump$VARIANTS.dump"
    fi
else
DATA=$(realpath -m "${DATA:-bench/data/migrate-$ROWS}")
if [ ! -s "$DATA/dump1.sql" ] || [ ! -s "$DATA/dump1.dump" ] || [ ! -s "$DATA/dump3.sql" ] || [ ! -s "$DATA/dump3.dump" ]; then
    python3 bench/gen_customer.py "$ROWS" "$OUT/c.csv" >/dev/null
    $P -d postgres -c 'CREATE DATABASE src1' -c 'CREATE DATABASE src3'
    $P -d src1 -f bench/customer.sql
    $P -d src1 -c "\\copy public.customer FROM '$OUT/c.csv' (FORMAT csv)"
    i=0
    for part in 2 3 6; do
        i=$((i + 1))
        n=$((ROWS / part))
        python3 bench/gen_customer.py "$n" "$OUT/c$i.csv" "$i" >/dev/null
        sed "s/public\.customer\b/public.customer$i/; s/customer_pkey/customer${i}_pkey/" bench/customer.sql | $P -d src3
        $P -d src3 -c "\\copy public.customer$i FROM '$OUT/c$i.csv' (FORMAT csv)"
    done
    rm -f "$OUT"/c*.csv "$OUT"/c*.manifest.json
    mkdir -p "$DATA"
    for v in 1 3; do
        "$PGBIN/pg_dump" -d "src$v" -f "$DATA/dump$v.sql.tmp" && mv "$DATA/dump$v.sql.tmp" "$DATA/dump$v.sql"
        "$PGBIN/pg_dump" -Fc -d "src$v" -f "$DATA/dump$v.dump.tmp" && mv "$DATA/dump$v.dump.tmp" "$DATA/dump$v.dump"
    done
fi
fi
for v in $VARIANTS; do
    ln -s "$DATA/dump$v.sql" "$OUT/dump$v.sql"
    ln -s "$DATA/dump$v.dump" "$OUT/dump$v.dump"
done
for v in $VARIANTS; do
    echo "dump of $v table(s)${SHAPE:+ (shape $SHAPE)}: $(du -mL "$OUT/dump$v.sql" | cut -f1) MB plain, $(du -mL "$OUT/dump$v.dump" | cut -f1) MB -Fc"
done
echo "$ROWS rows; $(nproc) CPUs; binaries $BINDIR"

# row NAME VARIANT DB COMMAND: COMMAND loads variant VARIANT's dump into the database DB.
names=() variants=() dbs=() cmds=()
row() { names+=("$1"); variants+=("$2"); dbs+=("$3"); cmds+=("$4"); }
for v in $VARIANTS; do
    mk="make -s -f '$MK' -j2 BIN='$BINDIR' DUMP='$OUT/dump$v.sql' OUT='$OUT/mk$v' TARGET_KIND=postgresql $MK_VARS"
    row "migrate.mk -j2" "$v" "mk$v" "$mk TARGET='dbname=mk$v' > /dev/null"
    if [ -n "${MK_ALT:-}" ]; then
        alt="make -s -f '$(realpath "$MK_ALT")' -j2 BIN='$BINDIR' DUMP='$OUT/dump$v.sql' OUT='$OUT/mka$v' TARGET_KIND=postgresql $MK_VARS"
        row "migrate.mk -j2 (MK_ALT)" "$v" "mka$v" "$alt TARGET='dbname=mka$v' > /dev/null"
    fi
    case " $EXTRA " in *" content "*)
        row "migrate.mk -j2 VERIFY=content" "$v" "mkc$v" "$mk VERIFY=content OUT='$OUT/mkc$v' TARGET='dbname=mkc$v' > /dev/null" ;;
    esac
    case " $EXTRA " in *" nocheck "*)
        row "migrate.mk -j2, no check" "$v" "mkn$v" "$mk BIN='$OUT/nocheck-bin' CHECK_IN_LOAD= OUT='$OUT/mkn$v' TARGET='dbname=mkn$v' > /dev/null" ;;
    esac
    case " $EXTRA " in *" keyonly "*)
        row "migrate.mk -j2, key only" "$v" "mkk$v" "$mk BIN='$OUT/keyonly-bin' CHECK_IN_LOAD= OUT='$OUT/mkk$v' TARGET='dbname=mkk$v' > /dev/null" ;;
    esac
    row "pg_restore -j 2 (-Fc)" "$v" "pgr$v" "'$PGBIN/pg_restore' -j 2 -d pgr$v '$OUT/dump$v.dump'"
    row "psql -f (plain)" "$v" "psql$v" "$P -f '$OUT/dump$v.sql' psql$v > /dev/null"
done

# tool_dir DIR: DIR holding the build's tools but csvcheck, which the caller writes (from
# standard input) in their place.
tool_dir() {
    mkdir -p "$1"
    for b in pgdump2csv csvsplit csvload pksort; do ln -sf "$BINDIR/$b" "$1/$b"; done
    cat >"$1/csvcheck"
    chmod +x "$1/csvcheck"
}
# EXTRA=nocheck: the same binaries, but a csvcheck that reads nothing and writes the empty
# report migrate.mk reads (no "records": the manifest's facts stay as converted).
case " $EXTRA " in *" nocheck "*)
    tool_dir "$OUT/nocheck-bin" <<'STUB'
#!/bin/sh
# bench/migrate.sh EXTRA=nocheck: no check at all; an empty --report, exit 0.
while [ $# -gt 0 ]; do
    case $1 in --report) printf '{}\n' >"$2"; shift ;; esac
    shift
done
STUB
    ;;
esac
# EXTRA=keyonly: the real csvcheck, given the table's columns by --columns instead of the
# manifest: the primary key's columns with their types, every other one as text (the record's
# structure, UTF-8, NOT NULL and the key are still checked; no value's type). The real
# csvcheck's path travels in the environment, not in the script's text. The wrapper's Python
# start (about 0.1 s of CPU per table) is counted in the row.
case " $EXTRA " in *" keyonly "*)
    export MIGRATE_BENCH_CSVCHECK=$BINDIR/csvcheck
    tool_dir "$OUT/keyonly-bin" <<'STUB'
#!/usr/bin/env python3
# bench/migrate.sh EXTRA=keyonly: csvcheck with only the primary key's columns typed.
import json, os, sys
args, rest, opt, i = sys.argv[1:], [], {}, 0
while i < len(args):
    if args[i] in ("--manifest", "--table"):
        opt[args[i]] = args[i + 1]
        i += 2
    else:
        rest.append(args[i])
        i += 1
tables = json.load(open(opt["--manifest"]))["tables"]
t = next(t for t in tables if t["schema"] + "." + t["name"] == opt["--table"])
pk = t["primary_key"] or []
cols = ",".join("%s:%s%s" % (c["name"], c["type"] if c["name"] in pk else "text",
                             "!" if c.get("not_null") else "") for c in t["columns"])
key = ["--key", ",".join(pk)] if pk else []
real = os.environ["MIGRATE_BENCH_CSVCHECK"]
os.execv(real, ["csvcheck", "--columns", cols] + key + rest)
STUB
    ;;
esac

# Page cache: every command reads its dump from memory, as on a second run.
cat "$OUT"/dump* >/dev/null
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# The machine's busy CPU time in ticks (USER_HZ, 100 on Linux): every process, the server's
# too, so beside the client's CPU it shows whether a command had both cores busy.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
: >"$OUT/times.tsv"
# Each round starts one command later than the round before (a rotation): a command that
# always ran second was measured slower, with less work, than one that always ran first
# (2026-12-06: migrate.mk without its check 1.00x in second place, with it 0.84x in first).
# Round 0 warms up, untimed and not counted (WARMUP=0: none): on a fresh server the first
# rounds ran slower, pg_restore -j 2 the most (13.5 s, then 9.8-10.8 s, then 8.5-9.8 s in the
# same run, 2026-12-06), which favoured whichever command was not paying for it.
n=${#names[@]}
for ((r = ${WARMUP:-1} > 0 ? 0 : 1; r <= RUNS; r++)); do
    for ((k = 0; k < n; k++)); do
        i=$(((k + r + n - 1) % n))
        db=${dbs[$i]}
        rm -rf "$OUT/$db"
        PGOPTIONS="-c client_min_messages=warning" $P -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
        # What the command before wrote (its CSV, the server's tables) goes to disk now,
        # untimed, not during this command (the kernel's writeback is machine CPU and I/O).
        $P -d postgres -c CHECKPOINT && sync
        b0=$(busy)
        /usr/bin/time -o "$OUT/t" -f '%e %U %S' bash -c "${cmds[$i]}"
        b1=$(busy)
        read -r w u s <"$OUT/t"
        if [ "$r" = 0 ]; then
            printf 'warm-up  %-30s %s table(s)  %6.2f s (not counted)\n' "${names[$i]}" "${variants[$i]}" "$w"
            continue
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${names[$i]}" "${variants[$i]}" "$w" "$u" "$s" \
            "$(cut -d' ' -f1 /proc/loadavg)" "$(awk -v a="$b0" -v b="$b1" 'BEGIN { print (b - a) / 100 }')" >>"$OUT/times.tsv"
        printf 'round %d  %-30s %s table(s)  %6.2f s\n' "$r" "${names[$i]}" "${variants[$i]}" "$w"
    done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$OUT/times.tsv" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, v, w, u, s, load, busy = line.rstrip("\n").split("\t")
    runs.setdefault((v, name), []).append((float(w), float(u) + float(s), float(load), float(busy)))
print()
print("| dump | command | median wall | median client CPU | median machine CPU | runs | ratio to pg_restore -j 2 | load |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for (v, name), rs in runs.items():
    w = statistics.median(r[0] for r in rs)
    c = statistics.median(r[1] for r in rs)
    base = runs.get((v, "pg_restore -j 2 (-Fc)"))
    ratio = f"{w / statistics.median(r[0] for r in base):.2f}x" if base else "-"
    loads = [r[2] for r in rs]
    tables = "1 table" if v == "1" else f"{v} tables"
    m = statistics.median(r[3] for r in rs)
    print(f"| {tables} | {name} | {w:.2f} s | {c:.2f} s | {m:.2f} s | {len(rs)} | {ratio} | {min(loads):.1f}-{max(loads):.1f} |")
PY

# Every target equal to the psql -f restore of the same dump (and that one to the source, when
# this run made the dumps): per table the row count and an md5 of its rows in key order.
fingerprint() { # DB
    local q="" t
    for t in $($P -At -d "$1" -c "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"); do
        # Rows in the order of their own md5: the same for any table, keyed or not.
        q="$q SELECT '$t', count(*), md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))) FROM public.$t x UNION ALL"
    done
    # In table order: a UNION ALL's rows come in any order (a Parallel Append interleaves its
    # branches), and a target was reported different from an equal one.
    $P -At -d "$1" -c "SELECT * FROM (${q% UNION ALL}) f ORDER BY 1"
}
bad=0
echo
for v in $VARIANTS; do
    ref=$(fingerprint "psql$v")
    [ -n "$ref" ] || { echo "check: psql -f ($v table(s)): no tables" >&2; bad=1; }
    if $P -At -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'src$v'" | grep -q 1; then
        if [ "$(fingerprint "src$v")" = "$ref" ]; then
            echo "check: psql -f ($v table(s)): every table equal to the source database"
        else
            echo "check: psql -f ($v table(s)): DIFFERS from the source database" >&2
            bad=1
        fi
    fi
    for i in "${!names[@]}"; do
        [ "${variants[$i]}" = "$v" ] && [ "${dbs[$i]}" != "psql$v" ] || continue
        if [ "$(fingerprint "${dbs[$i]}")" = "$ref" ]; then
            echo "check: ${names[$i]} ($v table(s)): every table equal to the psql -f restore"
        else
            echo "check: ${names[$i]} ($v table(s)): DIFFERS from the psql -f restore" >&2
            bad=1
        fi
    done
done

# Where migrate.mk's time went (its last run): each stamp's time after the run's first file.
for v in $VARIANTS; do
  for d in mk mka mkn; do
    s=$OUT/$d$v/.stamps
    [ -d "$s" ] || continue
    t0=$(stat -c %.3Y "$s/dump.id")
    echo
    echo "migrate.mk$(case $d in mka) echo " (MK_ALT)" ;; mkn) echo ", no check" ;; esac), $v table(s), last run: seconds from the start to each step's end"
    for f in "$s"/converted "$s"/schema "$s"/*.checked "$s"/*.split "$s"/*.loaded "$s"/post-data "$s"/verified; do
        [ -e "$f" ] || continue
        printf '  %-28s %6.2f\n' "${f##*/}" "$(awk -v a="$(stat -c %.3Y "$f")" -v b="$t0" 'BEGIN { print a - b }')"
    done
  done
done
exit $bad
