#!/usr/bin/env bash
# CPU cost of csvload's stall watchdog (--io-timeout) and retry machinery when nothing fails:
# one generated file loaded with --io-timeout 0 (watchdog off) and with the default, alternating,
# RUNS times each, into a throwaway local PostgreSQL (bench/pgserver.sh). Prints user, sys and
# wall seconds per run (see docs/csvload.md, "Stalled connections").
# Environment: BINDIR (default $CARGO_TARGET_DIR/release; target/debug for a dev build),
# ROWS (default 1000000), RUNS (default 3), OUT (scratch directory). Installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
BINDIR=$(realpath -m "${BINDIR:-${CARGO_TARGET_DIR:-target}/release}")
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-3}
[ -x "$BINDIR/csvload" ] || { echo "no $BINDIR/csvload: cargo build --release" >&2; exit 1; }
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/csvload-io.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT"
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
python3 - "$OUT" "$ROWS" <<'PY'
import json, sys
out, rows = sys.argv[1], int(sys.argv[2])
with open(f"{out}/t.csv", "w") as f:
    for i in range(1, rows + 1):
        f.write(f'{i},"value {i} some text to make the row longer"\n')
cols = [{"name": "id", "type": "integer", "not_null": True},
        {"name": "v", "type": "text", "not_null": False}]
json.dump({"format": "dumpshard-manifest", "version": 1,
           "tables": [{"schema": "public", "name": "t", "file": "t.csv", "columns": cols,
                       "rows": rows, "bytes": 0, "header": False, "null": ""}]},
          open(f"{out}/m.json", "w"))
PY
pg_start "$OUT/pg"
$PSQL -d postgres -c "CREATE DATABASE b"
$PSQL -d b -c "CREATE TABLE t (id int, v text)"
DB="host=$OUT/pg/sock user=postgres dbname=b"
echo "$ROWS rows ($(du -h "$OUT/t.csv" | cut -f1)), $BINDIR/csvload -j 1 --batch-rows 100000"
TIMEFORMAT='%U %S %R'
for _ in $(seq "$RUNS"); do
    for io in 0 5min; do
        $PSQL -d b -c 'TRUNCATE t' -c 'DROP SCHEMA IF EXISTS dumpshard CASCADE' >/dev/null 2>&1
        echo -n "--io-timeout $io: user sys wall: "
        { time "$BINDIR/csvload" -q -m "$OUT/m.json" -j 1 --batch-rows 100000 \
            --io-timeout "$io" "$DB"; } 2>&1
    done
done
