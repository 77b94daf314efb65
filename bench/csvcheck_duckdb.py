#!/usr/bin/env python3
"""DuckDB side of bench/csvcheck.sh: reads the customer CSV with the table's column types and
store_rejects, and prints the number of rejected rows.

usage: csvcheck_duckdb.py CSV [THREADS] [MANIFEST]

With MANIFEST (a bench/gen_corpus.py table's), the column types are the manifest's.

Every column is materialised (CREATE TABLE AS SELECT *): a bare count(*) would let DuckDB's
projection pushdown skip the casts, so nothing would be validated. allow_quoted_nulls is
turned off so that "" stays an empty string, as in PostgreSQL. DuckDB has no length check
for varchar(n)/char(n), so those columns are plain VARCHAR: DuckDB does less work here than
csvcheck, which also checks lengths and the primary key.
"""
import sys

import duckdb

csv = sys.argv[1]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
types = [
    ("c_id", "INTEGER"), ("c_d_id", "INTEGER"), ("c_w_id", "INTEGER"),
    ("c_first", "VARCHAR"), ("c_middle", "VARCHAR"), ("c_last", "VARCHAR"),
    ("c_street_1", "VARCHAR"), ("c_street_2", "VARCHAR"), ("c_city", "VARCHAR"),
    ("c_state", "VARCHAR"), ("c_zip", "VARCHAR"), ("c_phone", "VARCHAR"),
    ("c_since", "TIMESTAMP"), ("c_credit", "VARCHAR"), ("c_credit_lim", "DECIMAL(24,12)"),
    ("c_discount", "DECIMAL(4,4)"), ("c_balance", "DECIMAL(24,12)"),
    ("c_ytd_payment", "DECIMAL(24,12)"), ("c_payment_cnt", "INTEGER"),
    ("c_delivery_cnt", "INTEGER"), ("c_data", "VARCHAR"),
]
if len(sys.argv) > 3:
    import json, re

    def duck(t):
        # PostgreSQL's type name as DuckDB's: numbers and times typed, the rest text.
        for pg, dk in (("integer", "INTEGER"), ("bigint", "BIGINT"), ("timestamp with time zone", "TIMESTAMPTZ"),
                       ("timestamp without time zone", "TIMESTAMP"), ("jsonb", "JSON")):
            if t == pg:
                return dk
        m = re.fullmatch(r"numeric\((\d+),(\d+)\)", t)
        return f"DECIMAL({m[1]},{m[2]})" if m else "VARCHAR"

    table = json.load(open(sys.argv[3]))["tables"][0]
    types = [(c["name"], duck(c["type"])) for c in table["columns"]]
columns = "{" + ", ".join(f"'{n}': '{t}'" for n, t in types) + "}"
con = duckdb.connect()
con.execute(f"SET threads = {threads}")
path = csv.replace("'", "''")
con.execute(
    f"""CREATE TABLE customer AS SELECT * FROM read_csv('{path}', columns = {columns},
        header = false, delim = ',', quote = '"', escape = '"', nullstr = '',
        allow_quoted_nulls = false, store_rejects = true)"""
)
rows = con.execute("SELECT count(*) FROM customer").fetchone()[0]
rejects = con.execute("SELECT count(*) FROM reject_errors").fetchone()[0]
print(f"duckdb: {rows} rows loaded, {rejects} rejected")
