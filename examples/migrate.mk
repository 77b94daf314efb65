# examples/migrate.mk -- a whole PostgreSQL dump into a loaded and verified database (GNU make).
#
#   make -f examples/migrate.mk -j8 DUMP=db.dump TARGET=postgresql://app@db/target
#
# Phases: convert (pgdump2csv: plain, .gz/.zst/.lz4, or a pg_dump custom, directory or tar
# archive) -> per table: check (csvcheck) -> sort (pksort; not for postgresql, see below) ->
# split (csvsplit) -> load (csvload) -> post-data (indexes, constraints, sequences) -> verify
# (row counts against the dump's manifest). Every table is its own chain of targets, so -j
# runs tables in parallel.
#
# What each TARGET_KIND runs per table, and why (a step that buys nothing for the target is
# left out; bench/migrate.sh measures the result against pg_restore -j 2):
#   postgresql   no sort and no copy: load each table's CSV, a large one in LOAD_JOBS
#                parts side by side, checked as it loads, so the rows stream into the
#                server from the start, as pg_restore -j's do, and nothing of a table is
#                committed unless its check passed: a table loaded from its one CSV (in one
#                transaction, or in parts that commit together) is checked by its load
#                (csvload --check-records), and by csvcheck only when the load refused
#                records; a gzip CSV cut into chunks (or CHECK_FLAGS, batches,
#                CHECK_IN_LOAD=) has csvcheck beside its load (one recipe), every COMMIT
#                waiting for the check's exit status (csvload --commit-gate). A COPY into a
#                PostgreSQL heap table gains nothing from sorted input (rows go where there
#                is room; the indexes are built after the load, sorting on their own), so
#                there is no pksort. A CSV of SPLIT_MIN or more that would load alone
#                (make without -j, or a table larger than all the others together) loads
#                on LOAD_JOBS connections: csvload reads it in parts, byte ranges that
#                start at records, committed together (docs/csvload.md); any other table
#                on one, beside the other tables. Nothing is cut (a cut wrote every byte
#                again) but a gzip CSV (CONVERT_FLAGS=--gzip), which cannot be read in
#                parts: csvsplit -n cuts it into at least LOAD_JOBS chunks of at most
#                SHARD_SIZE. The loads start largest table first. Each table's load then builds its indexes
#                and keys (csvload --build-indexes), beside the other tables' loads, as
#                pg_restore -j builds a table's keys once its data is in; post-data runs
#                the rest (foreign keys, sequence values, ...).
#   yugabytedb   check -> sort -> split into SHARD_SIZE shards -> load in BATCH_ROWS batches
#   cockroachdb  check -> sort -> split into gzip shards -> IMPORT INTO statements.
#                Range-sharded targets want sorted, non-overlapping shards: each shard then
#                writes into few ranges (CockroachDB's IMPORT ingests sorted, disjoint
#                SSTables; see docs/cockroachdb.md, docs/yugabytedb.md), and csvload takes
#                the shards of a table in far-apart order so connections hit different ranges.
# Every step ends in a file (a stamp under $(OUT)/.stamps), so after a failure rerunning the
# same command resumes where it stopped; csvload's journal in the target makes a rerun of an
# interrupted load load exactly what is missing. One OUT directory belongs to one dump and one
# target; `make -f examples/migrate.mk clean OUT=...` removes it.
#
# When it stops, its last line (`migrate.mk: ...`, before make's own `*** ... Error`) says what
# to do (README, "When a migration stops", lists every stop with its tested remedy):
#   bad records   every table is checked before the run stops (postgresql: beside its load,
#                 which then commits nothing of that table); each bad table's records are
#                 in $(OUT)/bad/TABLE.csv, why in bad/TABLE.why.csv. Fix or delete them in
#                 $(OUT)/csv/TABLE.csv and rerun: the changed table is checked again, the
#                 manifest's rows and bytes follow the CSV (and the run says so), and it
#                 loads; the verification then says which CSVs were edited, against the dump
#   a foreign key fails in post-data   a record others reference is missing (deleted as
#                 bad?): put it back, fixed, or delete what references it, and rerun with
#                 LOAD_FLAGS=--truncate
#   a CSV changed after its table was loaded   rerun with LOAD_FLAGS=--truncate (the table
#                 is emptied and loaded again; refused, in words, once other tables'
#                 foreign keys reference it: then an empty database, as below)
#   the owner is refused (a role is missing, or this user may not SET ROLE to it)   rerun
#                 with NO_OWNER=1 (and NO_PRIVILEGES=1 for GRANTs of a missing role)
#   report blockers (cockroachdb, yugabytedb)   read $(OUT)/schema-report.html; change the
#                 dump, or rerun with ACCEPT_BLOCKERS=1 to migrate without them
#   options changed     NO_OWNER, NO_PRIVILEGES, CONVERT_FLAGS, YB_SHARDING redo the
#                 conversion; CHECK_FLAGS the checks; SHARD_SIZE, SPLIT_MIN, LOAD_JOBS, SORT_FLAGS,
#                 SPLIT_FLAGS the splits; VERIFY the verification; ACCEPT_BLOCKERS the review
#                 of the report (the run says which changed)
#   TARGET reaches another server or database than OUT's loads went into   the TARGET that
#                 reaches it, or `make -f examples/migrate.mk forget-target OUT=...`
#   target holds the data, or no longer holds what was loaded   load into an empty database:
#                 createdb NEW, `make -f examples/migrate.mk forget-target OUT=...`, TARGET=NEW
#   the target cannot be reached   fix TARGET (or the server, service file, password file)
#   interrupted   csvload's own line, then: rerun the same command (each table's load
#                 resumes, and the run says so)
#   anything else (a conversion, a split, a script that stopped)   fix what the tool's line
#                 above names and rerun the same command
# V=1 shows the commands each step runs (default: one line per step).
#
# Fails closed: TARGET is required to load (an unset TARGET is refused, never PG* defaults
# alone); OUT records the dump (path, size, time), the TARGET_KIND and the target it was
# loaded into: the server's system identifier and the database's OID that the connection
# reached (csvload --same-target, in .stamps/target.identity; not the TARGET string, which a
# service file, PG* variables or ~/.pgpass resolve), and a run with another DUMP or
# TARGET_KIND, or one whose TARGET reaches another server or database, is refused with a
# message, doing nothing (use another OUT, `clean`, or `forget-target` to load the same
# conversion into a new target). Every run that loads, one with nothing left to do too, ends
# by checking that the target it reaches holds every table's load (its identity and csvload's
# journal, no count) and says so: exit 0 means that target holds the data. A pksort that fails in `pksort | csvsplit` fails the table's
# split, even if it wrote nothing (its exit status is checked, as pipefail would); a table
# whose name holds a control character is refused (migrate it by hand). Every step that
# re-creates its own outputs after a failed attempt removes them first or passes --force (the
# toolkit refuses to replace a file it did not create, dumpshard(7)).
#
# Variables (make VAR=value):
#   DUMP         the dump file or archive directory (required to convert)
#   TARGET       the database: libpq URL or key=value string; PG* variables and ~/.pgpass are
#                honoured (required to load and verify)
#   TARGET_KIND  postgresql | yugabytedb | cockroachdb (default: the kind OUT's conversion was
#                made for, else postgresql):
#                  postgresql   load with csvload, one transaction per chunk (or per
#                               table, for a table under SPLIT_MIN); nothing sorted
#                  yugabytedb   the same, committing every BATCH_ROWS (default 20000) records
#                  cockroachdb  do not load: write $(OUT)/import.sql, the IMPORT INTO
#                               statements (csvsplit --import-sql) for the shards once
#                               uploaded under IMPORT_URL (see docs/cockroachdb.md); run
#                               $(OUT)/schema.sql, those statements and $(OUT)/post.sql
#                               yourself, then `make -f examples/migrate.mk verify` checks
#                               the row counts
#                The schema is written for TARGET_KIND (pgdump2csv --target-kind: primary
#                keys inside CREATE TABLE for yugabytedb and cockroachdb, and what the
#                target refuses rewritten or dropped); $(OUT)/schema-report.html says what
#                changed and why, with links to the vendor's documentation
#   NO_OWNER     1: pgdump2csv -O, no `ALTER ... OWNER TO` (load as a user who is not the
#                dump's owner, e.g. a non-superuser that owns the target database)
#   NO_PRIVILEGES 1: pgdump2csv -x, no GRANT/REVOKE (the dump's roles do not exist there)
#   YB_SHARDING  yugabytedb: hash (default) | range | keep (pgdump2csv --yb-sharding)
#   OUT          working directory (default migrate-out); no spaces
#   BIN          directory of the dumpshard tools (default: found on PATH)
#   SHARD_SIZE   csvsplit -b: bytes of CSV per shard (default 256M); postgresql: about the
#                most bytes of a chunk of a gzip CSV (one transaction; default 1G)
#   SPLIT_MIN    postgresql: a table's CSV of this size or more loads on LOAD_JOBS
#                connections (in parts; a gzip one cut into chunks) when it would otherwise
#                load alone: when make runs one step at a time (no -j, or -j1), or when its
#                CSV is larger than all the other tables' together (the other tables' loads
#                do not last as long); a smaller one, or one beside which the other tables
#                load, loads on one connection (default 16M). csvload reads it in parts of
#                at least SPLIT_MIN / 2 (csvload --parts-from SPLIT_MIN), so a CSV under
#                twice SPLIT_MIN gets fewer than LOAD_JOBS connections; the run says how many
#   LOAD_JOBS    csvload -j per table (default 2; make -jN runs N tables, so up to N x
#                LOAD_JOBS connections)
#   BATCH_ROWS   csvload --batch-rows (default: none; 20000 for yugabytedb)
#   CHECK_IN_LOAD  postgresql: 1 (default) checks a table loaded from its one CSV (in one
#                transaction, or in parts committed together) by its load (csvload
#                --check-records; the values' types by the server's input, as pg_restore's);
#                empty runs csvcheck beside every load (its type rules too)
#   ACCEPT_BLOCKERS  cockroachdb, yugabytedb: 1 goes on when the schema report lists blockers
#                (statements the target refuses or would lose); default: the run stops
#                before anything is split or loaded, naming each and the report
#   VERIFY       count (default): every table's row count against the manifest; content:
#                also every value (csvload --verify content: a digest of the CSV files
#                against the target read back; a full read of both, see docs/csvload.md)
#   IMPORT_URL   cockroachdb: where the contents of $(OUT)/shards/ are uploaded, e.g.
#                's3://bucket/migrate?AUTH=implicit' (default nodelocal://1/dumpshard); a
#                table's shards are below it in a directory named as its CSV file
#   CONVERT_FLAGS, CHECK_FLAGS, SORT_FLAGS, SPLIT_FLAGS, LOAD_FLAGS: more options per tool,
#                passed through the shell, so quote as on a command line:
#                CONVERT_FLAGS="--null '\N'" for cockroachdb (see docs/cockroachdb.md),
#                SORT_FLAGS='-S 2G' (postgresql runs no pksort, so SORT_FLAGS does nothing
#                there). CHECK_FLAGS='--max-error-rate ...' lets a check pass with bad
#                records, which the load then meets: fix the CSV instead
#
# Layout of OUT: schema.sql, post.sql, manifest.json, schema-report.html, csv/ (pgdump2csv); bad/ (csvcheck's bad
# records and why, per table); shards/TABLE/ and shards/TABLE.json (csvsplit); import.sql
# (cockroachdb; postgresql: only the tables that were cut, in chunks, without import.sql);
# tables.mk (the table list, made from csv/ after the conversion).
#
# Targets: all (default), convert, check, split, load, verify (the target against what OUT
# holds: redoes nothing, so it needs none of the conversion's options), clean, help, and
# forget-target (removes the load stamps and the recorded target, so the next run loads the
# same conversion into the TARGET it is given).
#
# Tables are named by their CSV file's name (pgdump2csv writes every byte of a name outside
# [A-Za-z0-9_-] as %XX), decoded back to `schema.table` for messages and passed to every
# tool's -t quoted (`"public"."Users"`), so `users` and `"Users"` stay two tables. A name longer
# than pgdump2csv's 200-byte file-name limit (cut and hashed) cannot be decoded: such a table
# fails at the check with "not in the manifest"; migrate it by hand.

