#!/usr/bin/env bash
# docs/scale-out.md run for real on one machine: an S3-compatible server on loopback (moto's
# server mode) is the bucket, the AWS CLI is the uploader and downloader, GNU parallel runs
# the per-range sorts (examples/sort-range.sh) as separate jobs that share nothing but the
# bucket, and csvload loads the sorted ranges into PostgreSQL; then the loaded table is
# compared with the source table (row count and an ordered md5 of every row).
# tests/scale_out.rs runs this script on small data; run alone it is a bench that prints the
# wall time of each step next to its floor.
#
# Needs: moto_server and aws (pip install 'moto[server]' awscli), parallel (apt-get install
# parallel), python3, the dumpshard binaries in BIN, and PostgreSQL server binaries
# (bench/pgserver.sh finds them) unless the databases are given.
# Env:
#   BIN      directory of the dumpshard binaries (default $CARGO_TARGET_DIR/release)
#   N        key ranges (default 4); JOBS: parallel's job slots (default 2)
#   MEM      pksort -S per range (default 256M); PART: csvsplit -b of the sorted parts (64M)
#   ROWS     rows of the generated DBT-2 customer table (default 200000)
#   DUMP, TABLE, SOURCE_DB, TARGET_DB, PSQL
#            a pg_dump file of TABLE (schema.name) and libpq conninfo strings of the database
#            it came from and of an empty target database, with the psql to query them; when
#            DUMP is unset a throwaway server is started and the customer table generated.
#   OUT      scratch directory (default: a new one under $TMPDIR, removed at the end)
# Credentials are dummies and the endpoint is 127.0.0.1: nothing leaves the machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath -m "${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}")
N=${N:-4}
JOBS=${JOBS:-2}
MEM=${MEM:-256M}
PART=${PART:-64M}
ROWS=${ROWS:-200000}
for b in pgdump2csv csvsplit pksort csvload; do
    [ -x "$BIN/$b" ] || { echo "scale-out.sh: no $BIN/$b (cargo build --release)" >&2; exit 2; }
done
for t in moto_server aws parallel python3; do
    command -v "$t" >/dev/null || { echo "scale-out.sh: needs $t on PATH" >&2; exit 2; }
done
export PATH="$BIN:$PATH"
keep_out=${OUT:+1}
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/scale-out.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT" # a throwaway server's user must reach its directory inside

moto=
cleanup() {
    [ -z "$moto" ] || { kill "$moto" 2>/dev/null || true; wait "$moto" 2>/dev/null || true; }
    if [ -n "${PGDIR_:-}" ]; then pg_stop; fi
    [ -n "$keep_out" ] || rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
declare -a ROWS_OUT=()
row() { ROWS_OUT+=("$(printf '%-64s %8.2f s' "$1" "$(awk -v a="$2" -v b="$3" 'BEGIN { print b - a }')")"); }

# --- The bucket: moto's S3 on a free loopback port, with dummy credentials. -----------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$port" >"$OUT/moto.log" 2>&1 &
moto=$!
export AWS_ACCESS_KEY_ID=dumpshard AWS_SECRET_ACCESS_KEY=dumpshard AWS_DEFAULT_REGION=us-east-1
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_SESSION_TOKEN
python3 - "$port" <<'PY'
import sys, time, urllib.request, urllib.error
for _ in range(300):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=1)
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("moto_server did not answer within 30 s")
PY
aws s3 mb s3://dumpshard >/dev/null
PREFIX=orders
BUCKET=s3://dumpshard/$PREFIX

# --- The source: the given dump, or a generated table in a throwaway server. ---------------
if [ -z "${DUMP:-}" ]; then
    . "$ROOT/bench/pgserver.sh"
    pg_start "$OUT/pg"
    $PSQL -d postgres -c "CREATE DATABASE source" -c "CREATE DATABASE target"
    $PSQL -d source -f "$ROOT/bench/customer.sql" >/dev/null
    python3 "$ROOT/bench/gen_customer.py" "$ROWS" "$OUT/customer.csv"
    $PSQL -d source -c "\\copy public.customer FROM '$OUT/customer.csv' CSV"
    rm -f "$OUT/customer.csv" "$OUT/customer.manifest.json"
    $PG_DUMP -d source | gzip -1 >"$OUT/dump.sql.gz"
    DUMP=$OUT/dump.sql.gz
    TABLE=public.customer
    SOURCE_DB="host=$OUT/pg/sock user=postgres dbname=source"
    TARGET_DB="host=$OUT/pg/sock user=postgres dbname=target"
    PSQL="$PGBIN/psql"
