#!/usr/bin/env bash
# pksort with a fixed memory budget on 1x and 4x the data (issue 22's goal: time at most 4.8x,
# memory under 256 MB), with `cp` of each input to the same disk as the floor, interleaved
# rounds, medians. Not a test: prints a table.
#
#   RUNS=3 bash bench/pksort_4x.sh
#
# Needs: GNU time (/usr/bin/time), perl, python3, `cargo build --release` done.
# Input: DATA (default bench/data/customer.csv from gen_customer.py 2000000; its manifest
# beside it). The 4x file is DATA four times over, copy k with c_w_id (the third column)
# shifted by 67k so every key stays distinct (gen_customer.py's 2M rows use warehouses 1..67).
# It is made once as $OUT/x4.csv (2.4 GB) and kept for later runs; remove it when done.
# Env: OUT (a real disk; default bench/out), MEM (default 128M), THREADS (default 2), RUNS.
# WARM=GB first touches that much anonymous memory once (see docs/benchmarks.md: on a fresh
# VM the first touch of a guest page costs system time, so a run that needs more page cache
# than earlier runs freed pays for pages a long-running machine would not).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-bench/data/customer.csv}
MANIFEST=${DATA%.csv}.manifest.json
PKSORT=${PKSORT:-${CARGO_TARGET_DIR:-target}/release/pksort}
MEM=${MEM:-128M}
THREADS=${THREADS:-2}
RUNS=${RUNS:-3}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
[ -f "$DATA" ] || python3 bench/gen_customer.py 2000000 "$DATA"
X4=$OUT/x4.csv
if [ ! -s "$X4" ]; then
    for k in 0 1 2 3; do
        perl -pe 'BEGIN { $o = 67 * '"$k"' } s/^(\d+,\d+,)(\d+)/$1 . ($2 + $o)/e if $o' "$DATA"
    done > "$X4"
fi
if [ -n "${WARM:-}" ]; then
    python3 -c "
import mmap
n = int(${WARM} * (1 << 30)); m = mmap.mmap(-1, n)
for i in range(0, n, 4096): m[i] = 1
"
fi

t=$(mktemp -d)
trap 'rm -rf "$t" "$OUT/pksort-4x.out" "$OUT/cp-4x.out"' EXIT
# run NAME CMD...: one timed run, "wall user sys rss_kb" appended to $t/NAME.
run() {
    local name=$1; shift
    sync
    /usr/bin/time -o "$t/one" -f '%e %U %S %M' "$@"
    cat "$t/one" >> "$t/$name"
}
pk=("$PKSORT" -q -m "$MANIFEST" -j "$THREADS" -S "$MEM" --temporary-directory "$OUT" --force)
for ((r = 1; r <= RUNS; r++)); do
    rm -f "$OUT/pksort-4x.out" "$OUT/cp-4x.out"
    run cp1 cp "$DATA" "$OUT/cp-4x.out"; rm -f "$OUT/cp-4x.out"
    run pk1 "${pk[@]}" -o "$OUT/pksort-4x.out" "$DATA"; rm -f "$OUT/pksort-4x.out"
    run cp4 cp "$X4" "$OUT/cp-4x.out"; rm -f "$OUT/cp-4x.out"
    run pk4 "${pk[@]}" -o "$OUT/pksort-4x.out" "$X4"; rm -f "$OUT/pksort-4x.out"
done
# med NAME FIELD: the median of one field over the runs.
med() { cut -d' ' -f"$2" "$t/$1" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
printf '%-28s %8s %8s %8s %9s\n' command wall user sys 'RSS MB'
for n in cp1 pk1 cp4 pk4; do
    case $n in
        cp1) label="cp (1x)";; pk1) label="pksort -S $MEM (1x)";;
        cp4) label="cp (4x)";; pk4) label="pksort -S $MEM (4x)";;
    esac
    printf '%-28s %8s %8s %8s %9d\n' "$label" "$(med $n 1)" "$(med $n 2)" "$(med $n 3)" "$(($(med $n 4) / 1024))"
done
awk -v a="$(med pk4 1)" -v b="$(med pk1 1)" -v c="$(med cp4 1)" -v d="$(med cp1 1)" \
    'BEGIN { printf "pksort 4x/1x: %.2fx (goal <= 4.8x); cp 4x/1x: %.2fx\n", a / b, c / d }'
