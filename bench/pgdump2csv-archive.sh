#!/usr/bin/env bash
# Benchmark pgdump2csv reading pg_dump archives directly (issue 8), side by side:
#  (1) the 2M-row DBT-2 customer table (bench/gen_customer.py) as `pg_dump -Fc`:
#        pgdump2csv db.dump -o out/
#        pg_restore -f - db.dump | pgdump2csv -o out/
#        pg_restore -f - db.dump > /dev/null
#  (2) a directory archive (`pg_dump -Fd`) of 4 tables of the same shape and size
#      (ROWS4 rows each): pgdump2csv -j 2 vs -j 1;
#  (3) the same 4 tables as `-Fc` and as `-Fd`, tables converted concurrently:
#        pgdump2csv -j 2 ARCHIVE -o out/
#        pg_restore -f - ARCHIVE | pgdump2csv -o out/
#        pg_restore -f - ARCHIVE > /dev/null
#  and the peak RSS of every pgdump2csv run.
#
#   bash bench/pgdump2csv-archive.sh     # needs: PostgreSQL server, hyperfine, /usr/bin/time
#
# CSV goes to a real disk as users would write it (OUT, default bench/out/pgdump2csv-archive;
# not /dev/shm). Archives are kept in bench/data between runs. Give the load average
# (`uptime`, printed at the end) and CPU user+sys with the figures: the machine may be shared.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pgserver.sh
ROWS=${ROWS:-2000000}
ROWS4=${ROWS4:-500000}
data=bench/data
out=${OUT:-$PWD/bench/out/pgdump2csv-archive}
mkdir -p "$data" "$out"
cargo build --release --quiet --bin pgdump2csv
bin=$PWD/target/release/pgdump2csv

if [ ! -s $data/customer.dump ] || [ ! -s $data/customer4.dir/toc.dat ] || [ ! -s $data/customer4.dump ]; then
    [ -s $data/customer.csv ] || python3 bench/gen_customer.py "$ROWS" $data/customer.csv
    pg_start /tmp/dumpshard-bench-archive-pg
    trap pg_stop EXIT
    $PSQL -c 'CREATE DATABASE bench' postgres
    $PSQL -f bench/customer.sql bench
    $PSQL -c "\\copy customer FROM '$data/customer.csv' CSV" bench
    rm -f $data/customer.dump
    $PG_DUMP -Fc -f $data/customer.dump bench
    for i in 1 2 3 4; do
        $PSQL -c "CREATE TABLE customer$i (LIKE customer INCLUDING ALL)" bench
        $PSQL -c "INSERT INTO customer$i SELECT * FROM customer ORDER BY random() LIMIT $ROWS4" bench
    done
    $PSQL -c 'DROP TABLE customer' bench
    rm -rf $data/customer4.dir
    $PG_DUMP -Fd -j 2 -f $data/customer4.dir bench
    rm -f $data/customer4.dump
    $PG_DUMP -Fc -f $data/customer4.dump bench
    pg_stop; trap - EXIT
fi
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n1)}
restore=$PGBIN/pg_restore
echo "customer.dump: $(( $(stat -c %s $data/customer.dump) / 1000000 )) MB; customer4.dir: $(du -sm $data/customer4.dir | cut -f1) MB; customer4.dump: $(( $(stat -c %s $data/customer4.dump) / 1000000 )) MB"

hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-archive-fc.md \
    -n 'pgdump2csv db.dump' "rm -rf $out/a && $bin $data/customer.dump -o $out/a" \
    -n 'pg_restore -f - | pgdump2csv' "rm -rf $out/b && $restore -f - $data/customer.dump | $bin -o $out/b" \
    -n 'pg_restore -f - > /dev/null' "$restore -f - $data/customer.dump > /dev/null" \
    -n 'cp of the archive (floor)' "cp $data/customer.dump $out/archive.copy"
hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-archive-dir.md \
    -n 'pgdump2csv -j 2 dir' "rm -rf $out/c && $bin -j 2 $data/customer4.dir -o $out/c" \
    -n 'pgdump2csv -j 1 dir' "rm -rf $out/d && $bin -j 1 $data/customer4.dir -o $out/d"
for a in customer4.dump customer4.dir; do
    hyperfine --warmup 1 --runs ${RUNS:-3} --export-markdown bench/pgdump2csv-archive-j2-${a#customer4.}.md \
        -n "pgdump2csv -j 2 $a" "rm -rf $out/e && $bin -j 2 $data/$a -o $out/e" \
        -n "pg_restore -f - $a | pgdump2csv" "rm -rf $out/f && $restore -f - $data/$a | $bin -o $out/f" \
        -n "pg_restore -f - $a > /dev/null" "$restore -f - $data/$a > /dev/null"
    for i in 1 2 3 4; do cmp $out/e/public.customer$i.csv $out/f/public.customer$i.csv; done
done
cmp $out/a/public.customer.csv $out/b/public.customer.csv
for args in "$data/customer.dump" "-j 1 $data/customer4.dir" "-j 2 $data/customer4.dir" \
    "-j 1 $data/customer4.dump" "-j 2 $data/customer4.dump"; do
    rm -rf $out/r
    /usr/bin/time -f "peak RSS %M KB: pgdump2csv $args" $bin $args -o $out/r
done
uptime
rm -rf "$out"
