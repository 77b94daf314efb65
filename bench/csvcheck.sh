#!/usr/bin/env bash
# csvcheck speed on the DBT-2 customer CSV (2M rows, 21 typed columns, composite key),
# side by side with DuckDB read_csv with the same column types and store_rejects.
#
# Needs: hyperfine; python3 with the duckdb package (pip install duckdb); a release build
# (cargo build --release; set CARGO_TARGET_DIR if you use one); the data
# (python3 bench/gen_customer.py 2000000 bench/data/customer.csv). Installs nothing.
# Knobs: DATA=path THREADS=2 RUNS=3, SHAPE (a data shape of bench/gen_corpus.py, bench/corpus.sh:
# its main table, DDL and manifest; DuckDB gets the column types from the manifest).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/corpus.sh
DDL=${DDL:-bench/customer.sql} TABLE=${TABLE:-customer}
DATA=${DATA:-bench/data/customer.csv}
BIN=${CARGO_TARGET_DIR:-target}/release/csvcheck
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
for t in hyperfine python3; do
    command -v "$t" >/dev/null || { echo "bench/csvcheck.sh: needs $t" >&2; exit 2; }
done
python3 -c 'import duckdb' 2>/dev/null \
    || { echo "bench/csvcheck.sh: needs the duckdb Python package (pip install duckdb)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "bench/csvcheck.sh: build first (cargo build --release)" >&2; exit 2; }
[ -f "$DATA" ] || { echo "bench/csvcheck.sh: generate $DATA first (bench/gen_customer.py)" >&2; exit 2; }
size=$(stat -L -c %s "$DATA")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "input: $DATA ($size bytes), threads: $THREADS, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$DATA" >/dev/null # page cache
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$out/r.json" \
    -n "csvcheck typed+pk" "$BIN --ddl $DDL --table $TABLE -j $THREADS -q $DATA" \
    -n "csvcheck typed, no pk" "$BIN --ddl $DDL --table $TABLE --no-key-check -j $THREADS -q $DATA" \
    -n "csvcheck structure" "$BIN -j $THREADS -q $DATA" \
    -n "duckdb typed+rejects" "python3 bench/csvcheck_duckdb.py $DATA $THREADS ${SHAPE:+$MANIFEST}"
python3 - "$out/r.json" "$size" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2])
med = {r["command"]: r["median"] for r in res}
for name, m in med.items():
    print(f"{name:24s} median {m:6.2f} s  {size / m / 1e6:7.0f} MB/s")
duck = med["duckdb typed+rejects"]
# The floor of a typed check: the record scanner alone (the structure-only pass).
print(f"csvcheck typed+pk / structure only (floor): {med['csvcheck typed+pk'] / med['csvcheck structure']:.2f}x")
print(f"duckdb / csvcheck typed+pk: {duck / med['csvcheck typed+pk']:.1f}x")
PY
