#!/usr/bin/env bash
# Benchmark pgdump2csv against the alternatives, side by side, on a pg_dump of the 2M-row
# DBT-2 customer table (bench/gen_customer.py, seed 42, random key order).
#
#   bash bench/pgdump2csv.sh            # needs: PostgreSQL server, hyperfine, pigz, /usr/bin/time
#   SHAPE=quoted bash bench/pgdump2csv.sh   # a data shape of bench/gen_corpus.py (bench/corpus.sh)
#
# Compares: (1) pgdump2csv on the plain dump vs restoring the dump into PostgreSQL and
# COPY ... TO STDOUT CSV; (2) pgdump2csv on the gzipped dump vs `pigz -dc > /dev/null`;
# (3) `pgdump2csv --gzip` (-j 1 and 2) vs pgdump2csv then `pigz -6 -p 2`; and reports peak RSS.
# CSV goes to a real disk as users would write it (OUT, default bench/out/pgdump2csv; not
# /dev/shm): say where you measured, and the load average (`uptime`), with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pgserver.sh
ROWS=${ROWS:-2000000}
data=bench/data
out=${OUT:-$PWD/bench/out/pgdump2csv}
mkdir -p "$data" "$out"
cargo build --release --quiet --bin pgdump2csv
bin=${CARGO_TARGET_DIR:-$PWD/target}/release/pgdump2csv
. bench/corpus.sh
dump=${DUMP:-$data/customer.dump.sql}
T=${T:-public.customer}

if [ -z "${SHAPE:-}" ] && [ ! -s $data/customer.dump.sql ]; then
    [ -s $data/customer.csv ] || python3 bench/gen_customer.py "$ROWS" $data/customer.csv
    pg_start /tmp/dumpshard-bench-pg
    trap pg_stop EXIT
    $PSQL -c 'CREATE DATABASE bench' postgres
    $PSQL -f bench/customer.sql bench
    $PSQL -c "\\copy customer FROM '$data/customer.csv' CSV" bench
    $PG_DUMP bench > $data/customer.dump.sql
    pg_stop; trap - EXIT
fi
[ -s $dump.gz ] || pigz -6 -k $dump
size=$(stat -c %s $dump)
echo "dump${SHAPE:+ (shape $SHAPE)}: $((size / 1000000)) MB plain, $(( $(stat -c %s $dump.gz) / 1000000 )) MB gzipped"

pg_start /tmp/dumpshard-bench-pg
trap pg_stop EXIT
restore="$PSQL -c 'DROP DATABASE IF EXISTS r' postgres && $PSQL -c 'CREATE DATABASE r' postgres && $PSQL -f $dump r >/dev/null && $PSQL -c 'COPY $T TO STDOUT (FORMAT csv)' r > $out/restore.csv"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-plain.md \
    -n pgdump2csv "$bin --force $dump -o $out" \
    -n 'pgdump2csv -j 1' "$bin --force -j 1 $dump -o $out" \
    -n 'pgdump2csv -j 2' "$bin --force -j 2 $dump -o $out" \
    -n 'restore + COPY TO CSV' "$restore" \
    -n 'cp of the dump (floor)' "cp $dump $out/dump.copy"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-gzip.md \
    -n 'pgdump2csv (gzip input)' "$bin --force $dump.gz -o $out" \
    -n 'pigz -dc > /dev/null' "pigz -dc $dump.gz > /dev/null" \
    -n 'gzip -dc > /dev/null (floor, one core)' "gzip -dc $dump.gz > /dev/null"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-gzip-out.md \
    -n 'pgdump2csv --gzip -j 2' "rm -rf $out/g && $bin --gzip -j 2 $dump -o $out/g" \
    -n 'pgdump2csv --gzip -j 1' "rm -rf $out/h && $bin --gzip -j 1 $dump -o $out/h" \
    -n 'pgdump2csv, pigz -6 -p 2' "rm -rf $out/i && $bin $dump -o $out/i && pigz -6 -p 2 $out/i/*.csv" \
    -n 'pigz -6 -p 2 of the CSV alone (floor)' "pigz -6 -p 2 -c $out/$T.csv > /dev/null"
ls -l $out/g/*.gz $out/i/*.gz
cmp $out/g/$T.csv.gz $out/h/$T.csv.gz
uptime
for f in $dump $dump.gz; do
    /usr/bin/time -f "peak RSS %M KB: pgdump2csv $f" $bin --force $f -o $out
done
rm -rf "$out"
