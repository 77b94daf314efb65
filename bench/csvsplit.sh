#!/usr/bin/env bash
# csvsplit against GNU split on the DBT-2 customer CSV (see docs/benchmarks.md, "csvsplit").
#
# Needs: hyperfine, GNU coreutils split, gzip (and pigz for the extra reference row), a
# release build (cargo build --release), and the data:
#   python3 bench/gen_customer.py 2000000 bench/data/customer.csv
# Environment: SHAPE (a data shape of bench/gen_corpus.py, see bench/corpus.sh), DATA (input CSV), CSVSPLIT (binary; default $CARGO_TARGET_DIR/release/csvsplit),
# RUNS (default 3), OUT (scratch directory on the disk to measure; default a new temp dir).
# Installs nothing. Run it on an otherwise idle machine: 2-core numbers are noisy, and with
# sched autogroup (/proc/sys/kernel/sched_autogroup_enabled) a session only gets its fair
# share of the CPUs however many threads it runs, so -j 2 cannot beat -j 1 while other
# sessions are busy (docs/benchmarks.md, "csvsplit", says how the published figures were taken).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/corpus.sh
DATA=${DATA:-bench/data/customer.csv}
BIN=${CSVSPLIT:-${CARGO_TARGET_DIR:-target}/release/csvsplit}
RUNS=${RUNS:-3}
[ -f "$DATA" ] || { echo "no $DATA: python3 bench/gen_customer.py 2000000 $DATA" >&2; exit 1; }
[ -x "$BIN" ] || { echo "no $BIN: cargo build --release" >&2; exit 1; }
for t in hyperfine split gzip; do
    command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 1; }
done
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/csvsplit-bench.XXXXXX")}
trap 'rm -rf "$OUT"' EXIT
echo "input: $DATA ($(du -h "$DATA" | cut -f1)), $(nproc) CPUs, $BIN"
cat "$DATA" >/dev/null # page cache

hf() { hyperfine --warmup 1 --runs "$RUNS" --prepare "rm -rf $OUT/s && mkdir -p $OUT/s" "$@"; }

echo "== plain shards, 64 MiB (and -n 8: eight shards of near-equal bytes)"
# cp is the floor, not a competitor: one in-kernel copy of the file into the page cache and no
# record scanning (GNU cp uses copy_file_range). No splitter can beat it on ext4, where a
# shard cannot share blocks with the input (its records do not start on block boundaries),
# so split's time over cp's is the most any splitter can gain on split here.
hf -n "cp (floor)" "cp $DATA $OUT/s/whole.csv" \
   -n "split -C 64M" "split -C 64M $DATA $OUT/s/x" \
   -n "csvsplit -b 64M" "$BIN -b 64M -o $OUT/s/p-{n:04}.csv $DATA" \
   -n "csvsplit -b 64M copy_file_range" \
      "DUMPSHARD_COPY_FILE_RANGE=1 $BIN -b 64M -o $OUT/s/p-{n:04}.csv $DATA" \
   -n "csvsplit -b 64M record scan (before the cut scan)" \
      "DUMPSHARD_CSVSPLIT_SCAN=records $BIN -b 64M -o $OUT/s/p-{n:04}.csv $DATA" \
   -n "csvsplit -b 64M --write-manifest (CRC-32 of every shard)" \
      "$BIN -b 64M -o $OUT/s/p-{n:04}.csv --write-manifest $OUT/s/m.json $DATA" \
   -n "csvsplit -n 8" "$BIN -n 8 -o $OUT/s/p-{n:04}.csv $DATA" \
   -n "csvsplit -n 8 record scan (before the cut scan)" \
      "DUMPSHARD_CSVSPLIT_SCAN=records $BIN -n 8 -o $OUT/s/p-{n:04}.csv $DATA"

echo "== gzip shards, 64 MiB (gzip level 6 everywhere)"
pigz_row=()
command -v pigz >/dev/null && pigz_row=(-n "split -C 64M --filter=pigz" \
    "split -C 64M --filter='pigz -6 > \$FILE.gz' $DATA $OUT/s/x")
hf -n "pigz -6 -p 2 alone (floor: compression of the same bytes)" "pigz -6 -p 2 -c $DATA > /dev/null" \
   -n "split -C 64M --filter=gzip" "split -C 64M --filter='gzip -6 > \$FILE.gz' $DATA $OUT/s/x" \
   "${pigz_row[@]}" \
   -n "csvsplit -b 64M .gz -j 1" "$BIN -b 64M -j 1 -o $OUT/s/p-{n:04}.csv.gz $DATA" \
   -n "csvsplit -b 64M .gz -j 2" "$BIN -b 64M -j 2 -o $OUT/s/p-{n:04}.csv.gz $DATA"

echo "== other modes, plain shards"
hf -n "cp (floor)" "cp $DATA $OUT/s/whole.csv" \
   -n "csvsplit -r 250000" "$BIN -r 250000 -o $OUT/s/p-{n:04}.csv $DATA" \
   -n "csvsplit -n 8 --by-hash 3,2,1" "$BIN -n 8 --by-hash 3,2,1 -o $OUT/s/p-{n:04}.csv $DATA"
