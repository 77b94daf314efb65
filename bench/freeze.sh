#!/usr/bin/env bash
# What loading a table frozen saves the server (csvload's COPY ... FREEZE, docs/csvload.md
# "Loaded frozen"): each table of bench/migrate.sh's three-table dump, converted once by
# pgdump2csv, loaded by the server itself (`COPY ... FROM` the file, so no client's CPU is
# in the figures) into an empty table, plain and then frozen (`BEGIN; TRUNCATE; COPY ...
# (FREEZE); COMMIT`), then its primary key built and the table counted twice. Seconds of
# each step, per round.
#
#   SHAPE=all ROWS=1000000 RUNS=3 bash bench/freeze.sh
#
# Needs the dump bench/migrate.sh makes (bench/data/migrate-SHAPE-ROWS/dump3.sql: run it
# once with the same SHAPE and ROWS) and a release build (BINDIR, default target/release).
# The CSV goes under OUT (default a temporary directory on the VM's disk).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pgserver.sh
SHAPE=${SHAPE:-all}
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-3}
BINDIR=$(realpath -m "${BINDIR:-target/release}")
DUMP=bench/data/migrate-$SHAPE-$ROWS/dump3.sql
[ -s "$DUMP" ] || { echo "bench/freeze.sh: no $DUMP: run SHAPE=$SHAPE ROWS=$ROWS bash bench/migrate.sh first" >&2; exit 2; }
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/var/tmp}/freeze.XXXXXX")}")
mkdir -p "$OUT"
trap 'pg_stop; rm -rf "$OUT"' EXIT
"$BINDIR/pgdump2csv" -q -o "$OUT/csv" --write-schema "$OUT/schema.sql" \
    --write-post-data "$OUT/post.sql" --write-manifest "$OUT/manifest.json" -- "$DUMP"
# The server runs as another user when this runs as root: it reads the CSV files itself.
chmod 755 "$OUT" "$OUT/csv"
chmod 644 "$OUT"/csv/*.csv
pg_start "$OUT/pg"
export PGHOST=$OUT/pg/sock PGUSER=postgres PGOPTIONS="-c client_min_messages=warning"
$PSQL -d postgres -c "ALTER SYSTEM SET autovacuum = off" -c "SELECT pg_reload_conf()" >/dev/null
$PSQL -d postgres -c "CREATE DATABASE f"
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
for r in $(seq "$RUNS"); do
    for f in "$OUT"/csv/*.csv; do
        t=$(basename "$f" .csv)     # schema.table
        name=${t#*.}
        # The table's CREATE TABLE and its primary key, from pgdump2csv's scripts.
        create=$(sed -n "/^CREATE TABLE $t (/,/^);/p" "$OUT/schema.sql")
        key=$(grep -A1 "^ALTER TABLE ONLY $t\$" "$OUT/post.sql" | tail -n1 | sed 's/;$//')
        for mode in plain freeze; do
            $PSQL -d f -c "DROP TABLE IF EXISTS $t" -c "$create" >/dev/null
            $PSQL -d f -c CHECKPOINT
            sync
            a=$(now)
            if [ $mode = plain ]; then
                $PSQL -d f -c "COPY $t FROM '$f' (FORMAT csv)" >/dev/null
            else
                $PSQL -d f -c BEGIN -c "TRUNCATE $t" -c "COPY $t FROM '$f' (FORMAT csv, FREEZE)" -c COMMIT >/dev/null
            fi
            b=$(now)
            $PSQL -d f -c "ALTER TABLE ONLY $t $key" >/dev/null
            c=$(now)
            $PSQL -d f -c "SELECT count(*) FROM ONLY $t" >/dev/null
            d=$(now)
            $PSQL -d f -c "SELECT count(*) FROM ONLY $t" >/dev/null
            e=$(now)
            printf 'round %d  %-10s %-6s copy %6.3f s  key %6.3f s  count %6.3f s  again %6.3f s\n' \
                "$r" "$name" "$mode" "$(secs "$a" "$b")" "$(secs "$b" "$c")" "$(secs "$c" "$d")" "$(secs "$d" "$e")"
        done
    done
done