SHELL := /bin/sh
.DELETE_ON_ERROR:
.SUFFIXES:

DUMP ?=
TARGET ?=
OUT ?= migrate-out
# Not given: the kind OUT's conversion was made for (so `make verify OUT=...` of a CockroachDB
# conversion needs no TARGET_KIND), else postgresql.
ifeq ($(origin TARGET_KIND),undefined)
TARGET_KIND := $(or $(shell cat '$(OUT)/.stamps/kind' 2>/dev/null),postgresql)
endif
BIN ?=
# postgresql: 1G (see SHARD_SIZE above; a chunk of a gzip CSV is one transaction, pg_restore's is the table).
SHARD_SIZE ?= $(if $(filter postgresql,$(TARGET_KIND)),1G,256M)
LOAD_JOBS ?= 2
BATCH_ROWS ?= $(if $(filter yugabytedb,$(TARGET_KIND)),20000,)
IMPORT_URL ?= nodelocal://1/dumpshard
CONVERT_FLAGS ?=
NO_OWNER ?=
NO_PRIVILEGES ?=
YB_SHARDING ?= hash
# The schema for the target (issue 21) and pg_restore's -O/-x (issue 20).
SCHEMA_FLAGS := --target-kind $(TARGET_KIND) --report '$(OUT)/schema-report.html' \
    $(if $(filter yugabytedb,$(TARGET_KIND)),--yb-sharding $(YB_SHARDING)) \
    $(if $(filter 1,$(NO_OWNER)),-O) $(if $(filter 1,$(NO_PRIVILEGES)),-x)
CHECK_FLAGS ?=
CHECK_IN_LOAD ?= 1
SORT_FLAGS ?=
SPLIT_FLAGS ?=
LOAD_FLAGS ?=
VERIFY ?= count
ACCEPT_BLOCKERS ?=
# cockroachdb, yugabytedb: the schema report's blockers stop the run before the target is
# touched (see $(S)/reviewed).
REVIEWED = $(if $(filter postgresql,$(TARGET_KIND)),,$(S)/reviewed)
# V=1: echo each step's commands; by default a step says one short line and its errors.
V ?=
Q := $(if $(filter 1,$(V)),,@)

ifeq ($(filter $(TARGET_KIND),postgresql yugabytedb cockroachdb),)
$(error TARGET_KIND must be postgresql, yugabytedb or cockroachdb, not '$(TARGET_KIND)')
endif