fi
: "${TABLE:?}" "${SOURCE_DB:?}" "${TARGET_DB:?}" "${PSQL:?}"
echo "scale-out: $DUMP ($(du -h "$DUMP" | cut -f1)), table $TABLE, $N ranges, $JOBS job slots, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Step 1, the cut (one machine): convert, cut into N key ranges, upload each as it fills. --
mkdir -p "$OUT/cut"
cd "$OUT/cut"
t0=$(now)
pgdump2csv -q "$DUMP" --write-schema schema.sql --write-post-data post.sql --write-manifest out/manifest.json -o out/csv
t1=$(now)
csv=out/$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
print(next(t["file"] for t in m["tables"] if t["schema"] + "." + t["name"] == sys.argv[2]))' out/manifest.json "$TABLE")
csvsplit -q --by-range -n "$N" -m out/manifest.json -t "$TABLE" \
    -o "$PREFIX/range-{n:02}.csv.gz" -j "$N" \
    --filter 'aws s3 cp --only-show-errors - "s3://dumpshard/$FILE"' \
    --write-manifest ranges.json --write-split-points "$PREFIX.points" "$csv"
for f in out/manifest.json ranges.json schema.sql post.sql; do
    aws s3 cp --only-show-errors "$f" "$BUCKET/$(basename "$f")"
done
t2=$(now)
row "1a pgdump2csv" "$t0" "$t1"
row "1b csvsplit --by-range -n $N --filter 'aws s3 cp' (+ manifests)" "$t1" "$t2"
[ ! -e "$PREFIX" ] || { echo "scale-out.sh: the cut wrote local shards despite --filter" >&2; exit 1; }
# Floors of the cut: copying the CSV, and uploading it as one object.
t0=$(now); cp "$csv" floor.csv; t1=$(now); rm -f floor.csv
aws s3 cp --only-show-errors "$csv" s3://dumpshard/floor.csv; t2=$(now)
aws s3 rm --only-show-errors s3://dumpshard/floor.csv
row "   floor: cp of the CSV" "$t0" "$t1"
row "   floor: aws s3 cp of the CSV (one object)" "$t1" "$t2"

# --- Step 2, the sorts: one job per range, nothing shared but the bucket. -------------------
t0=$(now)
seq -f %02g 0 $((N - 1)) |
    BUCKET=$BUCKET TABLE=$TABLE MEM=$MEM PART=$PART \
        parallel --will-cite --halt now,fail=1 -j "$JOBS" bash "$ROOT/examples/sort-range.sh"
t1=$(now)
row "2  $N x sort-range.sh (download, pksort, csvsplit -b, upload)" "$t0" "$t1"

# --- Step 3, check and load (the loader machine). -------------------------------------------
mkdir -p "$OUT/load"
cd "$OUT/load"
t0=$(now)
aws s3 sync --only-show-errors "$BUCKET/" "$PREFIX/" --exclude 'range-*'
# Every range is done (its manifest is there), holds the records the cut sent it, and is
# sorted; the ranges in order are the whole table sorted (pksort -c over their concatenation).
python3 - "$PREFIX" "$N" >files.txt <<'PY'
import json, os, sys
prefix, n = sys.argv[1], int(sys.argv[2])
cut = json.load(open(f"{prefix}/ranges.json"))
assert len(cut["shards"]) == n, f"ranges.json has {len(cut['shards'])} ranges, not {n}"
for i, shard in enumerate(cut["shards"]):
    path = f"{prefix}/sorted-{i:02}.json"
    if not os.path.exists(path):
        sys.exit(f"range {i:02}: no {path}: its sort did not finish")
    m = json.load(open(path))
    if m["records"] != shard["records"]:
        sys.exit(f"range {i:02}: the cut sent {shard['records']} records, the sort has {m['records']}")
    if not m["sorted_within_shards"]:
        sys.exit(f"range {i:02}: {path} says its parts are not sorted")
    for s in m["shards"]:
        print(os.path.join(prefix, s["file"]))
PY
tr '\n' '\0' <files.txt | xargs -0 cat | pksort -c -q -m "$PREFIX/manifest.json" -t "$TABLE"
t1=$(now)
manifests=()
for i in $(seq -f %02g 0 $((N - 1))); do manifests+=(-m "$PREFIX/sorted-$i.json"); done
csvload -q --schema "$PREFIX/schema.sql" --post-data "$PREFIX/post.sql" "${manifests[@]}" \
    -t "$TABLE" -j 2 "$TARGET_DB"
t2=$(now)
row "3a aws s3 sync + checks (records per range, pksort -c)" "$t0" "$t1"
row "3b csvload -j 2 of the sorted ranges (+ schema, post-data)" "$t1" "$t2"

# --- The loaded table against the source table. ---------------------------------------------
fp() {
    "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c \
        "SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') FROM ONLY $TABLE t"
}
src=$(fp "$SOURCE_DB")
dst=$(fp "$TARGET_DB")
printf '%s\n' "${ROWS_OUT[@]}"
echo "source: $src"
echo "target: $dst"
[ "$src" = "$dst" ] || { echo "scale-out.sh: the loaded table differs from the source" >&2; exit 1; }
echo "target = source: yes"
