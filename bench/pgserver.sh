# Sourced by bench scripts: a throwaway PostgreSQL on a private Unix socket.
#   pg_start DIR   initdb + start in DIR (as an unprivileged user when run as root); sets $PSQL
#   pg_stop        stop it and remove DIR
# Binaries: $PGBIN, else the highest /usr/lib/postgresql/*/bin.

pg_start() {
    PGDIR_=$1
    PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n1)}
    [ -x "$PGBIN/initdb" ] || { echo "no PostgreSQL server found (apt-get install postgresql)" >&2; return 1; }
    rm -rf "$PGDIR_"; mkdir -p "$PGDIR_/data" "$PGDIR_/sock"
    local as=()
    if [ "$(id -u)" = 0 ]; then
        id -u dumpshard-pg >/dev/null 2>&1 || useradd --system --no-create-home dumpshard-pg
        chown -R dumpshard-pg "$PGDIR_"; chmod 755 "$PGDIR_"
        as=(runuser -u dumpshard-pg --)
    fi
    "${as[@]}" "$PGBIN/initdb" -D "$PGDIR_/data" -U postgres -A trust -E UTF8 --locale=C -N >/dev/null
    "${as[@]}" "$PGBIN/pg_ctl" -D "$PGDIR_/data" -l "$PGDIR_/log" -w -s -o \
        "-c listen_addresses='' -c unix_socket_directories='$PGDIR_/sock' -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_wal_size=4GB -c shared_buffers=256MB" start
    PG_AS=("${as[@]}")
    PSQL="$PGBIN/psql -h $PGDIR_/sock -U postgres -X -q -v ON_ERROR_STOP=1"
    PG_DUMP="$PGBIN/pg_dump -h $PGDIR_/sock -U postgres"
}

pg_stop() {
    [ -n "${PGDIR_:-}" ] || return 0
    "${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR_/data" -w -s -m fast stop || true
    rm -rf "$PGDIR_"
}
