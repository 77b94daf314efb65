#!/usr/bin/env bash
# Every tool beside its floor, measured side by side in one run (issue 22): each command runs
# RUNS times, interleaved with the others (so load changes hit them alike), and the table
# gives median wall seconds, median CPU (user + sys), the floor's median and the ratio
# tool / floor, in markdown for docs/benchmarks.md ("Floors"). The floors:
#   cp of the same file        pgdump2csv plain, csvsplit, pksort in memory
#   pigz -dc / gzip -dc        gzip input (> /dev/null); igzip -dc (ISA-L, the inflater the
#                              tools use) when the Debian package isal is installed
#   pigz -6 -p 2 alone         gzip output (compression of the same bytes, > /dev/null)
#   server-side COPY FROM      csvload (the same shards, two sessions, as csvload -j 2)
#   the record scanner alone   csvcheck (`csvcheck` structure-only)
#   the sum of the stages      the whole pipe (each stage run alone, medians added)
#
# Needs: the release binaries (cargo build --release) in BIN, pigz, gzip, python3 and
# PostgreSQL server binaries (bench/pgserver.sh finds them). Data: DATA (default
# bench/data/customer.csv from gen_customer.py, with its manifest); the dump made from it is
# kept beside it (DATA without .csv plus .dump.sql and .dump.sql.gz, gzip -6).
# SHAPE (a data shape of bench/gen_corpus.py, see bench/corpus.sh) takes the shape's main table,
# its DDL, key and dump (of all the shape's tables) instead.
# Env: RUNS (default 3), OUT (scratch directory, default a new one under $TMPDIR), ONLY (a
# regular expression: only the rows whose name matches, and their floors).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/corpus.sh
DDL=${DDL:-bench/customer.sql}
DATA=$(realpath -m "${DATA:-bench/data/customer.csv}")
MANIFEST=${DATA%.csv}.manifest.json
BIN=$(realpath -m "${BIN:-${CARGO_TARGET_DIR:-target}/release}")
RUNS=${RUNS:-3}
ONLY=${ONLY:-.}
# The default data, gen_customer's numeric-heavy table of 2M rows (issue 62), is made when
# missing (with its manifest), as bench/migrate.sh makes its dumps; a DATA given must exist.
if [ ! -f "$DATA" ] && [ -z "${SHAPE:-}" ] && [ "$DATA" = "$(realpath -m bench/data/customer.csv)" ]; then
    mkdir -p bench/data
    python3 bench/gen_customer.py 2000000 "$DATA" >/dev/null || { rm -f "$DATA" "$MANIFEST"; exit 2; }
fi
[ -f "$DATA" ] || { echo "no $DATA: python3 bench/gen_customer.py 2000000 $DATA" >&2; exit 2; }
for b in pgdump2csv csvsplit pksort csvcheck csvload; do
    [ -x "$BIN/$b" ] || { echo "no $BIN/$b: cargo build --release" >&2; exit 2; }
done
for t in pigz gzip python3; do
    command -v "$t" >/dev/null || { echo "bench/floors.sh: needs $t" >&2; exit 2; }
done
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/floors.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT"
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
pg_start "$OUT/pg"
T=${T:-public.customer}

DUMP=${DUMP:-${DATA%.csv}.dump.sql}
if [ -n "${SHAPE:-}" ] && [ ! -s "$DUMP.gz" ]; then
    gzip -6 -c "$DUMP" >"$DUMP.gz.tmp" && mv "$DUMP.gz.tmp" "$DUMP.gz"
elif [ ! -s "$DUMP" ] || [ ! -s "$DUMP.gz" ]; then
    $PSQL -d postgres -c "CREATE DATABASE src"
    $PSQL -d src -f bench/customer.sql >/dev/null
    $PSQL -d src -c "\\copy $T FROM '$DATA' CSV"
    $PG_DUMP -d src >"$DUMP.tmp" && mv "$DUMP.tmp" "$DUMP"
    gzip -6 -c "$DUMP" >"$DUMP.gz.tmp" && mv "$DUMP.gz.tmp" "$DUMP.gz"
fi
$PSQL -d postgres -c "CREATE DATABASE bench"
$PSQL -d bench -f "$DDL" >/dev/null
mkdir -p "$OUT/shards"
"$BIN/csvsplit" -q -n 8 -m "$MANIFEST" -t $T -o "$OUT/shards/c-{n}.csv" \
    --write-manifest "$OUT/shards/m.json" "$DATA"
