#!/usr/bin/env bash
# Growth curves (issue 13): wall time, CPU and peak RSS of each tool and of the whole pipe at
# 0.5, 1, 2 and 4 GB of plain pg_dump input (DBT-2 customer), one run per point.
#
#   bash bench/growth.sh                 # writes bench/growth.tsv, then: python3 bench/growth_plot.py
#   SIZES="0.5 1" OUT=/some/disk bash bench/growth.sh
#
# Needs: pg_restore (any PostgreSQL client), /usr/bin/time (GNU), awk, python3.
# Input: the 2M-row dump bench/pgdump2csv-archive.sh makes (bench/data/customer.dump, -Fc, from
# gen_customer.py via PostgreSQL and pg_dump), turned back into a plain dump by pg_restore -f
# (the same SQL pg_dump -Fp writes). Each size is that dump's COPY block repeated, copy k with
# c_w_id shifted by 67k (the 2M rows use warehouses 1..67) so keys stay distinct, cut at the
# row count that makes SIZE GB (10^9 bytes); rows are in random key order within each 2M copy.
# Everything is written under $OUT (a real disk, not tmpfs); the big files are removed at the
# end. The machine is shared: the load average is logged per point (column load1).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/target/release}
[ -n "${BIN_PREBUILT:-}" ] || cargo build --release --quiet --bin pgdump2csv --bin pksort --bin csvsplit
OUT=${OUT:-/work/bench-out/growth}
SIZES=${SIZES:-0.5 1 2 4}
DUMP=${DUMP:-bench/data/customer.dump}
TSV=${TSV:-bench/growth.tsv}
T=public.customer
mkdir -p "$OUT"
export TMPDIR=$OUT   # pksort spills here: the same disk

PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n1)}
base=$OUT/base.sql
[ -s "$base" ] || "$PGBIN/pg_restore" -f "$base" "$DUMP"
base_rows=$(awk '/^COPY public.customer /{c=1;next} c&&/^\\\.$/{exit} c{n++} END{print n}' "$base")
row_bytes=$(( ($(stat -c %s "$base")) / base_rows ))

# make_dump GB FILE: the base dump with its COPY block repeated/cut to GB*10^9 bytes.
first=$(grep -n -m1 '^COPY public\.customer ' "$base" | cut -d: -f1)
last=$((first + base_rows))
make_dump() {
    local rows
    rows=$(python3 -c "print(int($1 * 1e9 / $row_bytes))")
    {
        head -n "$first" "$base"
        # copies until enough rows; head closes the pipe early (SIGPIPE upstream is expected)
        { for ((k = 0; k * base_rows < rows; k++)); do
              sed -n "$((first + 1)),${last}p" "$base" |
                  perl -pe 'BEGIN { $o = 67 * '"$k"' } s/^(\d+\t\d+\t)(\d+)/$1 . ($2 + $o)/e if $o'
          done; } | head -n "$rows" || true
        tail -n +"$((last + 1))" "$base"
    } > "$2"
    echo "$rows"
}

measure() { # NAME SIZE_GB BYTES ROWS CMD...: one run, appended to the TSV
    local name=$1 gb=$2 bytes=$3 rows=$4; shift 4
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    sync
    /usr/bin/time -o "$OUT/time.txt" -f '%e %U %S %M' "$@"
    read -r wall user sys rss < "$OUT/time.txt"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$gb" "$bytes" "$rows" "$wall" "$user" "$sys" "$rss" "$load" | tee -a "$TSV"
}

[ -s "$TSV" ] && [ -z "${APPEND:-}" ] && mv "$TSV" "$TSV.old"
[ -s "$TSV" ] || printf 'tool\tsize_gb\tinput_bytes\trows\twall_s\tuser_s\tsys_s\tmaxrss_kb\tload1\n' > "$TSV"
for gb in $SIZES; do
    d=$OUT/dump-$gb.sql
    rows=$(make_dump "$gb" "$d")
    bytes=$(stat -c %s "$d")
    m=$OUT/manifest.json
    rm -rf "$OUT/csv" "$OUT/shards"
    # The floor of each plain step: copying the same bytes (the dump here).
    measure 'cp of the dump (floor)' "$gb" "$bytes" "$rows" cp "$d" "$OUT/dump.copy"
    rm -f "$OUT/dump.copy"
    measure pgdump2csv "$gb" "$bytes" "$rows" "$BIN/pgdump2csv" -q "$d" -t $T --write-manifest "$m" --force -o "$OUT/csv"
    csv=$OUT/csv/$T.csv
    measure 'pksort -S 256M' "$gb" "$bytes" "$rows" "$BIN/pksort" -q -S 256M -m "$m" -t $T "$csv" --force -o "$OUT/sorted.csv"
    rm -f "$csv"
    measure 'csvsplit -b 64M' "$gb" "$bytes" "$rows" "$BIN/csvsplit" -q -b 64M -m "$m" -t $T "$OUT/sorted.csv" -o "$OUT/shards/shard-{n:04}.csv"
    rm -rf "$OUT/shards"
    measure 'csvsplit -b 64M .gz' "$gb" "$bytes" "$rows" "$BIN/csvsplit" -q -b 64M -m "$m" -t $T "$OUT/sorted.csv" -o "$OUT/shards/shard-{n:04}.csv.gz"
    rm -rf "$OUT/shards" "$OUT/sorted.csv"
    # Peak RSS of a pipeline: GNU time reports the largest of the processes (wait4 keeps the
    # maximum over the waited-for children), not their sum.
    measure 'whole pipe (.gz shards)' "$gb" "$bytes" "$rows" sh -c "'$BIN/pgdump2csv' -q '$d' -t $T | '$BIN/pksort' -q -S 256M -m '$m' -t $T | '$BIN/csvsplit' -q -b 64M -m '$m' -t $T -o '$OUT/shards/shard-{n:04}.csv.gz'"
    rm -rf "$OUT/shards" "$OUT/csv" "$d"
done
rm -f "$base" "$OUT/time.txt" "$OUT/manifest.json"
echo "wrote $TSV; plot: python3 bench/growth_plot.py"
