#!/usr/bin/env bash
# csvload -j 2 over TLS (sslmode=verify-full) against plain TCP and a Unix socket: the DBT-2
# customer table (ROWS rows, default 150000, generated here) in 8 csvsplit shards loaded into
# an empty table of a throwaway local PostgreSQL listening on 127.0.0.1 with ssl = on and a
# certificate made here with openssl. Issue 20 asks what TLS costs; this answers it.
#
# Needs: hyperfine, python3, openssl, PostgreSQL server binaries (bench/pgserver.sh finds them),
# built csvload and csvsplit in BINDIR (default $CARGO_TARGET_DIR/release). Environment: ROWS,
# RUNS (default 3), BINDIR, OUT (scratch directory). Installs nothing; about a minute.
# Measured 2026-12-01 (2 shared cores, 300000 rows, debug csvload with opt-level 2 deps, the
# server the bottleneck): Unix socket 11.1 s, TCP 10.7 s, TCP verify-full 11.4 s (+/- 0.2-1.0 s),
# csvload CPU 0.81-0.85 s user in each: TLS is within the noise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-150000}
RUNS=${RUNS:-3}
BINDIR=$(realpath -m "${BINDIR:-${CARGO_TARGET_DIR:-target}/release}")
for b in csvload csvsplit; do
    [ -x "$BINDIR/$b" ] || { echo "no $BINDIR/$b: cargo build --release" >&2; exit 1; }
done
for c in hyperfine openssl python3; do
    command -v $c >/dev/null || { echo "needs $c" >&2; exit 1; }
done
OUT=$(realpath -m "${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/csvload-tls-bench.XXXXXX")}")
mkdir -p "$OUT"
chmod 755 "$OUT"
. bench/pgserver.sh
trap 'pg_stop; rm -rf "$OUT"' EXIT
pg_start "$OUT/pg"
DATA="$OUT/customer.csv"
python3 bench/gen_customer.py "$ROWS" "$DATA" >/dev/null

# Certificates: a CA and a server certificate for 127.0.0.1.
C="$OUT/certs"
mkdir -p "$C"
(
    cd "$C"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
        -out ca.crt -days 2 -subj /CN=bench-ca -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key \
        -out server.csr -subj /CN=localhost 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
        -days 2 -extfile server.ext 2>/dev/null
)
D="$OUT/pg/data"
cp "$C/server.crt" "$C/server.key" "$D/"
echo "host all all 127.0.0.1/32 trust" >>"$D/pg_hba.conf"
chown --reference="$D" "$D/server.crt" "$D/server.key" "$D/pg_hba.conf"
chmod 600 "$D/server.key"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$D" -w -s -m fast stop
"${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$D" -l "$OUT/pg/log" -w -s -o \
    "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories='$OUT/pg/sock' \
     -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key -c fsync=off \
     -c full_page_writes=off -c synchronous_commit=off -c max_wal_size=4GB -c shared_buffers=256MB" start
PSQL="$PGBIN/psql -h $OUT/pg/sock -p $PORT -U postgres -X -q -v ON_ERROR_STOP=1"
$PSQL -d postgres -c "CREATE DATABASE bench"
$PSQL -d bench -f bench/customer.sql >/dev/null

mkdir -p "$OUT/shards"
"$BINDIR/csvsplit" -n 8 -m "${DATA%.csv}.manifest.json" -t public.customer \
    -o "$OUT/shards/c-{n}.csv" --write-manifest "$OUT/shards/shards.json" "$DATA"
echo "input: $ROWS rows ($(du -h "$DATA" | cut -f1)) in 8 shards, $(nproc) CPUs, $BINDIR/csvload"

RESET="$PSQL -d bench -c 'TRUNCATE public.customer' -c 'DROP SCHEMA IF EXISTS dumpshard CASCADE'"
LOAD="env HOME=$OUT $BINDIR/csvload -q -j 2 -m $OUT/shards/shards.json -t public.customer"
TCP="host=127.0.0.1 port=$PORT user=postgres dbname=bench"
hyperfine --runs "$RUNS" --prepare "$RESET" \
    -n "Unix socket" "$LOAD 'host=$OUT/pg/sock port=$PORT user=postgres dbname=bench'" \
    -n "TCP, sslmode=disable" "$LOAD '$TCP sslmode=disable'" \
    -n "TCP, sslmode=verify-full" "$LOAD '$TCP sslmode=verify-full sslrootcert=$C/ca.crt'"
