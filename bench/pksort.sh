#!/usr/bin/env bash
# pksort vs DuckDB vs GNU sort on the DBT-2 customer CSV (2M rows, ~600 MB, random key order,
# some quoted newlines), side by side in one run. Not a test: prints medians, ratios, peak RSS.
#
# Needs: hyperfine, GNU time (/usr/bin/time), GNU sort, python3 with duckdb (pip install
# duckdb), and `cargo build --release` done. Generates bench/data/customer.csv if missing.
# Env: SHAPE (a data shape of bench/gen_corpus.py, bench/corpus.sh: its main table and key), DATA (input CSV), PKSORT (binary), MEM (budget for all three, default 2G),
# THREADS (default 2), RUNS (default 3), REPLACE (1: outputs replace the last run's).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/corpus.sh
SORTKEY=${SORTKEY:--k3,3n -k2,2n -k1,1n}
DATA=${DATA:-bench/data/customer.csv}
MANIFEST=${DATA%.csv}.manifest.json
PKSORT=${PKSORT:-${CARGO_TARGET_DIR:-target}/release/pksort}
MEM=${MEM:-2G}
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
OUT=bench/out
mkdir -p "$OUT"
[ -f "$DATA" ] || python3 bench/gen_customer.py 2000000 "$DATA"
python3 -c 'import duckdb' || { echo "needs: pip install duckdb" >&2; exit 2; }

pk="$PKSORT -m $MANIFEST -j $THREADS"
# Each run writes a new file, as a pipeline does. REPLACE=1 keeps the last run's outputs, so
# every run replaces an existing file; on ext4 that flushes the new file's dirty pages at the
# rename (pksort) or close (sort), which costs pksort about a quarter of its time here.
prep="rm -f $OUT/pksort.csv $OUT/pksort64.csv $OUT/duckdb.csv $OUT/sort.csv $OUT/cp.csv"
[ "${REPLACE:-0}" = 1 ] && prep=true
hyperfine --warmup 1 --runs "$RUNS" --prepare "$prep" --export-json "$OUT/pksort.json" \
    -n "pksort -S $MEM" "$pk -S $MEM --temporary-directory $OUT --force -o $OUT/pksort.csv $DATA" \
    -n "pksort -S 64M" "$pk -S 64M --temporary-directory $OUT --force -o $OUT/pksort64.csv $DATA" \
    -n "duckdb" "python3 bench/duckdb_sort.py $DATA $OUT/duckdb.csv $THREADS $MEM ${SHAPE:+$MANIFEST}" \
    -n "GNU sort" "LC_ALL=C sort -t, $SORTKEY --parallel=$THREADS -S $MEM -T $OUT -o $OUT/sort.csv $DATA" \
    -n "cp (floor)" "cp $DATA $OUT/cp.csv"

mb=$(( $(stat -L -c %s "$DATA") / 1000000 ))
python3 - "$OUT/pksort.json" "$mb" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
mb = int(sys.argv[2])
base = res[next(iter(res))]["median"]
for name, r in res.items():
    m = r["median"]
    print(f"{name:16} median {m:6.2f} s  {mb / m:6.0f} MB/s  {m / base:5.2f}x the time of pksort")
PY

echo "peak RSS (KB):"
for cmd in "$pk -S $MEM --temporary-directory $OUT --force -o $OUT/pksort.csv $DATA" "$pk -S 64M --temporary-directory $OUT --force -o $OUT/pksort64.csv $DATA" \
           "python3 bench/duckdb_sort.py $DATA $OUT/duckdb.csv $THREADS $MEM ${SHAPE:+$MANIFEST}" \
           "env LC_ALL=C sort -t, $SORTKEY --parallel=$THREADS -S $MEM -T $OUT -o $OUT/sort.csv $DATA"; do
    /usr/bin/time -f "%M  $cmd" $cmd 2>&1 >/dev/null | tail -1
done

echo "checks:"
cmp "$OUT/pksort.csv" "$OUT/pksort64.csv" && echo "pksort in memory = pksort -S 64M"
$pk --check "$OUT/pksort.csv" && echo "pksort output: sorted, unique"
echo "sizes (input, pksort, duckdb, GNU sort): $(stat -L -c %s "$DATA" "$OUT/pksort.csv" "$OUT/duckdb.csv" "$OUT/sort.csv" | tr '\n' ' ')"
echo -n "GNU sort output: "; $pk --check "$OUT/sort.csv" 2>&1 | head -1 || true
echo -n "DuckDB output byte-identical to pksort's: "; cmp -s "$OUT/duckdb.csv" "$OUT/pksort.csv" && echo yes || echo "no ($(cmp "$OUT/duckdb.csv" "$OUT/pksort.csv" | head -1))"
