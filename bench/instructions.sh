#!/usr/bin/env bash
# Instructions per tool and data shape (callgrind, one thread): a load-proof A/B of the hot
# paths on the corpus of bench/gen_corpus.py, where wall time on a shared machine is noise.
# Prints, per tool and shape, the instructions, the instructions per input byte and the ratio
# to the clean shape's per byte (issue 36's goal: quote-dense data at most 1.25x clean).
#
#   BINS="main=/work/main/target/release new=target/release" ROWS=20000 bash bench/instructions.sh
#
# Env: BINS (name=dir pairs of release binaries, default target/release), SHAPES (default
# "clean quoted json notes"), ROWS (corpus size, default 20000: a few MB, seconds under
# callgrind), TOOLS (default "pgdump2csv csvsplit csvcheck pksort"). Needs valgrind, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BINS=${BINS:-new=${CARGO_TARGET_DIR:-target}/release}
SHAPES=${SHAPES:-clean quoted json notes}
TOOLS=${TOOLS:-pgdump2csv csvsplit csvcheck pksort}
ROWS=${ROWS:-20000}
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind" >&2; exit 2; }
OUT=$(mktemp -d "${TMPDIR:-/tmp}/instructions.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
ir() { # the instructions of one command (all its threads)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf 'bins\ttool\tshape\tinstructions\tbytes\n' >"$OUT/ir.tsv"
for shape in $SHAPES; do
    ( SHAPE=$shape; . bench/corpus.sh
      for b in $BINS; do
        name=${b%%=*} bin=${b#*=}
        for tool in $TOOLS; do
            rm -rf "$OUT/o"; mkdir -p "$OUT/o"
            case $tool in
            pgdump2csv) n=$(ir "$bin/pgdump2csv" -q -j 1 "$DUMP" -o "$OUT/o"); bytes=$(stat -c %s "$DUMP") ;;
            csvsplit) n=$(ir "$bin/csvsplit" -q -j 1 -b 1M -o "$OUT/o/p-{n}.csv" "$DATA"); bytes=$(stat -c %s "$DATA") ;;
            csvcheck) n=$(ir "$bin/csvcheck" -q -j 1 --ddl "$DDL" --table "$TABLE" "$DATA"); bytes=$(stat -c %s "$DATA") ;;
            csvcheck-structure) n=$(ir "$bin/csvcheck" -q -j 1 "$DATA"); bytes=$(stat -c %s "$DATA") ;;
            pksort) n=$(ir "$bin/pksort" -q -j 1 $K -S 1G -o "$OUT/o/s.csv" "$DATA"); bytes=$(stat -c %s "$DATA") ;;
            esac
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$shape" "$n" "$bytes" >>"$OUT/ir.tsv"
        done
      done )
done
python3 - "$OUT/ir.tsv" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
per = {(b, t, s): int(n) / int(by) for b, t, s, n, by in rows}
print("| binaries | tool | shape | instructions | per input byte | per byte / clean's |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for b, t, s, n, by in rows:
    base = per.get((b, t, "clean"))
    ratio = f"{per[(b, t, s)] / base:.2f}x" if base else "-"
    print(f"| {b} | {t} | {s} | {int(n):,} | {per[(b, t, s)]:.2f} | {ratio} |")
PY
