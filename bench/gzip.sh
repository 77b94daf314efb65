#!/usr/bin/env bash
# Which inflate for a gzip file (src/io/input.rs, `PAR_MIN_THREADS`): pgdump2csv -j 2 of one
# dump compressed three ways (one gzip -6 stream; pigz -6, one member with sync-flushed
# blocks; gzip -6 members of 1 MiB, as pgdump2csv --gzip and bgzip-like writers make), with each
# inflate the tools can take (DUMPSHARD_GZIP: isal = ISA-L on one thread, the default below
# PAR_MIN_THREADS; par = rapidgzip-core on the -j threads; zlib = flate2 on zlib-rs, the
# reference), beside the floors `igzip -dc` and `pigz -dc` > /dev/null.
#
#   DUMP=bench/data/half/customer.dump.sql BIN=target/release RUNS=5 bash bench/gzip.sh
#
# Needs hyperfine, pigz, gzip, igzip (Debian package isal) and a release build in BIN. The
# compressed files are made once beside DUMP. Output goes to a scratch directory on the same
# disk as DUMP's directory (OUT), removed at the end.
set -euo pipefail
. "$(dirname "$0")/corpus.sh" # SHAPE: a data shape's dump (bench/gen_corpus.py)
DUMP=${DUMP:-bench/data/half/customer.dump.sql}
BIN=${BIN:-target/release}
RUNS=${RUNS:-5}
for t in hyperfine pigz gzip igzip; do
    command -v "$t" >/dev/null || { echo "bench/gzip.sh: needs $t" >&2; exit 2; }
done
[ -s "$DUMP" ] || { echo "bench/gzip.sh: no dump at $DUMP (bench/floors.sh makes one)" >&2; exit 2; }
[ -s "$DUMP.gz" ] || gzip -6 -c "$DUMP" >"$DUMP.gz"
[ -s "$DUMP.pigz.gz" ] || pigz -6 -p 2 -c "$DUMP" >"$DUMP.pigz.gz"
[ -s "$DUMP.members.gz" ] || split -b 1M --filter='gzip -6' "$DUMP" >"$DUMP.members.gz"
OUT=$(mktemp -d "$(dirname "$DUMP")/gzip-bench.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
echo "dump $(du -h "$DUMP" | cut -f1); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for kind in gz pigz.gz members.gz; do
    f=$DUMP.$kind
    args=()
    for path in isal par zlib; do
        args+=(-n "pgdump2csv -j 2 $path" "DUMPSHARD_GZIP=$path $BIN/pgdump2csv -q -j 2 $f -o $OUT/o")
    done
    echo "## $kind ($(du -h "$f" | cut -f1))"
    hyperfine -w 1 -r "$RUNS" --prepare "rm -rf $OUT/o" --export-markdown "$OUT/$kind.md" \
        -n "igzip -dc" "igzip -dc $f > /dev/null" \
        -n "pigz -dc" "pigz -dc $f > /dev/null" \
        "${args[@]}" >/dev/null
    cat "$OUT/$kind.md"
done
