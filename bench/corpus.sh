# Sourced by the bench scripts: SHAPE picks the data (bench/gen_corpus.py: clean, quoted, json,
# notes, all); unset, a script keeps its old input (bench/gen_customer.py's customer.csv).
# The corpus of ROWS (default 2000000) is made once under CORPUS (default
# bench/data/corpus-ROWS/SHAPE) and its env.sh sets, for the shape's main table: TABLE, T
# (schema-qualified), DATA (its CSV), MANIFEST, K (pksort -k), SORTKEY (GNU sort -k options),
# DDL (csvcheck --ddl), DUMP (the plain dump of all the shape's tables), TABLES.
if [ -n "${SHAPE:-}" ]; then
    BENCH_DIR_=$(dirname "${BASH_SOURCE[0]}")
    CORPUS=${CORPUS:-$BENCH_DIR_/data/corpus-${ROWS:-2000000}/$SHAPE}
    if [ ! -s "$CORPUS/env.sh" ]; then
        echo "bench: generating the $SHAPE corpus in $CORPUS" >&2
        python3 "$BENCH_DIR_/gen_corpus.py" "$SHAPE" "${ROWS:-2000000}" "$CORPUS" >&2
    fi
    . "$CORPUS/env.sh"
fi
