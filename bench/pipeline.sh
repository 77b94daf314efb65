#!/usr/bin/env bash
# The whole pipe (issue 13, goal 8x): from dump.sql.gz (DBT-2 customer, 2M rows) to PK-sorted
# 64 MiB gzip shards, dumpshard against the seed's recipe done correctly, side by side:
#
#   dumpshard: pgdump2csv dump.sql.gz -t public.customer | pksort -k PK | csvsplit -b 64M -o shard-{n:04}.csv.gz
#   seed:      zcat dump.sql.gz | psql (restore) ; COPY (SELECT * ... ORDER BY pk) TO STDOUT CSV
#              | split -C 64M --filter 'gzip -6'   (and a pigz -p 2 variant)
#
#   bash bench/pipeline.sh          # needs: PostgreSQL server, hyperfine, pigz, GNU split/time
#   RUNS=1 OUT=/some/disk bash bench/pipeline.sh
#
# ORDER BY in PostgreSQL is the sort that keeps quoted multi-line records whole (GNU sort on
# the CSV would tear them). split -C cuts at newlines, so a shard boundary can fall inside a
# quoted newline (1 in 500 c_data values has one): the seed's shards only concatenate to the
# right table; dumpshard's are each whole records. The check below compares the concatenated,
# decompressed shards of every command byte for byte (zcat | cmp).
#
# pksort gets the key with -k (the table's primary key c_w_id, c_d_id, c_id = columns 3, 2, 1,
# integers) because in a pipe the manifest pgdump2csv writes is not there yet when pksort
# starts; -m/-t from an earlier manifest is the same sort.
#
# Outputs go to $OUT (a real disk, not tmpfs, as a user's shards would). Then every stage is
# timed alone with /usr/bin/time (wall, user+sys, peak RSS) to show where the time goes.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/pgserver.sh
BIN=${BIN:-$PWD/target/release}
[ -n "${BIN_PREBUILT:-}" ] || cargo build --release --quiet --bin pgdump2csv --bin pksort --bin csvsplit
OUT=${OUT:-/work/bench-out/pipeline}
RUNS=${RUNS:-3}
DUMP=${DUMP:-bench/data/customer.dump}
mkdir -p "$OUT"
export TMPDIR=$OUT

# dump.sql.gz: the plain SQL of the 2M-row custom-format dump bench/pgdump2csv-archive.sh
# makes (gen_customer.py -> PostgreSQL -> pg_dump), pg_restore -f being pg_dump -Fp's output.
gz=${GZ:-$OUT/dump.sql.gz}
if [ ! -s "$gz" ]; then
    PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n1)}
    "$PGBIN/pg_restore" -f - "$DUMP" | pigz -6 > "$gz.tmp"
    mv "$gz.tmp" "$gz"
fi
echo "dump.sql.gz: $(( $(stat -c %s "$gz") / 1000000 )) MB"

pg_start "$OUT/pg"
trap pg_stop EXIT
T=public.customer
K='-k 3:int,2:int,1:int'
ds="'$BIN/pgdump2csv' -q '$gz' -t $T | '$BIN/pksort' -q $K | '$BIN/csvsplit' -q -b 64M -o '$OUT/ds/shard-{n:04}.csv.gz'"
restore="$PSQL -c 'DROP DATABASE IF EXISTS r' postgres && $PSQL -c 'CREATE DATABASE r' postgres && zcat '$gz' | $PSQL r >/dev/null"
copy="$PSQL -c 'COPY (SELECT * FROM public.customer ORDER BY c_w_id, c_d_id, c_id) TO STDOUT (FORMAT csv)' r"
seed() { # filter output-dir
    echo "$restore && $copy | split -C 64M -d -a 4 --filter '$1 > \$FILE.csv.gz' - '$OUT/$2/shard-'"
}
hyperfine --warmup 0 --runs "$RUNS" --export-json "$OUT/pipeline.json" --export-markdown bench/pipeline.md \
    --prepare "rm -rf '$OUT/ds'" \
    --prepare "rm -rf '$OUT/seed' && mkdir -p '$OUT/seed'" \
    --prepare "rm -rf '$OUT/seedp' && mkdir -p '$OUT/seedp'" \
    -n 'dumpshard: pgdump2csv | pksort | csvsplit -b 64M .gz' "$ds" \
    -n 'seed: restore, COPY ORDER BY, split -C 64M, gzip -6' "$(seed 'gzip -6' seed)" \
    -n 'seed: restore, COPY ORDER BY, split -C 64M, pigz -6 -p 2' "$(seed 'pigz -6 -p 2' seedp)"

