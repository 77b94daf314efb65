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
#   postgresql   check, and beside it (make -j runs both) a cut into chunks, unsorted, then
#                load the chunks with LOAD_JOBS connections. A COPY into a PostgreSQL heap
#                table gains nothing from sorted input (rows go where there is room; the
#                indexes are built after the load, sorting on their own), so
#                there is no pksort. The cut (csvsplit -n, records in the CSV's order, at
#                copy speed) is what lets one large table load on several connections: it
#                makes max(LOAD_JOBS, size / SHARD_SIZE) chunks of a CSV of SPLIT_MIN or more,
#                so one transaction holds at most about SHARD_SIZE; a smaller table loads
#                from pgdump2csv's CSV itself, with no copy. The load waits for the check;
#                the checks take turns, largest table first, so that each table's load
#                starts as soon as its own check ends, beside the next check, as
#                pg_restore -j starts loading at once (and a free job slot goes to the
#                next check before a load). Each table's load then builds its indexes
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
# Fails closed: TARGET is required to load (an unset TARGET is refused, never PG* defaults
# alone); OUT records the dump (path, size, time), the TARGET_KIND and the target (a checksum
# of TARGET and the PG* variables that choose the server) it was made for, and a run with
# another DUMP or TARGET_KIND, or another TARGET once the schema was loaded, is refused with a
# message, doing nothing (use another OUT, `clean`, or `forget-target` to load the same
# conversion into a new target); a pksort that fails in `pksort | csvsplit` fails the table's
# split, even if it wrote nothing (its exit status is checked, as pipefail would); a table
# whose name holds a control character is refused (migrate it by hand). Every step that
# re-creates its own outputs after a failed attempt removes them first or passes --force (the
# toolkit refuses to replace a file it did not create, dumpshard(7)).
#
# Variables (make VAR=value):
#   DUMP         the dump file or archive directory (required to convert)
#   TARGET       the database: libpq URL or key=value string; PG* variables and ~/.pgpass are
#                honoured (required to load and verify)
#   TARGET_KIND  postgresql (default) | yugabytedb | cockroachdb:
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
#                most bytes of a chunk (one transaction)
#   SPLIT_MIN    postgresql: a table's CSV of this size or more is cut into at least
#                LOAD_JOBS chunks for a parallel load; a smaller one loads from its CSV file
#                (default 16M, so that a small table that loads last, alone, still loads
#                on LOAD_JOBS connections)
#   LOAD_JOBS    csvload -j per table (default 2; make -jN runs N tables, so up to N x
#                LOAD_JOBS connections)
#   BATCH_ROWS   csvload --batch-rows (default: none; 20000 for yugabytedb)
#   VERIFY       count (default): every table's row count against the manifest; content:
#                also every value (csvload --verify content: a digest of the CSV files
#                against the target read back; a full read of both, see docs/csvload.md)
#   IMPORT_URL   cockroachdb: where the contents of $(OUT)/shards/ are uploaded, e.g.
#                's3://bucket/migrate?AUTH=implicit' (default nodelocal://1/dumpshard); a
#                table's shards are below it in a directory named as its CSV file
#   CONVERT_FLAGS, CHECK_FLAGS, SORT_FLAGS, SPLIT_FLAGS, LOAD_FLAGS: more options per tool,
#                passed through the shell, so quote as on a command line:
#                CONVERT_FLAGS="--null '\N'" for cockroachdb (see docs/cockroachdb.md),
#                SORT_FLAGS='-S 2G', CHECK_FLAGS='--max-error-rate 0.1%' (postgresql runs no
#                pksort, so SORT_FLAGS does nothing there)
#
# Layout of OUT: schema.sql, post.sql, manifest.json, schema-report.html, csv/ (pgdump2csv); bad/ (csvcheck's bad
# records and why, per table); shards/TABLE/ and shards/TABLE.json (csvsplit); import.sql
# (cockroachdb; postgresql: only the tables that were cut, in chunks, without import.sql);
# tables.mk (the table list, made from csv/ after the conversion).
#
# Targets: all (default), convert, check, split, load, verify, clean, help, and forget-target
# (removes the load stamps and the recorded target, so the next run loads the same conversion
# into the TARGET it is given).
#
# Tables are named by their CSV file's name (pgdump2csv writes every byte of a name outside
# [A-Za-z0-9_-] as %XX), decoded back to `schema.table` when a tool needs it. A name longer
# than pgdump2csv's 200-byte file-name limit (cut and hashed) cannot be decoded: such a table
# fails at the check with "not in the manifest"; migrate it by hand.

