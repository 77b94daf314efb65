#!/usr/bin/env bash
# csvload against `psql -f` on csvsplit's --copy-sql script, loading the DBT-2 customer CSV in
# 8 shards into an empty table of a throwaway local PostgreSQL (see docs/benchmarks.md, "csvload").
#
# Needs: hyperfine, python3, a release build (cargo build --release), PostgreSQL server
# binaries (bench/pgserver.sh finds them), and the data:
#   python3 bench/gen_customer.py 2000000 bench/data/customer.csv
# Environment: DATA (input CSV; its manifest is DATA without .csv plus .manifest.json),
# BINDIR (default $CARGO_TARGET_DIR/release), RUNS (default 3), OUT (scratch directory).
# Installs nothing. Measures wall time side by side, then the CPU seconds of one csvload -j 2
# run next to the server's (all backends, read from /proc). Shared machines give noisy numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-bench/data/customer.csv}
MANIFEST=${DATA%.csv}.manifest.json
BINDIR=$(realpath -m "${BINDIR:-${CARGO_TARGET_DIR:-target}/release}")
RUNS=${RUNS:-3}
[ -f "$DATA" ] || { echo "no $DATA: python3 bench/gen_customer.py 2000000 $DATA" >&2; exit 1; }
[ -f "$MANIFEST" ] || { echo "no $MANIFEST (gen_customer.py writes it)" >&2; exit 1; }
for b in csvload csvsplit; do
    [ -x "$BINDIR/$b" ] || { echo "no $BINDIR/$b: cargo build --release" >&2; exit 1; }
done
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 1; }
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/csvload-bench.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT" # the server user must reach its directory inside
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
pg_start "$OUT/pg"
SOCK="$OUT/pg/sock"
$PSQL -d postgres -c "CREATE DATABASE bench"
$PSQL -d bench -f bench/customer.sql >/dev/null

mkdir -p "$OUT/shards"
chmod 755 "$OUT" "$OUT/shards"
"$BINDIR/csvsplit" -n 8 -m "$MANIFEST" -t public.customer \
    -o "$OUT/shards/c-{n}.csv" --write-manifest "$OUT/shards/shards.json" --copy-sql "$DATA" \
    > "$OUT/shards/load.psql"
echo "input: $DATA ($(du -h "$DATA" | cut -f1)) in 8 shards, $(nproc) CPUs"

RESET="$PSQL -d bench -c 'TRUNCATE public.customer' -c 'DROP SCHEMA IF EXISTS dumpshard CASCADE'"
LOAD="$BINDIR/csvload -q -m $OUT/shards/shards.json -t public.customer"
DB="host=$SOCK user=postgres dbname=bench"
cd "$OUT/shards" # the --copy-sql script names the shards relative to here
# The floor: the server reading the same shards itself (server-side COPY FROM a file), in two
# sessions of four shards each, as csvload -j 2 spreads them.
chmod 644 ./*.csv
floor_copy() {
    local s=""
    for i in "$@"; do s="$s -c \"COPY public.customer FROM '$OUT/shards/c-$i.csv' (FORMAT csv)\""; done
    echo "$PSQL -d bench $s"
}
hyperfine --runs "$RUNS" --prepare "$RESET" \
    -n "COPY FROM server-side files, 2 sessions (floor)" "$(floor_copy 0 1 2 3) & $(floor_copy 4 5 6 7) & wait" \
    -n "psql -f load.psql (ON_ERROR_STOP)" "$PSQL -d bench -v ON_ERROR_STOP=1 -f load.psql" \
    -n "csvload -j 1" "$LOAD -j 1 '$DB'" \
    -n "csvload -j 2" "$LOAD -j 2 '$DB'" \
    -n "csvload -j 2 --batch-rows 20000" "$LOAD -j 2 --batch-rows 20000 '$DB'"

# CPU seconds of the server: live processes of its user plus what the postmaster collected
# from backends that have exited.
server_cpu() {
    local tck total=0 pm
    tck=$(getconf CLK_TCK)
    pm=$(head -1 "$OUT/pg/data/postmaster.pid")
    for p in $(pgrep -u "$(stat -c %U "$OUT/pg/data")"); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    total=$((total + $(awk '{print $16 + $17}' "/proc/$pm/stat")))
    echo "scale=2; $total / $tck" | bc
}
eval "$RESET" >/dev/null
before=$(server_cpu)
/usr/bin/time -f "csvload -j 2: %e s wall, %U s user + %S s system (loader CPU)" $LOAD -j 2 "$DB"
after=$(server_cpu)
echo "server CPU during that run: $(echo "$after - $before" | bc) s"