# postgresql: a table is cut into chunks for LOAD_JOBS connections, not sorted (see "per
# table" below); the sizes in bytes, as csvsplit -b reads them (K, M, G, T: powers of 1024).
SPLIT_MIN ?= 16M
to_bytes = $(if $(findstring ',$(1)),,$(shell printf '%s\n' '$(1)' | LC_ALL=C awk '{ s = toupper($$0); sub(/I?B$$/, "", s); \
    m = index("KMGT", substr(s, length(s))); if (m) s = substr(s, 1, length(s) - 1); \
    if (s !~ /^[0-9]+(\.[0-9]+)?$$/ || s * 1024 ^ m < 1) exit 1; printf "%.0f", s * 1024 ^ m }'))
ifeq ($(TARGET_KIND),postgresql)
SHARD_BYTES := $(call to_bytes,$(SHARD_SIZE))
SPLIT_MIN_BYTES := $(call to_bytes,$(SPLIT_MIN))
ifeq ($(SHARD_BYTES),)
$(error SHARD_SIZE must be a size such as 256M, not '$(SHARD_SIZE)')
endif
ifeq ($(SPLIT_MIN_BYTES),)
$(error SPLIT_MIN must be a size such as 64M, not '$(SPLIT_MIN)')
endif
ifeq ($(if $(findstring ',$(LOAD_JOBS)),,$(shell printf '%s\n' '$(LOAD_JOBS)' | grep -Ex '[1-9][0-9]*')),)
$(error LOAD_JOBS must be a number of connections, not '$(LOAD_JOBS)')
endif
endif

# Option spellings, all in one place: the toolkit's option vocabulary (dumpshard(7), OPTIONS):
# -m/--manifest reads a manifest, --write-manifest writes one.
PGDUMP2CSV_WRITE_MANIFEST := --write-manifest
CSVSPLIT_READ_MANIFEST := --manifest
CSVSPLIT_WRITE_MANIFEST := --write-manifest
CSVCHECK_READ_MANIFEST := --manifest
PKSORT_READ_MANIFEST := --manifest
CSVLOAD_READ_MANIFEST := --manifest
TABLE := --table

tool = $(if $(BIN),$(BIN)/$(1),$(1))
PGDUMP2CSV := $(call tool,pgdump2csv)
CSVCHECK := $(call tool,csvcheck)
PKSORT := $(call tool,pksort)
CSVSPLIT := $(call tool,csvsplit)
CSVLOAD := $(call tool,csvload)

# The dump's path and the conninfo reach the shell as environment variables, never as
# command text, so no character in them is interpreted by the shell.
export MIGRATE_DUMP := $(DUMP)
export MIGRATE_TARGET := $(TARGET)
export MIGRATE_IMPORT_URL := $(IMPORT_URL)

S := $(OUT)/.stamps
M := $(OUT)/manifest.json
# The target OUT's loads went into (csvload --same-target, see migrate-identity): every
# csvload that reads or writes the target names it.
IDENTITY := $(S)/target.identity
SAME := --same-target '$(IDENTITY)'

# --- when a step stops: one line saying what to do (README, "When a migration stops") ---------
# A csvload step keeps its stderr in "$err" (shown after it ends), and what it said chooses the
# line; `what` names the step. These stops are the same for every step that reaches the target:
common_stops = grep -q 'the target reached is not the one' "$$err"; then \
    echo "migrate.mk: TARGET reaches another server or database than the one $(OUT) was loaded into (above): give the TARGET that reaches it, or load this conversion into the new one: \`make -f examples/migrate.mk forget-target OUT=$(OUT)\`, then the same command" >&2; \
  elif grep -q 'csvload: cannot connect to\|asking the target who it is' "$$err"; then \
    echo "migrate.mk: $$what: the target cannot be reached (above): fix TARGET (or the server, the service file or password file it uses) and rerun the same command" >&2; \
  elif grep -q '^csvload: interrupted' "$$err"; then \
    echo "migrate.mk: $$what: interrupted (above); rerun the same command to go on (what was committed is kept)" >&2
generic_stop = echo "migrate.mk: $$what: stopped (above); fix what it names and rerun the same command (the steps done are skipped)" >&2
# Ctrl-C sends SIGINT to make, the recipe's shell and csvload at once: the shell, trapping it,
# waits for csvload to say its own line into "$err" and shows it (issue 61: the shell died at
# once, and csvload's line stayed in a file under $(S)); a check started beside a load is
# killed with it.
on_interrupt = trap '[ -z "$${cpid-}" ] || kill "$$cpid" 2>/dev/null; cat "$$err" >&2 2>/dev/null; rm -f "$$err"; \
    echo "migrate.mk: $$what: interrupted (above); rerun the same command to go on (what was committed is kept)" >&2; exit 130' INT TERM HUP

# What each phase was made with (issue 34): a phase's options file is rewritten only when one
# of its variables changed, and the phase's stamps depend on it, so a rerun with NO_OWNER=1
# (or another CHECK_FLAGS, ...) redoes exactly the steps that option affects, and says so.
OPTS_convert := CONVERT_FLAGS NO_OWNER NO_PRIVILEGES YB_SHARDING
OPTS_check := CHECK_FLAGS
OPTS_split := SHARD_SIZE SPLIT_MIN LOAD_JOBS SORT_FLAGS SPLIT_FLAGS IMPORT_URL
OPTS_verify := VERIFY
OPTS_review := ACCEPT_BLOCKERS
$(foreach v,$(OPTS_convert) $(OPTS_check) $(OPTS_split) $(OPTS_verify) $(OPTS_review),$(eval export MIGRATE_OPT_$(v) := $$($(v))))
CSV_EXT := $(if $(filter --gzip,$(CONVERT_FLAGS)),.csv.gz,.csv)
SHARD_EXT := $(if $(filter cockroachdb,$(TARGET_KIND)),.csv.gz,.csv)
IMPORT := $(filter cockroachdb,$(TARGET_KIND))
BATCH := $(if $(BATCH_ROWS),--batch-rows $(BATCH_ROWS),)
# postgresql: each table's indexes and keys are built by its own load, right after its data
# (csvload --build-indexes), beside the other tables' loads, as pg_restore -j does; post-data
# then runs the rest (foreign keys, ...), skipping what the journal says was built.
BUILD_INDEXES := $(if $(filter postgresql,$(TARGET_KIND)),--build-indexes '$(OUT)/post.sql',)
# postgresql, a whole run: each table's load leaves the counting to the verification after
# the post-data, which counts every table once (two counts of a 1M-row table cost 0.1 s at
# the end of a run); every COPY still takes every record of its manifest. `make load` counts.
LOAD_VERIFY := $(if $(filter postgresql,$(TARGET_KIND)),$(if $(filter all,$(or $(MAKECMDGOALS),all)),--verify none,),)

# A table's id in make is its CSV file's base name with `%` written as `+` (which
# pgdump2csv's file names never hold): `%` would make a rule a pattern rule.
fname = $(subst +,%,$(1))
# Sets T to the table's `schema.table`, decoding the file name's %XX bytes (awk, as
# printf's \x escapes are not POSIX). The program travels in the environment.
export MIGRATE_DECODE := BEGIN { for (i = 1; i < 256; i++) h[sprintf("%02X", i)] = i } \
  { s = $$0; o = ""; while ((p = index(s, "%")) > 0) { \
      o = o substr(s, 1, p - 1) sprintf("%c", h[substr(s, p + 1, 2)]); s = substr(s, p + 3) } \
    printf "%s", o s }
# TQ: the name as every tool's -t reads it, each part quoted (`"public"."Users"`, a `"` in it
# doubled): -t reads a name as psql does, so the unquoted `public.Users` was `public.users`
# (issue 60: with both `users` and `"Users"` in a dump, "Users" was stamped loaded and stayed
# empty).
export MIGRATE_QUOTE := BEGIN { for (i = 1; i < 256; i++) h[sprintf("%02X", i)] = i } \
  function dec(s,  o, p) { o = ""; while ((p = index(s, "%")) > 0) { \
      o = o substr(s, 1, p - 1) sprintf("%c", h[substr(s, p + 1, 2)]); s = substr(s, p + 3) } \
    return o s } \
  function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" } \
  { d = index($$0, "."); printf "%s.%s", q(dec(substr($$0, 1, d - 1))), q(dec(substr($$0, d + 1))) }
# The decoded name keeps a trailing newline (`$$(...)` would drop it: `orders` + newline
# became `orders`), and a name with a control character (or NUL, which awk cannot decode) is
# refused: it cannot be named safely on a command line or a terminal.
name = case '$(call fname,$(1))' in *%[01][0-9A-F]*|*%7F*) \
    echo 'migrate.mk: table $(call fname,$(1)): its name holds a control character; refused (migrate it by hand)' >&2; \
    exit 2;; esac && \
  T=$$(printf '%s\n' '$(call fname,$(1))' | LC_ALL=C awk "$$MIGRATE_DECODE"; echo .) && T=$${T%.} && \
  case "$$T" in *[[:cntrl:]]*) echo 'migrate.mk: table $(call fname,$(1)): its name holds a control character; refused' >&2; \
    exit 2;; esac && \
  TQ=$$(printf '%s\n' '$(call fname,$(1))' | LC_ALL=C awk "$$MIGRATE_QUOTE")

.PHONY: all convert check split load verify clean help forget-target migrate-identity checks-passed target-check FORCE
ifeq ($(TARGET_KIND),cockroachdb)
all: $(OUT)/import.sql
else
all: target-check
endif

help:
	@sed -n '1,/^$$/p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

clean:
	rm -rf '$(OUT)'

# --- what OUT was made for ---------------------------------------------------------------------
# Goals that load into or read the target: all of them but the conversion's, unless
# cockroachdb (which loads nothing; only `verify` reads the target).
ifeq ($(IMPORT),)
NEEDS_TARGET := $(filter-out convert check split clean help forget-target,$(or $(MAKECMDGOALS),all))
else
NEEDS_TARGET := $(filter verify,$(MAKECMDGOALS))
endif

# Runs first in every run that builds anything (every stamp follows $(S)/converted, which has
# this as an order-only prerequisite), even when every stamp is up to date: a reused OUT with
# another DUMP or TARGET must not print "Nothing to be done" and exit 0. The dump is known by
# its absolute path, size and modification time. The target is known by what the connection
# reaches, not by the TARGET string (issue 61: `service=pagila` retargeted in the service
# file at an empty database, and the rerun exited 0): the first csvload (the schema's)
# records the server's system identifier and the database's OID in $(S)/target.identity
# (csvload --same-target; nothing secret), and every later csvload, this check first, refuses
# another server or database in words.
migrate-identity:
	@$(if $(NEEDS_TARGET),test -n "$$MIGRATE_TARGET" || { \
	  echo 'migrate.mk: set TARGET=the target database (a libpq URL or key=value string); an unset TARGET is refused rather than taken from PG* variables' >&2; exit 2; } &&) \
	mkdir -p '$(S)' && \
	if [ -e '$(S)/converted' ] && [ -e '$(S)/kind' ]; then \
	  [ "$$(cat '$(S)/kind')" = '$(TARGET_KIND)' ] || { \
	    echo 'migrate.mk: $(OUT) holds a conversion for TARGET_KIND='"$$(cat '$(S)/kind')"', not $(TARGET_KIND) (its schema and steps differ): give TARGET_KIND='"$$(cat '$(S)/kind')"' (or leave it out) to go on with it, or use another OUT for $(TARGET_KIND) (`make -f examples/migrate.mk clean OUT=$(OUT)` deletes this conversion and its shards)' >&2; exit 2; }; \
	else printf '%s' '$(TARGET_KIND)' > '$(S)/kind'; fi && \
	if [ -n "$$MIGRATE_DUMP" ]; then \
	  id="$$(realpath -- "$$MIGRATE_DUMP" 2>/dev/null || printf '%s' "$$MIGRATE_DUMP") $$(stat -L -c '%s %Y' -- "$$MIGRATE_DUMP" 2>/dev/null || stat -L -f '%z %m' -- "$$MIGRATE_DUMP" 2>/dev/null)"; \
	  if [ -e '$(S)/converted' ] && [ -e '$(S)/dump.id' ]; then \
	    [ "$$(cat '$(S)/dump.id')" = "$$id" ] || { \
	      echo 'migrate.mk: $(OUT) holds the conversion of another dump (or this dump changed since: '"$$(cat '$(S)/dump.id')"'); use another OUT, or `make -f examples/migrate.mk clean OUT=$(OUT)` to start over' >&2; exit 2; }; \
	  else printf '%s' "$$id" > '$(S)/dump.id'; fi; \
	fi && \
	if [ -n '$(NEEDS_TARGET)' ] && [ -e '$(IDENTITY)' ]; then \
	  what='checking the target' && err='$(S)/identity.err' && st=0 && \
	  $(CSVLOAD) $(SAME) -q -- "$$MIGRATE_TARGET" 2> "$$err" || st=$$?; \
	  cat "$$err" >&2; \
	  if [ "$$st" != 0 ]; then if $(common_stops); else $(generic_stop); fi; rm -f "$$err"; exit 2; fi; \
	  rm -f "$$err"; \
	fi
$(S)/converted: | migrate-identity

# The options files; make compares their times after the recipe, so an unchanged file
# remakes nothing.
define OPTS_RULE
$(S)/$(1).opts: FORCE | migrate-identity
	@for v in $(OPTS_$(1)); do eval "x=\$$$${MIGRATE_OPT_$$$$v}"; printf '%s=%s\n' "$$$$v" "$$$$x"; done > '$$@.new' && \
	if [ -e '$$@' ] && ! cmp -s '$$@' '$$@.new'; then \
	  grep -vxF -f '$$@' '$$@.new' | while IFS= read -r l; do \
	    echo "migrate.mk: $$$${l%%=*} changed since the last run (now '$$$${l#*=}'): the $(1) step is redone$(if $(filter convert,$(1)), (csv/ is written again from the dump: a fix made there must be made again))" >&2; done; \
	fi; \
	if cmp -s '$$@' '$$@.new'; then rm -f '$$@.new'; else mv -f '$$@.new' '$$@'; fi
endef
$(foreach p,convert check split verify review,$(eval $(call OPTS_RULE,$(p))))
FORCE:

# The load stamps and the recorded target: the next run loads into the TARGET it is given.
forget-target:
	@echo 'migrate.mk: $(OUT) forgets its target: the next run loads this conversion into the TARGET it is given'
	$(Q)rm -f '$(IDENTITY)' '$(S)/target.id' '$(S)/schema' '$(S)/post-data' '$(S)/verified' '$(S)/'*.loaded '$(S)/'*.loading

# --- convert ------------------------------------------------------------------------------
$(S)/converted: $(S)/convert.opts
	@test -n "$$MIGRATE_DUMP" || { echo 'migrate.mk: set DUMP=the dump file' >&2; exit 2; }
	@echo 'migrate.mk: converting the dump into $(OUT)'
	$(Q)rm -rf '$(OUT)/csv' '$(OUT)/schema.sql' '$(OUT)/post.sql' '$(OUT)/schema-report.html' '$(M)' '$(S)/'*.dump-rows && mkdir -p '$(S)' '$(OUT)/csv'
	$(Q)st=0; $(PGDUMP2CSV) $(CONVERT_FLAGS) $(SCHEMA_FLAGS) --write-schema '$(OUT)/schema.sql' --write-post-data '$(OUT)/post.sql' \
	    $(PGDUMP2CSV_WRITE_MANIFEST) '$(M)' -o '$(OUT)/csv' -- "$$MIGRATE_DUMP" || st=$$?; \
	case $$st in 0) ;; 1|2|3) echo "migrate.mk: the conversion stopped (pgdump2csv's line above names the dump's file and line, or the option): fix the dump or CONVERT_FLAGS it names and rerun the same command" >&2; exit "$$st";; \
	  *) echo 'migrate.mk: the conversion was interrupted; rerun the same command' >&2; exit "$$st";; esac
	$(Q)touch '$@'
