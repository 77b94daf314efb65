#!/usr/bin/env bash
# csvload --verify content against the server's floor: `SELECT count(*)` plus
# `COPY (SELECT ...) TO STDOUT` of the same table piped to /dev/null, on a generated DBT-2
# customer table loaded into a throwaway local PostgreSQL (see docs/benchmarks.md,
# "csvload --verify content"). Then the client's digest throughput: CSV bytes digested (both
# sides, the files and the target's COPY text) per CPU second of csvload.
#
# Needs: hyperfine, python3, /usr/bin/time, bc, PostgreSQL server binaries (bench/pgserver.sh
# finds them), a build of csvload (release: cargo build --release; BINDIR=target/debug runs it
# on a debug build, whose figures say nothing of speed).
# Environment: ROWS (default 1000000; the data is generated into OUT), BINDIR (default
# $CARGO_TARGET_DIR/release), RUNS (default 3), OUT (scratch directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
BINDIR=$(realpath -m "${BINDIR:-${CARGO_TARGET_DIR:-target}/release}")
RUNS=${RUNS:-3}
[ -x "$BINDIR/csvload" ] || { echo "no $BINDIR/csvload: cargo build --release" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 1; }
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/verify-bench.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT" # the server user must reach its directory inside
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
python3 bench/gen_customer.py "$ROWS" "$OUT/customer.csv"
MANIFEST="$OUT/customer.manifest.json"
pg_start "$OUT/pg"
SOCK="$OUT/pg/sock"
$PSQL -d postgres -c "CREATE DATABASE bench"
$PSQL -d bench -f bench/customer.sql >/dev/null
DB="host=$SOCK user=postgres dbname=bench"
"$BINDIR/csvload" -q -j 2 -m "$MANIFEST" -t public.customer "$DB"
BYTES=$(stat -c %s "$OUT/customer.csv")
echo "table: $ROWS rows, $(echo "scale=1; $BYTES / 1000000" | bc) MB of CSV, $(nproc) CPUs"

VERIFY="$BINDIR/csvload -q --verify-only -m $MANIFEST -t public.customer"
FLOOR="$PSQL -d bench -c 'SELECT count(*) FROM public.customer' -c 'COPY (SELECT * FROM ONLY public.customer) TO STDOUT (FORMAT csv)'"
hyperfine --runs "$RUNS" \
    -n "server floor: count(*) + COPY TO STDOUT > /dev/null" "$FLOOR > /dev/null" \
    -n "csvload --verify-only (count)" "$VERIFY '$DB'" \
    -n "csvload --verify-only --verify content" "$VERIFY --verify content '$DB'"

# The client's share: csvload's own CPU seconds for digesting both sides.
/usr/bin/time -o "$OUT/time" -f "%e %U %S" $VERIFY --verify content "$DB"
read -r wall user sys < "$OUT/time"
cpu=$(echo "$user + $sys" | bc)
echo "csvload --verify content: $wall s wall, $cpu s CPU (user $user + system $sys)"
echo "digest throughput: $(echo "scale=0; 2 * $BYTES / 1000000 / $cpu" | bc) MB/s of CSV per CPU second (both sides), $(echo "scale=0; $BYTES / 1000000 / $wall" | bc) MB/s of the table's CSV in wall time"
