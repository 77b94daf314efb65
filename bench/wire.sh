#!/usr/bin/env bash
# What csvload sends (issue 36 item 3): the server's cost of COPY FROM the same rows as CSV,
# as COPY text and as binary COPY, per table of a corpus shape. Each table is loaded once from
# its CSV, written back by the server as COPY text and as binary, then loaded again from each
# file, RUNS rounds interleaved, into a fresh table without indexes, by a server-side
# `COPY t FROM 'file'`: no client, no network, so the figure is the server's parse and insert
# alone (wall time of the statement and the machine's busy CPU over it, /proc/stat). Medians
# per table and format, and the ratio of each format to CSV.
#
#   SHAPE=all ROWS=1000000 bash bench/wire.sh
#
# Needs: python3, PostgreSQL server binaries (bench/pgserver.sh; $PGBIN), the corpus of
# SHAPE (bench/corpus.sh makes it). Env: SHAPE (default all), ROWS (default 1000000), RUNS
# (default 5), OUT (scratch directory, removed at the end; the server reads the files there,
# so it must be readable by the server's user).
set -euo pipefail
cd "$(dirname "$0")/.."
SHAPE=${SHAPE:-all}
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-5}
. bench/corpus.sh
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wire-bench.XXXXXX")}")
mkdir -p "$OUT"
chmod 777 "$OUT" # the server writes the COPY text files there
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
pg_start "$OUT/pg"
export PGHOST=$OUT/pg/sock PGUSER=postgres
P="$PGBIN/psql -X -q -v ON_ERROR_STOP=1"
$P -d postgres -c "CREATE DATABASE w"
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
CORPUS_DIR=$(dirname "$DDL")
# The table definitions alone (no keys: the parse and the heap, not an index, are measured).
ddl() { # TABLE
    awk -v t="CREATE TABLE public.$1 (" '$0 == t { on = 1 } on { print } on && /^\);/ { exit }' "$DDL"
}
for t in $TABLES; do
    cp "$CORPUS_DIR/$t.csv" "$OUT/$t.csv"
    chmod 644 "$OUT/$t.csv"
    $P -d w -c "$(ddl "$t")"
    $P -d w -c "SET TimeZone = UTC" -c "COPY public.$t FROM '$OUT/$t.csv' (FORMAT csv, NULL '')" \
        -c "COPY public.$t TO '$OUT/$t.txt'" -c "COPY public.$t TO '$OUT/$t.bin' (FORMAT binary)" \
        -c "DROP TABLE public.$t"
done
echo "shape $SHAPE, $ROWS rows; $(nproc) CPUs; $("$PGBIN/postgres" --version)"
for t in $TABLES; do
    echo "$t: $(du -m "$OUT/$t.csv" | cut -f1) MB CSV, $(du -m "$OUT/$t.txt" | cut -f1) MB COPY text, $(du -m "$OUT/$t.bin" | cut -f1) MB COPY binary"
done
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$OUT/times.tsv"
for ((r = 1; r <= RUNS; r++)); do
    for t in $TABLES; do
        for f in csv text binary; do
            $P -d w -c "DROP TABLE IF EXISTS public.$t" -c "$(ddl "$t")" -c CHECKPOINT
            case $f in
            csv) sql="COPY public.$t FROM '$OUT/$t.csv' (FORMAT csv, NULL '')" ;;
            text) sql="COPY public.$t FROM '$OUT/$t.txt'" ;;
            binary) sql="COPY public.$t FROM '$OUT/$t.bin' (FORMAT binary)" ;;
            esac
            b0=$(busy)
            t0=$(date +%s.%N)
            $P -d w -c "SET TimeZone = UTC" -c "$sql"
            t1=$(date +%s.%N)
            b1=$(busy)
            printf '%s\t%s\t%s\t%s\n' "$t" "$f" "$(echo "$t1 - $t0" | bc)" "$(echo "($b1 - $b0) / 100" | bc -l)" >>"$OUT/times.tsv"
        done
    done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUT/times.tsv" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    t, f, w, c = line.split("\t")
    runs.setdefault((t, f), []).append((float(w), float(c)))
print()
print("| table | COPY FROM as | median wall | median machine CPU | runs | / CSV (wall) |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for (t, f), rs in runs.items():
    w = statistics.median(r[0] for r in rs)
    c = statistics.median(r[1] for r in rs)
    ratio = "-"
    if f != "csv":
        ratio = f"{w / statistics.median(r[0] for r in runs[(t, 'csv')]):.2f}x"
    print(f"| {t} | {f} | {w:.2f} s | {c:.2f} s | {len(rs)} | {ratio} |")
PY