convert: $(S)/converted

# cockroachdb and yugabytedb (issue 61): a blocker of the schema report (a statement the
# target refuses or would lose: left out of schema.sql or post.sql, or one the rules do not
# know, kept as the dump has it) stops the run before anything is split or loaded, each named
# with its line in the dump, unless ACCEPT_BLOCKERS=1 (the run then goes on without them).
# The report is pgdump2csv's HTML page; its count and rows are read by their ids and classes.
$(S)/reviewed: $(S)/converted $(S)/review.opts
	@r='$(OUT)/schema-report.html' && \
	n=$$(sed -n 's/.*<span id="count-blockers">\([0-9][0-9]*\)<.*/\1/p' "$$r" | head -n 1) && \
	if [ -z "$$n" ]; then echo "migrate.mk: $$r does not say how many blockers the conversion found (a pgdump2csv of another version?): rerun the same command after \`make -f examples/migrate.mk clean OUT=$(OUT)\`" >&2; exit 2; fi && \
	if [ "$$n" != 0 ]; then \
	  sed -n 's|^<tr><td class="impact">blocker</td><td>\([0-9]*\)</td><td>\([^<]*\)</td><td>\([^<]*\)</td><td><code>\([^<]*\)</code>.*|migrate.mk: blocker: dump line \1 (\2): \3 \4|p' "$$r" | \
	    sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&amp;/\&/g' >&2; \
	  if [ '$(ACCEPT_BLOCKERS)' = 1 ]; then \
	    echo "migrate.mk: $$n blocker(s) above accepted (ACCEPT_BLOCKERS=1): $(TARGET_KIND) gets the schema without them; $(abspath $(OUT))/schema-report.html says what each loses" >&2; \
	  else \
	    echo "migrate.mk: $(abspath $(OUT))/schema-report.html has $$n blocker(s) for $(TARGET_KIND) (above): statements the target refuses or would lose; nothing was split or loaded. Read the report, then change the dump, or rerun the same command with ACCEPT_BLOCKERS=1 to migrate without them" >&2; exit 2; \
	  fi; \
	fi && touch '$@'

