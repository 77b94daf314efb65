# examples/migrate.mk -- a whole PostgreSQL dump into a loaded and verified database (GNU make).
#
#   make -f examples/migrate.mk -j8 DUMP=db.dump TARGET=postgresql://app@db/target
#
# Phases: convert (pgdump2csv: plain, .gz/.zst/.lz4, or a pg_dump custom, directory or tar
# archive) -> per table: check (csvcheck) -> sort (pksort) -> split (csvsplit) -> load
# (csvload) -> post-data (indexes, constraints, sequences) -> verify (row counts against the
# dump's manifest). Every table is its own chain of targets, so -j runs tables in parallel.
# Every step ends in a file (a stamp under $(OUT)/.stamps), so after a failure rerunning the
# same command resumes where it stopped; csvload's journal in the target makes a rerun of an
# interrupted load load exactly what is missing. One OUT directory belongs to one dump and one
# target; `make -f examples/migrate.mk clean OUT=...` removes it.
#
# Variables (make VAR=value):
#   DUMP         the dump file or archive directory (required to convert)
#   TARGET       the database: libpq URL or key=value string; PG* variables and ~/.pgpass are
#                honoured (required to load and verify)
#   TARGET_KIND  postgresql (default) | yugabytedb | cockroachdb:
#                  postgresql   load with csvload, one transaction per shard
#                  yugabytedb   the same, committing every BATCH_ROWS (default 20000) records
#                  cockroachdb  do not load: write $(OUT)/import.sql, the IMPORT INTO
#                               statements (csvsplit --import-sql) for the shards once
#                               uploaded under IMPORT_URL (see docs/cockroachdb.md); run the
#                               edited schema and those statements yourself, then
#                               `make -f examples/migrate.mk verify` checks the row counts
#   OUT          working directory (default migrate-out); no spaces
#   BIN          directory of the dumpshard tools (default: found on PATH)
#   SHARD_SIZE   csvsplit -b: bytes of CSV per shard (default 256M)
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
#                SORT_FLAGS='-S 2G', CHECK_FLAGS='--max-error-rate 0.1%'
#
# Layout of OUT: schema.sql, post.sql, manifest.json, csv/ (pgdump2csv); bad/ (csvcheck's bad
# records and why, per table); shards/TABLE/ and shards/TABLE.json (csvsplit); import.sql
# (cockroachdb); tables.mk (the table list, made from csv/ after the conversion).
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
CHECK_FLAGS ?=
SORT_FLAGS ?=
SPLIT_FLAGS ?=
LOAD_FLAGS ?=
VERIFY ?= count

ifeq ($(filter $(TARGET_KIND),postgresql yugabytedb cockroachdb),)
$(error TARGET_KIND must be postgresql, yugabytedb or cockroachdb, not '$(TARGET_KIND)')
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

# A table's id in make is its CSV file's base name with `%` written as `+` (which
# pgdump2csv's file names never hold): `%` would make a rule a pattern rule.
fname = $(subst +,%,$(1))
# Sets T to the table's `schema.table`, decoding the file name's %XX bytes (awk, as
# printf's \x escapes are not POSIX). The program travels in the environment.
export MIGRATE_DECODE := BEGIN { for (i = 1; i < 256; i++) h[sprintf("%02X", i)] = i } \
  { s = $$0; o = ""; while ((p = index(s, "%")) > 0) { \
      o = o substr(s, 1, p - 1) sprintf("%c", h[substr(s, p + 1, 2)]); s = substr(s, p + 3) } \
    printf "%s", o s }
name = T=$$(printf '%s\n' '$(call fname,$(1))' | LC_ALL=C awk "$$MIGRATE_DECODE")

.PHONY: all convert check split load verify clean help
ifeq ($(TARGET_KIND),cockroachdb)
all: $(OUT)/import.sql
else
all: $(S)/verified
endif

help:
	@sed -n '1,/^$$/p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

clean:
	rm -rf '$(OUT)'

