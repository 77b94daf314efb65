#!/usr/bin/env bash
# Benchmark pgdump2csv against the alternatives, side by side, on a pg_dump of the 2M-row
# DBT-2 customer table (bench/gen_customer.py, seed 42, random key order).
#
#   bash bench/pgdump2csv.sh            # needs: PostgreSQL server, hyperfine, pigz, /usr/bin/time
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
bin=$PWD/target/release/pgdump2csv

if [ ! -s $data/customer.dump.sql ]; then
    [ -s $data/customer.csv ] || python3 bench/gen_customer.py "$ROWS" $data/customer.csv
    pg_start /tmp/dumpshard-bench-pg
    trap pg_stop EXIT
    $PSQL -c 'CREATE DATABASE bench' postgres
    $PSQL -f bench/customer.sql bench
    $PSQL -c "\\copy customer FROM '$data/customer.csv' CSV" bench
    $PG_DUMP bench > $data/customer.dump.sql
    pg_stop; trap - EXIT
fi
[ -s $data/customer.dump.sql.gz ] || pigz -6 -k $data/customer.dump.sql
size=$(stat -c %s $data/customer.dump.sql)
echo "dump: $((size / 1000000)) MB plain, $(( $(stat -c %s $data/customer.dump.sql.gz) / 1000000 )) MB gzipped"

pg_start /tmp/dumpshard-bench-pg
trap pg_stop EXIT
restore="$PSQL -c 'DROP DATABASE IF EXISTS r' postgres && $PSQL -c 'CREATE DATABASE r' postgres && $PSQL -f $data/customer.dump.sql r >/dev/null && $PSQL -c 'COPY public.customer TO STDOUT (FORMAT csv)' r > $out/restore.csv"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-plain.md \
    -n pgdump2csv "$bin --force $data/customer.dump.sql -o $out" \
    -n 'pgdump2csv -j 1' "$bin --force -j 1 $data/customer.dump.sql -o $out" \
    -n 'pgdump2csv -j 2' "$bin --force -j 2 $data/customer.dump.sql -o $out" \
    -n 'restore + COPY TO CSV' "$restore" \
    -n 'cp of the dump (floor)' "cp $data/customer.dump.sql $out/dump.copy"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-gzip.md \
    -n 'pgdump2csv (gzip input)' "$bin --force $data/customer.dump.sql.gz -o $out" \
    -n 'pigz -dc > /dev/null' "pigz -dc $data/customer.dump.sql.gz > /dev/null" \
    -n 'gzip -dc > /dev/null (floor, one core)' "gzip -dc $data/customer.dump.sql.gz > /dev/null"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-gzip-out.md \
    -n 'pgdump2csv --gzip -j 2' "rm -rf $out/g && $bin --gzip -j 2 $data/customer.dump.sql -o $out/g" \
    -n 'pgdump2csv --gzip -j 1' "rm -rf $out/h && $bin --gzip -j 1 $data/customer.dump.sql -o $out/h" \
    -n 'pgdump2csv, pigz -6 -p 2' "rm -rf $out/i && $bin $data/customer.dump.sql -o $out/i && pigz -6 -p 2 $out/i/*.csv" \
    -n 'pigz -6 -p 2 of the CSV alone (floor)' "pigz -6 -p 2 -c $out/public.customer.csv > /dev/null"
ls -l $out/g/*.gz $out/i/*.gz
cmp $out/g/public.customer.csv.gz $out/h/public.customer.csv.gz
uptime
for f in customer.dump.sql customer.dump.sql.gz; do
    /usr/bin/time -f "peak RSS %M KB: pgdump2csv $f" $bin --force $data/$f -o $out
done
rm -rf "$out"