# The table list, from the files pgdump2csv wrote; make reads it back in and starts again.
$(OUT)/tables.mk: $(S)/converted
	$(Q){ printf 'TABLES :='; \
	  for f in '$(OUT)/csv/'*'$(CSV_EXT)'; do \
	    [ -e "$$f" ] || continue; b=$${f##*/}; printf ' %s' "$${b%$(CSV_EXT)}" | sed 's/%/+/g'; \
	  done; echo; printf 'TABLES_BY_SIZE :='; \
	  for f in $$(ls -S -- '$(OUT)/csv/'*'$(CSV_EXT)' 2>/dev/null); do \
	    b=$${f##*/}; printf ' %s' "$${b%$(CSV_EXT)}" | sed 's/%/+/g'; \
	  done; echo; } > '$@'

# Not for goals that only read OUT (verify: remaking tables.mk would first redo a conversion
# whose options the command line does not repeat).
ifneq ($(filter-out clean help forget-target verify,$(or $(MAKECMDGOALS),all)),)
include $(OUT)/tables.mk
endif

# --- per table ----------------------------------------------------------------------------
# A table whose check failed this run is not split or loaded (its stamps stay missing, so the
# rerun checks it again); checks-passed stops the run once every table is checked.
skip_if_check_failed = [ ! -e '$(S)/$(1).check-failed' ] || exit 0;

# After a check passes: the manifest's facts (rows, bytes) follow the table's CSV, which the
# user may have edited to fix bad records (issue 34: the load refused the fixed file, "it holds
# 10000 records but its manifest says 10001"). Records come from csvcheck's report (quoted
# newlines counted right); the manifest is rewritten under a lock (tables are checked side by
# side) and replaced atomically, and the run says what changed.
export MIGRATE_FACTS := { l = $$0; sub(/^ +/, "", l) } index(l, "\"file\": \"" f "\",") == 1 { hit = 1 } \
  hit && $$1 == "\"rows\":" { r = $$2; sub(/,$$/, "", r); if (rows != "") sub(/[0-9]+/, rows) } \
  hit && $$1 == "\"bytes\":" { b = $$2; sub(/,$$/, "", b); if (bytes != "") sub(/[0-9]+/, bytes); hit = 0; \
    if (rows == "") { print r " " b; exit } } \
  rows != "" { print }
manifest_follows = f='csv/$(call fname,$(1))$(CSV_EXT)' && \
  n=$$(sed -n 's/^  "records": \([0-9][0-9]*\),*$$/\1/p' "$$rep") && \
  b=$$($(if $(filter .csv.gz,$(CSV_EXT)),gzip -dc < "$$in" | wc -c,wc -c < "$$in") | tr -d ' ') && \
  was=$$(awk -v f="$$f" "$$MIGRATE_FACTS" '$(M)' | sed 's/^ *//') && \
  { ! [ "$$in" -nt '$(S)/converted' ] || [ -e '$(S)/$(1).dump-rows' ] || [ -z "$$was" ] || \
    printf '%s\n' "$${was%% *}" > '$(S)/$(1).dump-rows'; } && \
  if [ -n "$$n" ] && [ -n "$$was" ] && [ "$$was" != "$$n $$b" ]; then \
    until mkdir '$(S)/manifest.lock' 2>/dev/null; do sleep 1; done; \
    awk -v f="$$f" -v rows="$$n" -v bytes="$$b" "$$MIGRATE_FACTS" '$(M)' > '$(M).new' && mv -f '$(M).new' '$(M)'; \
    ok=$$?; rmdir '$(S)/manifest.lock'; [ $$ok = 0 ] || exit 2; \
    echo "migrate.mk: $$T: $$f changed since the conversion: the manifest now says $$n records, $$b bytes (was $${was%% *} records, $${was\#* } bytes); the load and the verification count those"; \
  fi

# A load that stopped, in migrate.mk's terms: csvload's words name its own options.
load_remedy = if grep -q 'changed within the loaded part\|has grown since' "$$err"; then \
    echo "migrate.mk: $$T: $(OUT)/csv/$(call fname,$(1))$(CSV_EXT) changed after its load (above): rerun with LOAD_FLAGS=--truncate, which empties the table and loads it again from the CSV as it is now (or put the CSV back as it was loaded)" >&2; \
  elif grep -q 'cannot truncate a table referenced in a foreign key constraint' "$$err"; then \
    echo "migrate.mk: $$T: other tables' foreign keys reference it, so it cannot be emptied and loaded again: load into an empty database: createdb a new one, run \`make -f examples/migrate.mk forget-target OUT=$(OUT)\` and rerun with TARGET= the new database" >&2; \
  elif grep -q 'journal .* accounts for\|records .* as loaded: rows\|loaded from another' "$$err"; then \
    echo "migrate.mk: $$T: the target's table holds rows this conversion did not load there (another load into this database, or rows written or deleted there since): load into an empty database: createdb a new one, run \`make -f examples/migrate.mk forget-target OUT=$(OUT)\` and rerun with TARGET= the new database (or LOAD_FLAGS=--truncate empties the table, unless other tables' foreign keys reference it)" >&2; \
  elif $(common_stops); \
  elif grep -q 'refused\|invalid input\|violates' "$$err"; then \
    echo "migrate.mk: $$T: the target refused records (above, with their line numbers in $(OUT)/csv/$(call fname,$(1))$(CSV_EXT)): fix or delete them there and rerun the same command" >&2; \
  else echo "migrate.mk: $$T: the load stopped (above); rerun the same command to resume it" >&2; fi

# A table's check (csvcheck; in the recipe T, in and rep are set): its exit status in st.
# $(2) non-empty: csvcheck runs as a child waited for (its pid in p), for a subshell that
# kills it when it is itself killed (an asynchronous command ignores SIGINT).
run_check = rm -f '$(OUT)/bad/$(call fname,$(1)).csv' '$(OUT)/bad/$(call fname,$(1)).why.csv' '$(S)/$(1).check-failed'; \
  st=0; $(CSVCHECK) $(CSVCHECK_READ_MANIFEST) '$(M)' $(TABLE) "$$TQ" -q \
    --bad-rows '$(OUT)/bad/$(call fname,$(1)).csv' --force --report "$$rep" \
    --bad-rows-reasons '$(OUT)/bad/$(call fname,$(1)).why.csv' $(CHECK_FLAGS) \
    -- "$$in" $(if $(2),& p=$$!; wait $$p) || st=$$?
# What st says: 0 goes on; 1-3 (bad records, unreadable or malformed input, stopped)
# record the table as failed and end the recipe with 0, so the other tables are checked
# before checks-passed stops the run; anything else (a signal) ends it with that status.
check_verdict = case $$st in \
  0) ;; \
  1|2|3) printf '%s\n' "$(call fname,$(1))" > '$(S)/$(1).check-failed'; \
     echo "migrate.mk: $$T: the check failed (csvcheck exit $$st)$(2); the other tables are checked before the run stops" >&2; \
     exit 0;; \
  *) exit $$st;; \
  esac

# check: exit 1 (bad records, kept in bad/) stops the table; CHECK_FLAGS may allow a rate.
# sort + split: pksort by the primary key into csvsplit. A POSIX shell has no pipefail, so
# pksort's exit status is written to a file and checked after the pipe: a pksort that fails
# before writing anything (TMPDIR full or unwritable) left csvsplit a valid empty stream, and
# the table was split, stamped and loaded with 0 rows. (A pksort that fails after writing
# ends its stdout inside a quoted field, so csvsplit refuses the stream too.) A table whose key pksort
# cannot take from the data (no primary key, or one with a generated column) is split
# unsorted; `pksort --check` of empty input says which. Its shard manifest then records the
# first column as a text key (csvsplit would otherwise take the primary key from the
# manifest and fail on the generated column): informational only, csvload verifies no key
# range of a text key. --force: a rerun replaces the shards
# of an earlier, failed run.
# postgresql instead: no sort (what it buys is for range-sharded targets, see the header).
# `wc -c` of the CSV says how many connections the table's load gets (T.jobs: LOAD_JOBS or
# 1); csvload reads an uncompressed CSV in that many parts, so nothing is cut. A gzip CSV is
# cut into that many chunks or more (csvsplit -n: near-equal bytes, cut at record ends,
# records in the CSV's order), with no key in the chunk manifest (--no-key: csvsplit would
# otherwise take the primary key from the manifest and parse it in every record), so the cut
# runs at inflate speed (docs/csvsplit.md, "Cut scan"); one chunk means no cut: the shard
# manifest is removed and the load takes the table's file from pgdump2csv's manifest.
define TABLE_RULES
$(S)/$(1).checked: $(S)/converted $(S)/check.opts $(OUT)/csv/$(call fname,$(1))$(CSV_EXT)
	@echo 'migrate.mk: $(call fname,$(1)): checking'
	$(Q)mkdir -p '$(OUT)/bad' && rm -f '$$@'
	$(Q)$$(call name,$(1)) && in='$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)' && rep='$(S)/$(1).check.json' && \
	$$(call run_check,$(1)); $$(call check_verdict,$(1)) && \
	$$(call manifest_follows,$(1)) && \
	touch '$$@'

