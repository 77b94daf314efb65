#!/usr/bin/env bash
# The design card's crates against dumpshard's own code (issue 23; figures in ARCHITECTURE.md).
# Needs release binaries in target/release (the lead's release build). A couple of minutes.
# Usage: bash bench/cards/run.sh [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
w=${1:-$(mktemp -d)}
(cd "$here" && cargo build --release --quiet)
C=$here/target/release/cards
R=$root/target/release
cd "$w"
[ -f big.csv ] || "$C" gen big.csv 200
[ -f mid.csv ] || "$C" gen mid.csv 50
mkdir -p sd
t() { /usr/bin/time -f "$1: %e s wall, %U s user, %S s sys, %M KB max RSS" "${@:2}"; }
t "cat (floor), 200 MB" cat big.csv >/dev/null
t "csv crate, read_byte_record, 200 MB" "$C" csvscan big.csv
t "csvcheck -j 1, structure only (records.rs + checks), 200 MB" "$R/csvcheck" -q -j 1 big.csv
t "extsort, 250k-record segments, 50 MB" "$C" extsort mid.csv ext.out 250000 sd
t "pksort -j 1 -S 16M, 50 MB" "$R/pksort" -k 2:int,1:int -j 1 -S 16M --temporary-directory sd -o pk1.out mid.csv
t "pksort (all CPUs), 50 MB" "$R/pksort" -k 2:int,1:int -o pk2.out mid.csv
cmp ext.out pk1.out && cmp pk1.out pk2.out && echo "outputs: the same bytes"