# same records in the same order (the hyperfine runs leave the last run's shards)
for d in seed seedp; do
    cat "$OUT/ds"/shard-*.csv.gz | zcat | cmp - <(cat "$OUT/$d"/shard-*.csv.gz | zcat) && echo "shards: dumpshard = $d (zcat | cmp)"
done
echo "shards: dumpshard $(ls "$OUT/ds" | wc -l), seed $(ls "$OUT/seed" | wc -l); bytes: dumpshard $(cat "$OUT/ds"/* | wc -c), seed gzip $(cat "$OUT/seed"/* | wc -c), seed pigz $(cat "$OUT/seedp"/* | wc -c)"

python3 - "$OUT/pipeline.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
for r in res:
    print(f"{r['command']:60} median {r['median']:7.2f} s   CPU user+sys {r['user'] + r['system']:7.2f} s (mean)")
ds = res[0]
for r in res[1:]:
    print(f"ratio {r['command'][:55]:55} / dumpshard: {r['median'] / ds['median']:.2f}x wall, "
          f"{(r['user'] + r['system']) / (ds['user'] + ds['system']):.2f}x CPU (psql side only: the server's CPU is not counted)")
PY

# Where the time goes: each stage alone, one run, files on $OUT.
stage_sum=0
stage() { # name cmd
    /usr/bin/time -o "$OUT/t" -f '%e %U %S %M' sh -c "$2"
    read -r w u s m < "$OUT/t"
    case $1 in pgdump2csv*|pksort*|'csvsplit -b 64M sorted .gz'*) stage_sum=$(echo "$stage_sum + $w" | bc) ;; esac
    printf '%-52s wall %7.2f s  user+sys %7.2f s  peak RSS %7d KB  (load %s)\n' "$1" "$w" "$(echo "$u + $s" | bc)" "$m" "$(cut -d' ' -f1 /proc/loadavg)"
}
echo "stages (each alone, load average $(cut -d' ' -f1-3 /proc/loadavg)):"
rm -rf "$OUT/ds" "$OUT/seed" "$OUT/seedp"; mkdir -p "$OUT/seed"
stage 'pigz -dc dump.sql.gz > /dev/null' "pigz -dc '$gz' > /dev/null"
stage 'pgdump2csv dump.sql.gz > csv' "'$BIN/pgdump2csv' -q '$gz' -t $T > '$OUT/c.csv'"
stage 'pksort (in memory) csv > sorted' "'$BIN/pksort' -q $K '$OUT/c.csv' -o '$OUT/s.csv'"
stage 'csvsplit -b 64M sorted (plain shards)' "'$BIN/csvsplit' -q -b 64M '$OUT/s.csv' -o '$OUT/ds/p-{n:04}.csv'"
stage 'csvsplit -b 64M sorted .gz shards' "'$BIN/csvsplit' -q -b 64M '$OUT/s.csv' -o '$OUT/ds/g-{n:04}.csv.gz'"
pipe=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$OUT/pipeline.json")
echo "floor: the sum of the pipe's stages run alone (pgdump2csv + pksort + csvsplit .gz): $stage_sum s; the pipe (median above): $pipe s = $(echo "scale=2; $pipe / $stage_sum" | bc)x the sum (one run each: noisy)"
stage 'seed: restore (zcat | psql)' "$restore"
stage 'seed: COPY ORDER BY > csv' "$copy > '$OUT/seed.csv'"
stage 'seed: split -C 64M, gzip -6' "split -C 64M -d -a 4 --filter 'gzip -6 > \$FILE.csv.gz' '$OUT/seed.csv' '$OUT/seed/shard-'"
stage 'seed: split -C 64M, pigz -6 -p 2' "split -C 64M -d -a 4 --filter 'pigz -6 -p 2 > \$FILE.csv.gz' '$OUT/seed.csv' '$OUT/seed/shard-'"
rm -rf "$OUT/ds" "$OUT/seed" "$OUT/seedp" "$OUT"/*.csv "$OUT/t"