ifeq ($(TARGET_KIND),postgresql)
$(S)/$(1).split: $(S)/converted $(S)/split.opts $(OUT)/csv/$(call fname,$(1))$(CSV_EXT)
	$(Q)rm -f '$(OUT)/shards/$(call fname,$(1)).json'
	$(Q)$$(call name,$(1)) && in='$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)' && \
	size=$$$$(LC_ALL=C wc -c < "$$$$in") && \
	total=$$$$(LC_ALL=C wc -c -- '$(OUT)/csv/'*'$(CSV_EXT)' | awk 'END { print $$$$1 }') && \
	n=$$$$(awk -v s="$$$$size" -v t="$$$$total" -v b=$(SHARD_BYTES) -v min=$(SPLIT_MIN_BYTES) -v j=$(LOAD_JOBS) \
	    -v par=$$(if $$(filter-out -j1,$$(filter -j%,$$(MAKEFLAGS))),1,0) -v plain=$(if $(filter .csv,$(CSV_EXT)),1,0) \
	    'BEGIN { n = int((s + b - 1) / b); if (j > n && s >= min && (!par || 2 * s > t)) n = j; \
	      if (plain && n > 1) { p = s >= min ? int(s / int(min / 2 > 1 ? min / 2 : 1)) : 1; n = p < j ? p : j } print n }') && \
	if [ "$$$$n" -le 1 ]; then echo 1 > '$(S)/$(1).jobs'; \
	$(if $(filter .csv,$(CSV_EXT)),else echo "$$$$n" > '$(S)/$(1).jobs'; \
	    echo "migrate.mk: $$$$T: its load gets $$$$n connections (csvload -j $$$$n --parts-from $(SPLIT_MIN): each reads a part of its CSV)"; \
	,else echo $(LOAD_JOBS) > '$(S)/$(1).jobs'; \
	    echo "migrate.mk: $$$$T: cutting into $$$$n chunks"; \
	    $(CSVSPLIT) -n "$$$$n" $(CSVSPLIT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$TQ" --no-key \
	        -o '$(OUT)/shards/$(call fname,$(1))/{n:04}$(SHARD_EXT)' --force -q \
	        $(CSVSPLIT_WRITE_MANIFEST) '$(OUT)/shards/$(call fname,$(1)).json' $(SPLIT_FLAGS) -- "$$$$in"; \
	)fi
	$(Q)touch '$$@'
else
$(S)/$(1).split: $(S)/$(1).checked $(S)/split.opts $(REVIEWED)
	$(Q)$$(call skip_if_check_failed,$(1)) \
	echo 'migrate.mk: $(call fname,$(1)): sorting and splitting' && mkdir -p '$(OUT)/import' && \
	$$(call name,$(1)) && in='$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)' && \
	q=$$$${MIGRATE_IMPORT_URL#"$$$${MIGRATE_IMPORT_URL%%\?*}"} && \
	shard() { $(CSVSPLIT) -b $(SHARD_SIZE) $(CSVSPLIT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$TQ" \
	    -o '$(OUT)/shards/$(call fname,$(1))/{n:04}$(SHARD_EXT)' --force -q \
	    $(CSVSPLIT_WRITE_MANIFEST) '$(OUT)/shards/$(call fname,$(1)).json' $(SPLIT_FLAGS) \
	    $(if $(IMPORT),--import-sql "$$$${MIGRATE_IMPORT_URL%%\?*}/$(subst %,%25,$(call fname,$(1)))$$$$q") \
	    "$$$$@" > '$(OUT)/import/$(call fname,$(1)).sql'; } && \
	if why=$$$$($(PKSORT) --check $(PKSORT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$TQ" </dev/null 2>&1); then \
	    st='$(S)/$(call fname,$(1)).sort-status' && \
	    { $(PKSORT) $(PKSORT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$TQ" $(SORT_FLAGS) -- "$$$$in"; echo $$$$? > "$$$$st"; } | shard && \
	    test "$$$$(cat "$$$$st")" = 0 || { \
	        echo "migrate.mk: $(call fname,$(1)): pksort | csvsplit failed (pksort exit status $$$$(cat "$$$$st" 2>/dev/null)); the split is discarded: fix what pksort or csvsplit said above (a full TMPDIR: SORT_FLAGS=--temporary-directory=DIR) and rerun the same command" >&2; \
	        rm -f "$$$$st" '$(OUT)/shards/$(call fname,$(1)).json'; exit 1; }; \
	    rm -f "$$$$st"; \
	else \
	    echo "migrate.mk: $$$$T: split unsorted ($$$$why)" >&2; \
	    shard -k 1:text --nulls first -- "$$$$in"; \
	fi && touch '$$@'
endif

ifeq ($(TARGET_KIND),postgresql)
# postgresql: the check runs inside the load's recipe, beside the load, and the load's
# commits wait for it (csvload --commit-gate: every COMMIT is held until the gate file says
# the check's exit status; 0 commits, anything else rolls back): the data streams into the
# server while it is checked, as pg_restore -j streams at once, and nothing of a table is
# committed unless its check passed. A CSV changed since the conversion (a fix by hand) is
# checked first instead, so that the manifest's facts follow it before the load reads them;
# a table already checked (`make check`, or a load that failed after its check) is not
# checked again. One recipe, not two targets: a load waiting for a check must not hold a
# make job slot the check needs. Interrupted (Ctrl-C), the recipe kills the check it started
# (a command started with & ignores SIGINT, and would go on writing bad/ after make ended).
# A table loaded from its one CSV (not cut into chunks, which commit one by one; no
# CHECK_FLAGS, no BATCH_ROWS or --batch-rows in LOAD_FLAGS; CHECK_IN_LOAD=1, the default),
# in one transaction or in LOAD_JOBS parts (csvload --parts-from: the parts commit together,
# or none does, and share one set of keys), is checked by its load instead (csvload
# --check-records: the records' form as csvcheck checks it, and duplicate primary keys,
# before the COMMIT; the values' types by the server's own input functions, as pg_restore's
# are), so its CSV is read and parsed once, not twice (issue 36: the check's CPU was the
# migration's gap to pg_restore; issue 62: csvcheck beside a table loaded in parts cost
# 1.6 s of 5.3 s of client CPU in a 2M-row one-table run); when the load is refused,
# nothing of it committed, csvcheck then lists the table's bad records in bad/.
$(S)/$(1).loaded: $(S)/$(1).split $(S)/schema $(S)/check.opts $(OUT)/csv/$(call fname,$(1))$(CSV_EXT)
	$(Q)mkdir -p '$(OUT)/bad'
	$(Q)$$(call name,$(1)) && in='$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)' && rep='$(S)/$(1).check.json' && \
	c='$(S)/$(1).checked' && g='$(S)/$(1).gate' && err='$(S)/$(1).load.err' && inload= && cpid= && what="$$$$T" && \
	m='$(OUT)/shards/$(call fname,$(1)).json' && { [ -e "$$$$m" ] || m='$(M)'; } && \
	rm -f "$$$$g" "$$$$g.new" && \
	if [ -e "$$$$c" ] && [ "$$$$c" -nt "$$$$in" ] && ! [ '$(S)/check.opts' -nt "$$$$c" ]; then \
	    echo 0 > "$$$$g"; \
	elif [ "$$$$in" -nt '$(S)/converted' ]; then \
	    rm -f "$$$$c" && echo "migrate.mk: $$$$T: checking (its CSV changed since the conversion)" && \
	    $$(call run_check,$(1)); $$(call check_verdict,$(1)) && \
	    $$(call manifest_follows,$(1)) && touch "$$$$c" && echo 0 > "$$$$g"; \
	elif $(if $(filter 1,$(CHECK_IN_LOAD)),$(if $(strip $(CHECK_FLAGS)$(BATCH)$(filter --batch-rows%,$(LOAD_FLAGS))),false,true),false) && [ "$$$$m" = '$(M)' ]; then \
	    rm -f "$$$$c" "$$$$rep" && inload=1; \
	else \
	    rm -f "$$$$c" && { trap 'kill $$$$p 2>/dev/null; exit 143' TERM; \
	    $$(call run_check,$(1),bg); { echo "$$$$st" > "$$$$g.new" && mv -f "$$$$g.new" "$$$$g"; } || { \
	    echo "migrate.mk: $$$$T: the check's exit status could not be written to $$$$g (the load waits for it): the run stops" >&2; kill -TERM 0; }; } & \
	    cpid=$$$$!; trap 'kill $$$$cpid 2>/dev/null; exit 130' INT TERM HUP; \
	fi && \
	if [ -e '$(S)/$(1).loading' ]; then resumed=1; \
	    echo "migrate.mk: $$$$T: resuming its load (csvload's journal in the target loads only what the earlier run did not commit)"; \
	elif [ -e '$$@' ]; then resumed=; \
	    echo "migrate.mk: $$$$T: loaded before; its CSV was written or changed since, so csvload compares it with its journal (and loads what that lacks)"; \
	elif [ -e "$$$$c" ]; then resumed=; echo "migrate.mk: $$$$T: loading"; \
	elif [ -n "$$$$inload" ]; then resumed=; echo "migrate.mk: $$$$T: loading, its records checked as they load (nothing is committed unless all pass)"; \
	else resumed=; echo "migrate.mk: $$$$T: checking and loading (nothing is committed unless the check passes)"; fi && \
	: > '$(S)/$(1).loading' && st=0 && { j=$$$$(cat '$(S)/$(1).jobs' 2>/dev/null) || j=$(LOAD_JOBS); } && \
	if [ -n "$$$$inload" ]; then set -- --check-records; else set -- --commit-gate "$$$$g"; fi && $$(on_interrupt) && \
	$(CSVLOAD) $(CSVLOAD_READ_MANIFEST) "$$$$m" "$$$$@" \
	    -t "$$$$TQ" -j "$$$$j" --parts-from $(SPLIT_MIN_BYTES) $(BATCH) $(BUILD_INDEXES) $(LOAD_VERIFY) $(SAME) -q $(LOAD_FLAGS) -- "$$$$MIGRATE_TARGET" 2> "$$$$err" || st=$$$$?; \
	wait; trap - INT TERM HUP; \
	lst=$$$$st; \
	if [ -n "$$$$inload" ]; then st=0; \
	    if [ "$$$$lst" = 1 ] && grep -q 'record refused (--check-records)\|: row refused' "$$$$err"; then \
	        echo "migrate.mk: $$$$T: records refused (its load rolled back: nothing of it is in the target); checking it to list them in $(OUT)/bad/" >&2; \
	        $$(call run_check,$(1)); \
	    fi; \
	else st=$$$$(cat "$$$$g" 2>/dev/null); [ -n "$$$$st" ] || { \
	    echo "migrate.mk: $$$$T: its check ended without an exit status in $$$$g (killed?): nothing of its load was committed; rerun the same command" >&2; \
	    [ -n "$$$$resumed" ] || rm -f '$(S)/$(1).loading'; exit 2; }; fi; \
	if [ "$$$$st" != 0 ]; then rm -f "$$$$err"; [ -n "$$$$resumed" ] || rm -f '$(S)/$(1).loading'; fi; \
	$$(call check_verdict,$(1),; its load was rolled back: nothing of it is in the target); \
	if [ ! -e "$$$$c" ] && { [ -z "$$$$inload" ] || [ "$$$$lst" = 0 ] || [ -e "$$$$rep" ]; }; then \
	    { ! [ -e "$$$$rep" ] || { $$(call manifest_follows,$(1)); }; } && touch "$$$$c" || exit 2; fi; \
	cat "$$$$err" >&2; st=$$$$lst; \
	if [ "$$$$st" != 0 ]; then $$(call load_remedy,$(1)); rm -f "$$$$err"; exit "$$$$st"; fi; \
	rm -f "$$$$err" "$$$$g" '$(S)/$(1).loading' && touch '$$@'
else
$(S)/$(1).loaded: $(S)/$(1).checked $(S)/$(1).split $(S)/schema
	$(Q)$$(call skip_if_check_failed,$(1)) \
	$$(call name,$(1)) && m='$(OUT)/shards/$(call fname,$(1)).json' && { [ -e "$$$$m" ] || m='$(M)'; } && \
	if [ -e '$(S)/$(1).loading' ]; then \
	    echo "migrate.mk: $$$$T: resuming its load (csvload's journal in the target loads only what the earlier run did not commit)"; \
	elif [ -e '$$@' ]; then \
	    echo "migrate.mk: $$$$T: loaded before; its shards were made again since, so csvload compares them with its journal (and loads what that lacks)"; \
	else echo "migrate.mk: $$$$T: loading"; fi && \
	: > '$(S)/$(1).loading' && err='$(S)/$(1).load.err' && st=0 && what="$$$$T" && $$(on_interrupt) && \
	$(CSVLOAD) $(CSVLOAD_READ_MANIFEST) "$$$$m" \
	    -t "$$$$TQ" -j $(LOAD_JOBS) $(BATCH) $(BUILD_INDEXES) $(SAME) -q $(LOAD_FLAGS) -- "$$$$MIGRATE_TARGET" 2> "$$$$err" || st=$$$$?; \
	trap - INT TERM HUP; cat "$$$$err" >&2; \
	if [ "$$$$st" != 0 ]; then $$(call load_remedy,$(1)); rm -f "$$$$err"; exit "$$$$st"; fi; \
	rm -f "$$$$err" '$(S)/$(1).loading' && touch '$$@'
endif
endef
$(foreach t,$(TABLES),$(eval $(call TABLE_RULES,$(t))))

# postgresql, `make check` (the checks alone; in a whole run each check runs inside its table's
# load recipe): the checks take turns, largest table first (each csvcheck already runs on every
# core), so that a table's load starts as soon as its own check and cut are done, beside the
# next table's check, as pg_restore -j starts loading at once. Without the turns, make -j
# starts every check and cut (the leaves of its tree) before any load. With make -k, a check
# that fails stops the checks of the tables after it in this order.
ifeq ($(TARGET_KIND),postgresql)
check_turns = $(if $(word 2,$(1)),$(eval $(S)/$(word 2,$(1)).checked: | $(S)/$(word 1,$(1)).checked)$(call check_turns,$(wordlist 2,$(words $(1)),$(1))))
$(call check_turns,$(TABLES_BY_SIZE))
endif

# Fails, naming each table whose check failed and what to do.
checks_report = failed=; for f in '$(S)/'*.check-failed; do [ -e "$$f" ] && failed="$$failed $$(cat "$$f")"; done; \
	if [ -n "$$failed" ]; then \
	  for t in $$failed; do echo "migrate.mk: $$t: bad records: they are in $(OUT)/bad/$$t.csv, why in $(OUT)/bad/$$t.why.csv" >&2; done; \
	  echo "migrate.mk: fix or delete those records in $(OUT)/csv/TABLE.csv (the line numbers are in the .why.csv files) and rerun the same command: the changed tables are checked again, their manifest facts follow the CSV, and they load" >&2; \
	  exit 1; fi

check: $(TABLES:%=$(S)/%.checked)
	@$(checks_report)

# Every table's check has run (postgresql: inside each table's load recipe).
checks-passed: $(TABLES:%=$(S)/%.$(if $(filter postgresql,$(TARGET_KIND)),loaded,checked))
	@$(checks_report)
split: $(TABLES:%=$(S)/%.split)
load: $(TABLES:%=$(S)/%.loaded)

# --- the target database --------------------------------------------------------------------
# The schema (tables only: no indexes or constraints yet) runs once before any table loads;
# csvload journals it, so a rerun after a failure skips what completed.
$(S)/schema: $(S)/converted $(REVIEWED)
	@echo 'migrate.mk: creating the tables (schema.sql)'
	$(Q)what='creating the tables' && err='$(S)/schema.err' && st=0 && was= && { ! [ -e '$@' ] || was=1; } && $(on_interrupt) && \
	$(CSVLOAD) --schema '$(OUT)/schema.sql' $(SAME) -q $(LOAD_FLAGS) -- "$$MIGRATE_TARGET" 2> "$$err" || st=$$?; \
	trap - INT TERM HUP; cat "$$err" >&2; \
	if [ "$$st" != 0 ]; then \
	  if $(common_stops); \
	  elif grep -q 'role .* does not exist\|must be able to SET ROLE\|must be member of role' "$$err"; then \
	    echo 'migrate.mk: the target refuses the owner the dump gives its objects (a role it lacks, or one this user may not SET ROLE to): rerun the same command with NO_OWNER=1 (no ALTER ... OWNER TO: the tables belong to the user who loads them) and, if a GRANT or REVOKE names a missing role, NO_PRIVILEGES=1; the conversion is redone with them' >&2; \
	  elif grep -q 'already exists' "$$err" && [ -n "$$was" ]; then \
	    echo 'migrate.mk: this run converted the dump again (an option changed, above) and its schema.sql differs from the one the target was created with; the target keeps that one: rerun with the earlier options to go on with it, or, to migrate with the new ones, load into an empty database: createdb a new one, run `make -f examples/migrate.mk forget-target OUT=$(OUT)` and rerun with TARGET= the new database' >&2; \
	  elif grep -q 'already exists' "$$err"; then \
	    echo 'migrate.mk: the target already holds tables of this dump (loaded before, or another database than meant): load into an empty database: createdb a new one, run `make -f examples/migrate.mk forget-target OUT=$(OUT)` and rerun with TARGET= the new database' >&2; \
	  else $(generic_stop); fi; rm -f "$$err"; exit "$$st"; \
	fi; rm -f "$$err" && touch '$@'

# postgresql: the indexes and keys were built by each table's load (--build-indexes; those of
# a table not in the dump's data, LOAD_JOBS tables at a time), then the rest (foreign keys,
# ...) in order (csvload --post-data, docs/csvload.md).
# The schema and the loads (largest table first; postgresql: each with its check) are
# listed in that order: make -j gives a free job slot to the first target it finds ready on
# its way from the goal, so the schema (a second's work at most) goes first and the largest
# table's load (the longest) starts before the others. checks-passed (order-only: it is
# phony) stops the run before post-data when a check failed.
$(S)/post-data: $(S)/schema $(TABLES_BY_SIZE:%=$(S)/%.loaded) $(TABLES:%=$(S)/%.loaded) | checks-passed
	@echo 'migrate.mk: post-data (post.sql: keys, indexes, foreign keys, sequences)'
	$(Q)what='post-data' && err='$(S)/post-data.err' && st=0 && $(on_interrupt) && \
	$(CSVLOAD) --post-data '$(OUT)/post.sql' -j $(LOAD_JOBS) $(SAME) -q $(LOAD_FLAGS) -- "$$MIGRATE_TARGET" 2> "$$err" || st=$$?; \
	trap - INT TERM HUP; cat "$$err" >&2; \
	if [ "$$st" != 0 ]; then \
	  if $(common_stops); \
	  elif grep -q 'violates foreign key constraint' "$$err"; then \
	    edited=$$(cd '$(OUT)' && find csv -type f -newer '.stamps/converted' | sort | tr '\n' ' '); \
	    echo "migrate.mk: post-data: a foreign key found a record missing (above: the key and the table that lacks it)$${edited:+, likely one deleted by hand from $$edited(edited since the conversion)}: put it back, fixed, in its CSV under $(OUT)/csv (or delete the records that reference it too) and rerun with LOAD_FLAGS=--truncate: each table whose CSV changed since its load is emptied and loaded again" >&2; \
	  else $(generic_stop); fi; rm -f "$$err"; exit "$$st"; \
	fi; rm -f "$$err"
	$(Q)touch '$@'

# Every table's row count against the dump's manifest, and with VERIFY=content every value
# (exit 1 on any difference).
$(S)/verified: $(S)/post-data $(S)/verify.opts
	@echo 'migrate.mk: verifying ($(VERIFY))'
	$(Q)$(call run_verify,$(VERIFY))
	$(Q)touch '$@'

# `make verify` checks the target against what OUT holds, redoing nothing (CockroachDB: after
# the printed steps; its command line need not repeat the conversion's options).
verify: | migrate-identity
	@test -e '$(S)/converted' || { echo 'migrate.mk: $(OUT) holds no conversion: run the migration first (the same command without verify)' >&2; exit 2; }
	$(Q)$(call run_verify,$(VERIFY))

# csvload --verify-only (stdout: the table of tables; stderr kept for the line that ends a stop).
run_verify = what='verifying' && err='$(S)/verify.err' && st=0 && $(on_interrupt) && \
	$(CSVLOAD) --verify-only --verify '$(1)' $(SAME) $(CSVLOAD_READ_MANIFEST) '$(M)' -- "$$MIGRATE_TARGET" 2> "$$err" || st=$$?; \
	trap - INT TERM HUP; cat "$$err" >&2; \
	if [ "$$st" != 0 ]; then \
	  if $(common_stops); \
	  elif grep -q 'verification failed' "$$err"; then \
	    echo "migrate.mk: the target's tables differ from $(OUT)/manifest.json (above: rows written or deleted there since the load$(if $(filter content,$(1)),,; VERIFY=content names the records)): load into an empty database to start clean: createdb a new one, run \`make -f examples/migrate.mk forget-target OUT=$(OUT)\` and rerun with TARGET= the new database" >&2; \
	  else $(generic_stop); fi; rm -f "$$err"; exit "$$st"; \
	fi; rm -f "$$err"; $(edited_report)

# Issue 61: a table whose CSV was edited by hand (bad records fixed or deleted) verifies
# against the manifest that follows the CSV, so "200 200 ok" hid that the dump had 201.
# Under the verification, each such table against the dump's rows, as the conversion's
# manifest had them ($(S)/TABLE.dump-rows, kept when its edited CSV was first checked).
edited_report = for f in '$(S)/'*.dump-rows; do [ -e "$$f" ] || continue; \
    b=$${f\#\#*/}; b=$$(printf '%s' "$${b%.dump-rows}" | sed 's/+/%/g'); \
    d=$$(cat "$$f"); n=$$(awk -v f="csv/$$b$(CSV_EXT)" "$$MIGRATE_FACTS" '$(M)' | sed 's/^ *//; s/ .*//'); [ -n "$$n" ] || continue; \
    t=$$(printf '%s\n' "$$b" | LC_ALL=C awk "$$MIGRATE_DECODE"); \
    if [ "$$n" -lt "$$d" ]; then how="$$((d - n)) record(s) removed from"; \
    elif [ "$$n" -gt "$$d" ]; then how="$$((n - d)) record(s) added to"; \
    else how="records changed in"; fi; \
    echo "migrate.mk: $$t: $$n of the dump's $$d rows: $$how $(OUT)/csv/$$b$(CSV_EXT) by hand since the conversion"; \
  done

# Every run that loads ends here, even one with nothing left to do (issue 61: a rerun against
# a service retargeted at an empty database exited 0): the target the connection reaches now
# must be the one OUT's loads went into (csvload --same-target) and its journal must record
# every table of the manifest as loaded (a look-up per table, not a count of a large
# database). So exit 0 means the target reached holds the data.
target-check: $(S)/verified
	$(Q)what='checking the target' && err='$(S)/target-check.err' && st=0 && $(on_interrupt) && \
	$(CSVLOAD) --verify-only --verify journal $(SAME) $(CSVLOAD_READ_MANIFEST) '$(M)' -q -- "$$MIGRATE_TARGET" 2> "$$err" || st=$$?; \
	trap - INT TERM HUP; cat "$$err" >&2; \
	if [ "$$st" != 0 ]; then \
	  if $(common_stops); \
	  elif grep -q 'verification failed' "$$err"; then \
	    echo "migrate.mk: the target no longer holds what $(OUT) loaded there (above: a table or csvload's journal dropped since): load into an empty database: createdb a new one, run \`make -f examples/migrate.mk forget-target OUT=$(OUT)\` and rerun with TARGET= the new database" >&2; \
	  else $(generic_stop); fi; rm -f "$$err"; exit "$$st"; \
	fi; rm -f "$$err"; \
	echo "migrate.mk: done: database \"$$(sed -n 's/^database=//p' '$(IDENTITY)')\" ($$(sed -n 's/^server=//p' '$(IDENTITY)')) holds every table, as its journal records the loads (kept for reruns; docs/csvload.md: dropping it)"


# cockroachdb: every table's IMPORT INTO, in one file.
$(OUT)/import.sql: $(TABLES:%=$(S)/%.split) | checks-passed
	$(Q)for t in $(foreach t,$(TABLES),'$(call fname,$(t))'); do cat "$(OUT)/import/$$t.sql"; done > '$@'

# --- cockroachdb: what to run next, in order, with the exact commands (issue 33) -------------
# csvload runs the schema and post-data (it skips pg_dump's \restrict lines, at which
# `cockroach sql -f` stops up to v26.3); `cockroach sql` runs import.sql (no meta-commands).
ifeq ($(TARGET_KIND),cockroachdb)
all: next-steps
.PHONY: next-steps
UPLOAD_DEST := $(firstword $(subst ?, ,$(IMPORT_URL)))
# Every path absolute and every option the later commands need written out, so each step runs
# as printed from any directory (issue 61: the verify step lacked TARGET_KIND, and its refusal
# suggested `clean`, which deletes the shards just uploaded); the report first.
ABS_OUT := $(abspath $(OUT))
UPLOAD_CMD := $(if $(filter s3://%,$(UPLOAD_DEST)),aws s3 cp --recursive '$(ABS_OUT)/shards/' '$(UPLOAD_DEST)/' --exclude '*.json',$(if $(filter gs://%,$(UPLOAD_DEST)),gsutil -m cp -r '$(ABS_OUT)/shards/*' '$(UPLOAD_DEST)/',copy each directory of '$(ABS_OUT)/shards/' (not the .json files) under '$(UPLOAD_DEST)/'))
CSVLOAD_ABS := $(if $(BIN),$(abspath $(BIN))/csvload,csvload)
next-steps: $(OUT)/import.sql
	@printf '%s\n' "migrate.mk: done for CockroachDB; next, in order, from any directory (TARGET: the cluster's URL):" \
	  "  1. read the report:    $(ABS_OUT)/schema-report.html (what the schema lost or changed for CockroachDB, and why)" \
	  "  2. upload the shards:  $(UPLOAD_CMD)" \
	  "  3. create the schema:  '$(CSVLOAD_ABS)' --schema '$(ABS_OUT)/schema.sql' --same-target '$(ABS_OUT)/.stamps/target.identity' \"\$$TARGET\"" \
	  "  4. import the shards:  cockroach sql --url \"\$$TARGET\" -f '$(ABS_OUT)/import.sql'" \
	  "  5. run the post-data:  '$(CSVLOAD_ABS)' --post-data '$(ABS_OUT)/post.sql' --same-target '$(ABS_OUT)/.stamps/target.identity' \"\$$TARGET\"" \
	  "  6. verify:             make -f '$(abspath $(firstword $(MAKEFILE_LIST)))' verify TARGET_KIND=cockroachdb OUT='$(ABS_OUT)'$(if $(BIN), BIN='$(abspath $(BIN))') TARGET=\"\$$TARGET\""
endif