# --- convert ------------------------------------------------------------------------------
$(S)/converted:
	@test -n "$$MIGRATE_DUMP" || { echo 'migrate.mk: set DUMP=the dump file' >&2; exit 2; }
	mkdir -p '$(S)' '$(OUT)/csv'
	$(PGDUMP2CSV) $(CONVERT_FLAGS) --schema '$(OUT)/schema.sql' --post-data '$(OUT)/post.sql' \
	    $(PGDUMP2CSV_WRITE_MANIFEST) '$(M)' -o '$(OUT)/csv' -- "$$MIGRATE_DUMP"
	touch '$@'
convert: $(S)/converted

# The table list, from the files pgdump2csv wrote; make reads it back in and starts again.
$(OUT)/tables.mk: $(S)/converted
	{ printf 'TABLES :='; \
	  for f in '$(OUT)/csv/'*'$(CSV_EXT)'; do \
	    [ -e "$$f" ] || continue; b=$${f##*/}; printf ' %s' "$${b%$(CSV_EXT)}" | sed 's/%/+/g'; \
	  done; echo; } > '$@'

ifeq ($(filter clean help,$(MAKECMDGOALS)),)
include $(OUT)/tables.mk
endif

# --- per table ----------------------------------------------------------------------------
# check: exit 1 (bad records, kept in bad/) stops the table; CHECK_FLAGS may allow a rate.
# sort + split: pksort by the primary key into csvsplit. Without the pipefail a POSIX shell
# lacks, a failing pksort still fails the pipe: it ends its stdout inside a quoted field, so
# csvsplit refuses the stream (exit 2) and removes its shards. A table whose key pksort
# cannot take from the data (no primary key, or one with a generated column) is split
# unsorted; `pksort --check` of empty input says which. Its shard manifest then records the
# first column as a text key (csvsplit would otherwise take the primary key from the
# manifest and fail on the generated column): informational only, csvload verifies no key
# range of a text key. --force: a rerun replaces the shards
# of an earlier, failed run.
define TABLE_RULES
$(S)/$(1).checked: $(S)/converted
	mkdir -p '$(OUT)/bad'
	$$(call name,$(1)) && $(CSVCHECK) $(CSVCHECK_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" -q \
	    --bad-rows '$(OUT)/bad/$(call fname,$(1)).csv' \
	    --bad-rows-reasons '$(OUT)/bad/$(call fname,$(1)).why.csv' $(CHECK_FLAGS) \
	    '$(OUT)/csv/$(call fname,$(1))$(CSV_EXT)'
	touch '$$@'

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
	    $(PKSORT) $(PKSORT_READ_MANIFEST) '$(M)' $(TABLE) "$$$$T" $(SORT_FLAGS) -- "$$$$in" | shard; \
	else \
	    echo "migrate.mk: $$$$T: split unsorted ($$$$why)" >&2; \
	    shard -k 1:text --nulls first -- "$$$$in"; \
	fi
	touch '$$@'

$(S)/$(1).loaded: $(S)/$(1).split $(S)/schema
	$$(call name,$(1)) && $(CSVLOAD) $(CSVLOAD_READ_MANIFEST) '$(OUT)/shards/$(call fname,$(1)).json' \
	    -t "$$$$T" -j $(LOAD_JOBS) $(BATCH) -q $(LOAD_FLAGS) -- "$$$$MIGRATE_TARGET"
	touch '$$@'
endef
$(foreach t,$(TABLES),$(eval $(call TABLE_RULES,$(t))))

check: $(TABLES:%=$(S)/%.checked)
split: $(TABLES:%=$(S)/%.split)
load: $(TABLES:%=$(S)/%.loaded)

# --- the target database --------------------------------------------------------------------
# The schema (tables only: no indexes or constraints yet) runs once before any table loads;
# csvload journals it, so a rerun after a failure skips what completed.
$(S)/schema: $(S)/converted
	$(CSVLOAD) --schema '$(OUT)/schema.sql' -q $(LOAD_FLAGS) -- "$$MIGRATE_TARGET"
	touch '$@'

$(S)/post-data: $(TABLES:%=$(S)/%.loaded)
	$(CSVLOAD) --post-data '$(OUT)/post.sql' -q $(LOAD_FLAGS) -- "$$MIGRATE_TARGET"
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