chmod 755 "$OUT/shards"
chmod 644 "$OUT"/shards/*.csv
DB="host=$OUT/pg/sock user=postgres dbname=bench"
RESET="$PSQL -d bench -c 'TRUNCATE $T' -c 'DROP SCHEMA IF EXISTS dumpshard CASCADE'"
copies() { # the server-side COPY of shards $@, one session
    local s=""
    for i in "$@"; do s="$s -c \"COPY $T FROM '$OUT/shards/c-$i.csv' (FORMAT csv)\""; done
    echo "$PSQL -d bench $s"
}
K=${K:-'-k 3:int,2:int,1:int'}
P="rm -rf $OUT/o && mkdir -p $OUT/o"

# row NAME COMMAND PREPARATION (untimed); COMMAND may be a pipe.
names=() cmds=() preps=()
row() { names+=("$1"); cmds+=("$2"); preps+=("$3"); }
row "cp dump.sql" "cp $DUMP $OUT/o/d.sql" "$P"
row "pgdump2csv dump.sql" "$BIN/pgdump2csv -q $DUMP -o $OUT/o/csv" "$P"
row "pgdump2csv dump.sql -j 1" "$BIN/pgdump2csv -q -j 1 $DUMP -o $OUT/o/csv" "$P"
row "pgdump2csv dump.sql -j 2" "$BIN/pgdump2csv -q -j 2 $DUMP -o $OUT/o/csv" "$P"
row "pigz -dc dump.sql.gz" "pigz -dc $DUMP.gz > /dev/null" "true"
row "gzip -dc dump.sql.gz" "gzip -dc $DUMP.gz > /dev/null" "true"
row "pgdump2csv dump.sql.gz -j 1" "$BIN/pgdump2csv -q -j 1 $DUMP.gz -o $OUT/o/csv" "$P"
row "pgdump2csv dump.sql.gz -j 2" "$BIN/pgdump2csv -q -j 2 $DUMP.gz -o $OUT/o/csv" "$P"
# The inflate alone, one core each: ISA-L's igzip (Debian package isal; the inflater the tools
# use by default) and the tools' reference inflate, zlib-rs (DUMPSHARD_GZIP=zlib).
command -v igzip >/dev/null && row "igzip -dc dump.sql.gz" "igzip -dc $DUMP.gz > /dev/null" "true"
row "pgdump2csv dump.sql.gz -j 2 zlib-rs" "DUMPSHARD_GZIP=zlib $BIN/pgdump2csv -q -j 2 $DUMP.gz -o $OUT/o/csv" "$P"
row "cp csv" "cp $DATA $OUT/o/c.csv" "$P"
row "csvsplit -b 64M" "$BIN/csvsplit -q -b 64M -o $OUT/o/p-{n:04}.csv $DATA" "$P"
row "csvsplit -n 8" "$BIN/csvsplit -q -n 8 -o $OUT/o/p-{n:04}.csv $DATA" "$P"
row "pksort in memory" "$BIN/pksort -q $K -S 2G -o $OUT/o/s.csv $DATA" "$P"
row "pigz -6 -p 2 csv" "pigz -6 -p 2 -c $DATA > /dev/null" "true"
row "csvsplit -b 64M .gz -j 2" "$BIN/csvsplit -q -b 64M -j 2 -o $OUT/o/p-{n:04}.csv.gz $DATA" "$P"
row "csvcheck structure" "$BIN/csvcheck -q -j 2 $DATA" "true"
row "csvcheck typed + key" "$BIN/csvcheck -q -j 2 --ddl $DDL --table ${T#public.} $DATA" "true"
row "COPY FROM server file, 2 sessions" "$(copies 0 1 2 3) & $(copies 4 5 6 7) & wait" "$RESET"
row "csvload -j 2" "$BIN/csvload -q -j 2 -m $OUT/shards/m.json -t $T '$DB'" "$RESET"
row "stage: pgdump2csv dump.sql.gz -t" "$BIN/pgdump2csv -q $DUMP.gz -t $T > $OUT/c.csv" "true"
row "stage: pksort" "$BIN/pksort -q $K -S 2G $OUT/c.csv -o $OUT/s.csv" "rm -f $OUT/s.csv"
row "stage: csvsplit -b 64M .gz" "$BIN/csvsplit -q -b 64M -o $OUT/o/g-{n:04}.csv.gz $OUT/s.csv" "$P"
row "whole pipe" "$BIN/pgdump2csv -q $DUMP.gz -t $T | $BIN/pksort -q $K -S 2G | $BIN/csvsplit -q -b 64M -o $OUT/o/g-{n:04}.csv.gz" "$P"
# tool | floor (a row name, or "sum:" and the rows whose medians add up)
pairs=(
    "pgdump2csv dump.sql|cp dump.sql"
    "pgdump2csv dump.sql -j 1|cp dump.sql"
    "pgdump2csv dump.sql -j 2|cp dump.sql"
    "pgdump2csv dump.sql.gz -j 1|pigz -dc dump.sql.gz"
    "pgdump2csv dump.sql.gz -j 2|pigz -dc dump.sql.gz"
    "pgdump2csv dump.sql.gz -j 2|gzip -dc dump.sql.gz"
    "pgdump2csv dump.sql.gz -j 2|igzip -dc dump.sql.gz"
    "pgdump2csv dump.sql.gz -j 2 zlib-rs|pigz -dc dump.sql.gz"
    "csvsplit -b 64M|cp csv"
    "csvsplit -n 8|cp csv"
    "pksort in memory|cp csv"
    "csvsplit -b 64M .gz -j 2|pigz -6 -p 2 csv"
    "csvcheck typed + key|csvcheck structure"
    "csvload -j 2|COPY FROM server file, 2 sessions"
    "whole pipe|sum:stage: pgdump2csv dump.sql.gz -t,stage: pksort,stage: csvsplit -b 64M .gz"
)

# The rows to run: those matching ONLY, and the floors of the tools matching it.
declare -A want=()
for p in "${pairs[@]}"; do
    IFS='|' read -r tool floor <<<"$p"
    [[ $tool =~ $ONLY ]] || continue
    want[$tool]=1
    IFS=',' read -ra fs <<<"${floor#sum:}"
    for f in "${fs[@]}"; do want[$f]=1; done
done
cat "$DATA" "$DUMP" "$DUMP.gz" >/dev/null # page cache
echo "input: $DATA ($(du -h "$DATA" | cut -f1)), dump $(du -h "$DUMP" | cut -f1), gz $(du -h "$DUMP.gz" | cut -f1); $(nproc) CPUs; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$OUT/times.tsv"
for ((r = 1; r <= RUNS; r++)); do
    for i in "${!names[@]}"; do
        name=${names[$i]} cmd=${cmds[$i]} prep=${preps[$i]}
        [[ -n ${want[$name]:-} || $name =~ $ONLY ]] || continue
        bash -c "$prep" >/dev/null
        /usr/bin/time -o "$OUT/t" -f '%e %U %S' bash -o pipefail -c "$cmd" >/dev/null
        read -r w u s <"$OUT/t"
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$w" "$u" "$s" "$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/times.tsv"
    done
done
echo "load at end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUT/times.tsv" "${pairs[@]}" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, w, u, s, load = line.rstrip("\n").split("\t")
    runs.setdefault(name, []).append((float(w), float(u) + float(s), float(load)))
def med(name, i):
    return statistics.median(r[i] for r in runs[name])
print("| tool | median wall | CPU | floor | floor wall | floor CPU | ratio (wall) | load |")
print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
for pair in sys.argv[2:]:
    tool, floor = pair.split("|")
    if tool not in runs:
        continue
    if floor.startswith("sum:"):
        parts = floor[4:].split(",")
        if not all(p in runs for p in parts):
            continue
        fw = sum(med(p, 0) for p in parts)
        fc = sum(med(p, 1) for p in parts)
        fname = "sum of its stages alone"
    else:
        if floor not in runs:
            continue
        fw, fc, fname = med(floor, 0), med(floor, 1), floor
    w = med(tool, 0)
    loads = [r[2] for r in runs[tool]]
    print(f"| {tool} | {w:.2f} s | {med(tool, 1):.2f} s | {fname} | {fw:.2f} s | {fc:.2f} s | {w / fw:.2f}x | {min(loads):.1f}-{max(loads):.1f} |")
PY
