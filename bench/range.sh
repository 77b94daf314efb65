#!/usr/bin/env bash
# Range shards on one machine: `csvsplit --by-range -n 2` then two pksorts in parallel, against
# one pksort of the whole input, on the DBT-2 customer CSV (~600 MB). Not a test: prints
# medians and the ratio, and checks that the sorted ranges, concatenated, equal the one sort
# byte for byte.
#
# Needs: hyperfine and `cargo build --release` done. Generates bench/data/customer.csv if
# missing. Env: DATA (input CSV), BIN (directory of the binaries), MEM (pksort -S, default
# 1G, per pksort: the pair gets MEM each, as on two machines), RUNS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-bench/data/customer.csv}
MANIFEST=${DATA%.csv}.manifest.json
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release}
MEM=${MEM:-1G}
RUNS=${RUNS:-3}
OUT=bench/out/range
mkdir -p "$OUT"
[ -f "$DATA" ] || python3 bench/gen_customer.py 2000000 "$DATA"

m="-m $MANIFEST -t public.customer"
split="$BIN/csvsplit --by-range -n 2 -m $MANIFEST -t public.customer -j 2 --force -o $OUT/r-{n}.csv --write-manifest $OUT/r.json $DATA"
pair="$BIN/pksort $m -j 1 -S $MEM --temporary-directory $OUT -o $OUT/s-0.csv $OUT/r-0.csv & $BIN/pksort $m -j 1 -S $MEM --temporary-directory $OUT -o $OUT/s-1.csv $OUT/r-1.csv & wait"
one="$BIN/pksort $m -j 2 -S $MEM --temporary-directory $OUT -o $OUT/whole.csv $DATA"

hyperfine --warmup 1 --runs "$RUNS" --export-json "$OUT/range.json" \
    -n "csvsplit --by-range -n 2 + 2 pksort -j 1 in parallel" "$split && { $pair; }" \
    -n "csvsplit --by-range -n 2 alone" "$split" \
    -n "pksort -j 2 of the whole input" "$one" \
    -n "cp of the input (floor)" "cp $DATA $OUT/cp.csv"

python3 - "$OUT/range.json" <<'PY'
import json, sys
res = [r for r in json.load(open(sys.argv[1]))["results"]]
for r in res:
    print(f"{r['command']:52} median {r['median']:6.2f} s")
recipe, _, one, floor = (r["median"] for r in res)
print(f"range recipe / cp of the input: {recipe / floor:.2f}x the time")
print(f"range recipe / one pksort: {recipe / one:.2f}x the time")
PY
cat "$OUT/s-0.csv" "$OUT/s-1.csv" | cmp - "$OUT/whole.csv" && echo "sorted ranges, concatenated = one pksort: yes"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print("records per range:", [s["records"] for s in m["shards"]], "non_overlapping:", m["non_overlapping"])' "$OUT/r.json"
