#!/usr/bin/env python3
"""DuckDB's typed sort of the DBT-2 customer CSV, as a user would write it (bench/pksort.sh).

usage: duckdb_sort.py IN.csv OUT.csv THREADS MEMORY_LIMIT [MANIFEST]

With MANIFEST (a bench/gen_corpus.py table's), its columns and primary key instead of customer's.

Reads every column as VARCHAR (so values are not re-typed), orders by the primary key cast to
integers, and writes CSV. Needs `pip install duckdb`.
"""
import sys

import duckdb

src, out, threads, mem = sys.argv[1:5]
con = duckdb.connect()
con.execute(f"SET threads = {int(threads)}")
con.execute(f"SET memory_limit = '{mem}'")
ncols, order = 21, "CAST(c2 AS INTEGER), CAST(c1 AS INTEGER), CAST(c0 AS INTEGER)"
if len(sys.argv) > 5:
    import json

    table = json.load(open(sys.argv[5]))["tables"][0]
    names = [c["name"] for c in table["columns"]]
    ncols = len(names)
    order = ", ".join(f"CAST(c{names.index(k)} AS BIGINT)" for k in table["primary_key"])
cols = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(ncols))
con.execute(f"""
    COPY (
        SELECT * FROM read_csv('{src}', header = false, delim = ',', quote = '"', escape = '"',
                               auto_detect = false, columns = {{{cols}}})
        ORDER BY {order}
    ) TO '{out}' (FORMAT csv, HEADER false)
""")