SHELL := /bin/sh
.DELETE_ON_ERROR:
.SUFFIXES:

DUMP ?=
TARGET ?=
TARGET_KIND ?= postgresql
OUT ?= migrate-out
BIN ?=
SHARD_SIZE ?= 256M
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
SORT_FLAGS ?=
SPLIT_FLAGS ?=
LOAD_FLAGS ?=
VERIFY ?= count

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
CSV_EXT := $(if $(filter --gzip,$(CONVERT_FLAGS)),.csv.gz,.csv)
SHARD_EXT := $(if $(filter cockroachdb,$(TARGET_KIND)),.csv.gz,.csv)
IMPORT := $(filter cockroachdb,$(TARGET_KIND))
BATCH := $(if $(BATCH_ROWS),--batch-rows $(BATCH_ROWS),)
# postgresql: each table's indexes and keys are built by its own load, right after its data
# (csvload --build-indexes), beside the other tables' loads, as pg_restore -j does; post-data
# then runs the rest (foreign keys, ...), skipping what the journal says was built.
BUILD_INDEXES := $(if $(filter postgresql,$(TARGET_KIND)),--build-indexes '$(OUT)/post.sql',)

# A table's id in make is its CSV file's base name with `%` written as `+` (which
# pgdump2csv's file names never hold): `%` would make a rule a pattern rule.
fname = $(subst +,%,$(1))
# Sets T to the table's `schema.table`, decoding the file name's %XX bytes (awk, as
# printf's \x escapes are not POSIX). The program travels in the environment.
export MIGRATE_DECODE := BEGIN { for (i = 1; i < 256; i++) h[sprintf("%02X", i)] = i } \
  { s = $$0; o = ""; while ((p = index(s, "%")) > 0) { \
      o = o substr(s, 1, p - 1) sprintf("%c", h[substr(s, p + 1, 2)]); s = substr(s, p + 3) } \
    printf "%s", o s }
# The decoded name keeps a trailing newline (`$$(...)` would drop it: `orders` + newline
# became `orders`), and a name with a control character (or NUL, which awk cannot decode) is
# refused: it cannot be named safely on a command line or a terminal.
name = case '$(call fname,$(1))' in *%[01][0-9A-F]*|*%7F*) \
    echo 'migrate.mk: table $(call fname,$(1)): its name holds a control character; refused (migrate it by hand)' >&2; \
    exit 2;; esac && \
  T=$$(printf '%s\n' '$(call fname,$(1))' | LC_ALL=C awk "$$MIGRATE_DECODE"; echo .) && T=$${T%.} && \
  case "$$T" in *[[:cntrl:]]*) echo 'migrate.mk: table $(call fname,$(1)): its name holds a control character; refused' >&2; \
    exit 2;; esac

.PHONY: all convert check split load verify clean help forget-target migrate-identity
ifeq ($(TARGET_KIND),cockroachdb)
all: $(OUT)/import.sql
else
all: $(S)/verified
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
# its absolute path, size and modification time; the target by a checksum (so that no
# password is written down) of TARGET and the PG* variables that choose the server.
migrate-identity:
	@$(if $(NEEDS_TARGET),test -n "$$MIGRATE_TARGET" || { \
	  echo 'migrate.mk: set TARGET=the target database (a libpq URL or key=value string); an unset TARGET is refused rather than taken from PG* variables' >&2; exit 2; } &&) \
	mkdir -p '$(S)' && \
	if [ -e '$(S)/converted' ] && [ -e '$(S)/kind' ]; then \
	  [ "$$(cat '$(S)/kind')" = '$(TARGET_KIND)' ] || { \
	    echo 'migrate.mk: $(OUT) holds a conversion for TARGET_KIND='"$$(cat '$(S)/kind')"', not $(TARGET_KIND) (its schema and steps differ); use another OUT, or `make -f examples/migrate.mk clean OUT=$(OUT)` to start over' >&2; exit 2; }; \
	else printf '%s' '$(TARGET_KIND)' > '$(S)/kind'; fi && \
	if [ -n "$$MIGRATE_DUMP" ]; then \
	  id="$$(realpath -- "$$MIGRATE_DUMP" 2>/dev/null || printf '%s' "$$MIGRATE_DUMP") $$(stat -L -c '%s %Y' -- "$$MIGRATE_DUMP" 2>/dev/null || stat -L -f '%z %m' -- "$$MIGRATE_DUMP" 2>/dev/null)"; \
	  if [ -e '$(S)/converted' ] && [ -e '$(S)/dump.id' ]; then \
	    [ "$$(cat '$(S)/dump.id')" = "$$id" ] || { \
	      echo 'migrate.mk: $(OUT) holds the conversion of another dump (or this dump changed since: '"$$(cat '$(S)/dump.id')"'); use another OUT, or `make -f examples/migrate.mk clean OUT=$(OUT)` to start over' >&2; exit 2; }; \
	  else printf '%s' "$$id" > '$(S)/dump.id'; fi; \
	fi && \
	if [ -n "$$MIGRATE_TARGET" ]; then \
	  id="$$(printf 'TARGET=%s\nPGHOST=%s\nPGHOSTADDR=%s\nPGPORT=%s\nPGDATABASE=%s\nPGSERVICE=%s\n' "$$MIGRATE_TARGET" "$${PGHOST-}" "$${PGHOSTADDR-}" "$${PGPORT-}" "$${PGDATABASE-}" "$${PGSERVICE-}" | cksum)"; \
	  if [ -e '$(S)/schema' ] && [ -e '$(S)/target.id' ]; then \
	    [ "$$(cat '$(S)/target.id')" = "$$id" ] || { \
	      echo 'migrate.mk: $(OUT) was loaded into another target than this TARGET (with these PG* variables); use another OUT, or `make -f examples/migrate.mk forget-target OUT=$(OUT)` to load this conversion into the new target' >&2; exit 2; }; \
	  elif [ -n '$(NEEDS_TARGET)' ]; then printf '%s' "$$id" > '$(S)/target.id'; fi; \
	fi
