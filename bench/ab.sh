#!/usr/bin/env bash
# A/B of two builds of one tool on the corpus (bench/corpus.sh), per data shape, with the
# floor beside them, all interleaved by hyperfine so load changes hit each alike:
#
#   BASE=/path/to/old/release bash bench/ab.sh                 # pgdump2csv -j 2 vs cp of the dump
#   BASE=... TOOL=csvcheck SHAPES="quoted json" bash bench/ab.sh  # csvcheck typed + key, -j 2
#
# BASE: a directory holding the old build's binaries (e.g. a copy of target/release made
# before the change); NEW: the new build's (default target/release, built here). ROWS
# (default 1000000) picks bench/data/corpus-ROWS; RUNS rounds (default 15). Prints the
# medians, user CPU and, for pgdump2csv, each build's ratio to `cp` of the dump (the floor
# in docs/benchmarks.md). Outputs go to OUT (default bench/out/ab, on the disk the repo is
# on, as users would write them; not /dev/shm). Say where you ran it and the load average.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BASE:?set BASE to the directory holding the binaries of the build before the change}"
TOOL=${TOOL:-pgdump2csv}
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-15}
out=${OUT:-$PWD/bench/out/ab}
if [ -z "${NEW:-}" ]; then
    cargo build --release --quiet --bin "$TOOL"
    NEW=${CARGO_TARGET_DIR:-$PWD/target}/release
fi
command -v hyperfine >/dev/null || { echo "bench/ab.sh: needs hyperfine" >&2; exit 2; }
mkdir -p "$out"
for s in ${SHAPES:-clean quoted json notes all}; do
    env=bench/data/corpus-$ROWS/$s/env.sh
    [ -f "$env" ] || { echo "bench/ab.sh: make the corpus first: ROWS=$ROWS SHAPE=$s bash bench/corpus.sh" >&2; exit 2; }
    # shellcheck disable=SC1090
    . "$env"
    json=$out/ab-$TOOL-$s.json
    case $TOOL in
        pgdump2csv)
            hyperfine -N -w 1 -r "$RUNS" --prepare "rm -rf $out/a $out/b $out/c" \
                -n base "$BASE/pgdump2csv -q -j 2 $DUMP -o $out/a" \
                -n new "$NEW/pgdump2csv -q -j 2 $DUMP -o $out/b" \
                -n cp "cp $DUMP $out/c" --export-json "$json" >/dev/null ;;
        csvcheck)
            hyperfine -N -w 1 -r "$RUNS" \
                -n base "$BASE/csvcheck --ddl $DDL --table $TABLE -j 2 -q $DATA" \
                -n new "$NEW/csvcheck --ddl $DDL --table $TABLE -j 2 -q $DATA" \
                --export-json "$json" >/dev/null ;;
        *) echo "bench/ab.sh: TOOL is pgdump2csv or csvcheck" >&2; exit 2 ;;
    esac
    python3 - "$s" "$json" <<'PY'
import json, statistics, sys
shape, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))["results"]
med = {x["command"]: statistics.median(x["times"]) for x in r}
user = {x["command"]: x["user"] for x in r}
line = ", ".join(f"{k} {v:.3f} s (user {user[k]:.3f})" for k, v in med.items())
if "cp" in med:
    line += f" | base/cp {med['base'] / med['cp']:.2f}x, new/cp {med['new'] / med['cp']:.2f}x"
else:
    line += f" | new/base {med['new'] / med['base']:.3f}"
print(f"{shape}: {line}")
PY
done
uptime