$(S)/converted: | migrate-identity

# The load stamps and the recorded target: the next run loads into the TARGET it is given.
forget-target:
	rm -f '$(S)/target.id' '$(S)/schema' '$(S)/post-data' '$(S)/verified' '$(S)/'*.loaded

# --- convert ------------------------------------------------------------------------------
$(S)/converted:
	@test -n "$$MIGRATE_DUMP" || { echo 'migrate.mk: set DUMP=the dump file' >&2; exit 2; }
	rm -rf '$(OUT)/csv' '$(OUT)/schema.sql' '$(OUT)/post.sql' '$(OUT)/schema-report.html' '$(M)' && mkdir -p '$(S)' '$(OUT)/csv'
	$(PGDUMP2CSV) $(CONVERT_FLAGS) $(SCHEMA_FLAGS) --write-schema '$(OUT)/schema.sql' --write-post-data '$(OUT)/post.sql' \
	    $(PGDUMP2CSV_WRITE_MANIFEST) '$(M)' -o '$(OUT)/csv' -- "$$MIGRATE_DUMP"
	touch '$@'
convert: $(S)/converted

# The table list, from the files pgdump2csv wrote; make reads it back in and starts again.
$(OUT)/tables.mk: $(S)/converted
	{ printf 'TABLES :='; \
	  for f in '$(OUT)/csv/'*'$(CSV_EXT)'; do \
	    [ -e "$$f" ] || continue; b=$${f##*/}; printf ' %s' "$${b%$(CSV_EXT)}" | sed 's/%/+/g'; \
	  done; echo; printf 'TABLES_BY_SIZE :='; \
	  for f in $$(ls -S -- '$(OUT)/csv/'*'$(CSV_EXT)' 2>/dev/null); do \
	    b=$${f##*/}; printf ' %s' "$${b%$(CSV_EXT)}" | sed 's/%/+/g'; \
	  done; echo; } > '$@'

ifeq ($(filter clean help forget-target,$(MAKECMDGOALS)),)
include $(OUT)/tables.mk
endif

# --- per table ----------------------------------------------------------------------------
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
# postgresql instead: no sort (what it buys is for range-sharded targets, see the header),
# and the cut needs nothing the check proves, so it follows the conversion and runs beside
# the check; the load waits for both. `wc -c` of the CSV gives the number of chunks (csvsplit
# -n: near-equal bytes, cut at record ends, records in the CSV's order); one chunk means no
# cut: the shard manifest is removed and the load takes the table's file from pgdump2csv's
# manifest. The chunk manifest has no key (--no-key: csvsplit would otherwise take the primary
# key from the manifest and parse it in every record), so the cut runs at copy speed
# (docs/csvsplit.md, "Cut scan").
define TABLE_RULES
$(S)/$(1).checked: $(S)/converted
	mkdir -p '$(OUT)/bad' && rm -f '$(OUT)/bad/$(call fname,$(1)).csv' '$(OUT)/bad/$(call fname,$(1)).why.csv'
	$$(call name,$(1)) && $(CSVCHECK) $(CSVCHECK_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" -q \
	    --bad-rows '$(OUT)/bad/$(call fname,$(1)).csv' \
	    --bad-rows-reasons '$(OUT)/bad/$(call fname,$(1)).why.csv' $(CHECK_FLAGS) \
	    '$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)'
	touch '$$@'

ifeq ($(TARGET_KIND),postgresql)
$(S)/$(1).split: $(S)/converted
	rm -f '$(OUT)/shards/$(call fname,$(1)).json'
	$$(call name,$(1)) && in='$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)' && \
	size=$$$$(LC_ALL=C wc -c < "$$$$in") && \
	n=$$$$(awk -v s="$$$$size" -v b=$(SHARD_BYTES) -v min=$(SPLIT_MIN_BYTES) -v j=$(LOAD_JOBS) \
	    'BEGIN { n = int((s + b - 1) / b); if (j > n && s >= min) n = j; print n }') && \
	if [ "$$$$n" -gt 1 ]; then \
	    $(CSVSPLIT) -n "$$$$n" $(CSVSPLIT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" --no-key \
	        -o '$(OUT)/shards/$(call fname,$(1))/{n:04}$(SHARD_EXT)' --force -q \
	        $(CSVSPLIT_WRITE_MANIFEST) '$(OUT)/shards/$(call fname,$(1)).json' $(SPLIT_FLAGS) -- "$$$$in"; \
	fi
	touch '$$@'
else
$(S)/$(1).split: $(S)/$(1).checked
	mkdir -p '$(OUT)/import'
	$$(call name,$(1)) && in='$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)' && \
	q=$$$${MIGRATE_IMPORT_URL#"$$$${MIGRATE_IMPORT_URL%%\?*}"} && \
	shard() { $(CSVSPLIT) -b $(SHARD_SIZE) $(CSVSPLIT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" \
	    -o '$(OUT)/shards/$(call fname,$(1))/{n:04}$(SHARD_EXT)' --force -q \
	    $(CSVSPLIT_WRITE_MANIFEST) '$(OUT)/shards/$(call fname,$(1)).json' $(SPLIT_FLAGS) \
	    $(if $(IMPORT),--import-sql "$$$${MIGRATE_IMPORT_URL%%\?*}/$(subst %,%25,$(call fname,$(1)))$$$$q") \
	    "$$$$@" > '$(OUT)/import/$(call fname,$(1)).sql'; } && \
	if why=$$$$($(PKSORT) --check $(PKSORT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" </dev/null 2>&1); then \
	    st='$(S)/$(call fname,$(1)).sort-status' && \
	    { $(PKSORT) $(PKSORT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" $(SORT_FLAGS) -- "$$$$in"; echo $$$$? > "$$$$st"; } | shard && \
	    test "$$$$(cat "$$$$st")" = 0 || { \
	        echo "migrate.mk: $(call fname,$(1)): pksort | csvsplit failed (pksort exit status $$$$(cat "$$$$st" 2>/dev/null)); the split is discarded" >&2; \
	        rm -f "$$$$st" '$(OUT)/shards/$(call fname,$(1)).json'; exit 1; }; \
	    rm -f "$$$$st"; \
	else \
	    echo "migrate.mk: $$$$T: split unsorted ($$$$why)" >&2; \
	    shard -k 1:text --nulls first -- "$$$$in"; \
	fi
	touch '$$@'
endif

$(S)/$(1).loaded: $(S)/$(1).checked $(S)/$(1).split $(S)/schema
	$$(call name,$(1)) && m='$(OUT)/shards/$(call fname,$(1)).json' && { [ -e "$$$$m" ] || m='$(M)'; } && \
	$(CSVLOAD) $(CSVLOAD_READ_MANIFEST) "$$$$m" \
	    -t "$$$$T" -j $(LOAD_JOBS) $(BATCH) $(BUILD_INDEXES) -q $(LOAD_FLAGS) -- "$$$$MIGRATE_TARGET"
	touch '$$@'
endef
$(foreach t,$(TABLES),$(eval $(call TABLE_RULES,$(t))))

# postgresql: the checks take turns, largest table first (each csvcheck already runs on every
# core), so that a table's load starts as soon as its own check and cut are done, beside the
# next table's check, as pg_restore -j starts loading at once. Without the turns, make -j
# starts every check and cut (the leaves of its tree) before any load. With make -k, a check
# that fails stops the checks of the tables after it in this order.
ifeq ($(TARGET_KIND),postgresql)
check_turns = $(if $(word 2,$(1)),$(eval $(S)/$(word 2,$(1)).checked: | $(S)/$(word 1,$(1)).checked)$(call check_turns,$(wordlist 2,$(words $(1)),$(1))))
$(call check_turns,$(TABLES_BY_SIZE))
endif

check: $(TABLES:%=$(S)/%.checked)
split: $(TABLES:%=$(S)/%.split)
load: $(TABLES:%=$(S)/%.loaded)

# --- the target database --------------------------------------------------------------------
# The schema (tables only: no indexes or constraints yet) runs once before any table loads;
# csvload journals it, so a rerun after a failure skips what completed.
$(S)/schema: $(S)/converted
	$(CSVLOAD) --schema '$(OUT)/schema.sql' -q $(LOAD_FLAGS) -- "$$MIGRATE_TARGET"
	touch '$@'

# postgresql: the indexes and keys were built by each table's load (--build-indexes; those of
# a table not in the dump's data, LOAD_JOBS tables at a time), then the rest (foreign keys,
# ...) in order (csvload --post-data, docs/csvload.md).
# For postgresql the schema and the checks (largest table first) are listed before the loads:
# make -j gives a free job slot to the first target it finds ready on its way from the goal,
# so the schema (a second's work at most) goes first and a table's check goes before a load
# that became ready at the same moment (the smallest table's check waited behind two loads,
# and its load started last).
$(S)/post-data: $(if $(filter postgresql,$(TARGET_KIND)),$(S)/schema $(TABLES_BY_SIZE:%=$(S)/%.checked)) $(TABLES:%=$(S)/%.loaded)
	$(CSVLOAD) --post-data '$(OUT)/post.sql' -j $(LOAD_JOBS) -q $(LOAD_FLAGS) -- "$$MIGRATE_TARGET"
	touch '$@'

# Every table's row count against the dump's manifest, and with VERIFY=content every value
# (exit 1 on any difference).
$(S)/verified: $(S)/post-data
	$(CSVLOAD) --verify-only --verify '$(VERIFY)' $(CSVLOAD_READ_MANIFEST) '$(M)' -- "$$MIGRATE_TARGET"
	touch '$@'

verify: $(S)/converted
	$(CSVLOAD) --verify-only --verify '$(VERIFY)' $(CSVLOAD_READ_MANIFEST) '$(M)' -- "$$MIGRATE_TARGET"

# cockroachdb: every table's IMPORT INTO, in one file.
$(OUT)/import.sql: $(TABLES:%=$(S)/%.split)
	for t in $(foreach t,$(TABLES),'$(call fname,$(t))'); do cat "$(OUT)/import/$$t.sql"; done > '$@'

# --- cockroachdb: what to run next, in order, with the exact commands (issue 33) -------------
# csvload runs the schema and post-data (it skips pg_dump's \restrict lines, at which
# `cockroach sql -f` stops up to v26.3); `cockroach sql` runs import.sql (no meta-commands).
ifeq ($(TARGET_KIND),cockroachdb)
all: next-steps
.PHONY: next-steps
UPLOAD_DEST := $(firstword $(subst ?, ,$(IMPORT_URL)))
UPLOAD_CMD := $(if $(filter s3://%,$(UPLOAD_DEST)),aws s3 cp --recursive '$(OUT)/shards/' '$(UPLOAD_DEST)/' --exclude '*.json',$(if $(filter gs://%,$(UPLOAD_DEST)),gsutil -m cp -r '$(OUT)/shards/*' '$(UPLOAD_DEST)/',copy each directory of '$(OUT)/shards/' (not the .json files) under '$(UPLOAD_DEST)/'))
next-steps: $(OUT)/import.sql
	@printf '%s\n' "migrate.mk: done for CockroachDB; next, in order (TARGET: the cluster's URL):" \
	  "  1. upload the shards:  $(UPLOAD_CMD)" \
	  "  2. create the schema:  csvload --schema '$(OUT)/schema.sql' \"\$$TARGET\"" \
	  "  3. import the shards:  cockroach sql --url \"\$$TARGET\" -f '$(OUT)/import.sql'" \
	  "  4. run the post-data:  csvload --post-data '$(OUT)/post.sql' \"\$$TARGET\"" \
	  "  5. verify:             make -f examples/migrate.mk verify OUT='$(OUT)' TARGET=\"\$$TARGET\""
endif
