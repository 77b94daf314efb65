#!/usr/bin/env python3
"""Writes the benchmark corpus of one data shape: a pg_dump-style plain dump and, for each of
its tables, the CSV pgdump2csv makes of it (dumpshard's CSV contract) with a manifest.

usage: gen_corpus.py SHAPE ROWS OUTDIR [SEED]

Generated, not downloaded, reproducible (fixed seed, Python standard library only). SHAPE:

  clean    the DBT-2 customer table as bench/gen_customer.py makes it (text that almost never
           needs CSV quoting; 21 columns, ~290 B a row)
  quoted   the same rows with quoted names and addresses: c_last `BARABLE, "245"` and
           c_street_1 `12 Oak St, Apt "B"` in every row (two quoted fields with doubled quotes
           per record, the issue-36 shape)
  json     events: bigint, int, timestamptz, numeric, and a jsonb document per row (nested,
           200 B - 4 KB, strings with escaped quotes, backslashes and unicode; every value
           quoted in CSV and its quotes doubled); ROWS/4 rows
  notes    notes: multi-line UTF-8 text (LF, some CR LF, tabs, backslashes, commas, quotes),
           numeric and timestamptz columns; ROWS/2 rows
  all      three tables of different widths in one dump: the quoted customer (21 columns),
           events (5) and notes (5)

Each table's rows are in random key order (for pksort). OUTDIR gets dump.sql, schema.sql (the
DDL, for csvcheck --ddl), TABLE.csv and TABLE.manifest.json per table, and env.sh, which the
bench scripts source (bench/corpus.sh): the main table T, its CSV DATA, MANIFEST, the pksort
key K, DDL and DUMP.
"""
import json, os, random, sys

SHAPES = ("clean", "quoted", "json", "notes", "all")
if len(sys.argv) < 4 or sys.argv[1] not in SHAPES:
    sys.exit(__doc__)
shape, rows, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 42
os.makedirs(outdir, exist_ok=True)


def csv_field(v):
    """A value under the CSV contract (csv/csvout.rs): NULL is an unquoted empty field."""
    if v is None:
        return ""
    if v == "" or v == "\\." or any(c in v for c in ',"\r\n'):
        return '"' + v.replace('"', '""') + '"'
    return v


COPY_ESC = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\v": "\\v"}


def copy_field(v):
    """A value as the server writes COPY text (CopyAttributeOutText)."""
    if v is None:
        return "\\N"
    if not any(c in v for c in COPY_ESC):
        return v
    return "".join(COPY_ESC.get(c, c) for c in v)


# --- customer (clean and quoted): bench/gen_customer.py's rows --------------------------------
CUSTOMER_COLS = [("c_id", "integer", True), ("c_d_id", "integer", True), ("c_w_id", "integer", True),
    ("c_first", "character varying(16)", False), ("c_middle", "character(2)", False),
    ("c_last", "character varying(32)", False), ("c_street_1", "character varying(40)", False),
    ("c_street_2", "character varying(20)", False), ("c_city", "character varying(20)", False),
    ("c_state", "character(2)", False), ("c_zip", "character(9)", False), ("c_phone", "character(16)", False),
    ("c_since", "timestamp without time zone", False), ("c_credit", "character(2)", False),
    ("c_credit_lim", "numeric(24,12)", False), ("c_discount", "numeric(4,4)", False),
    ("c_balance", "numeric(24,12)", False), ("c_ytd_payment", "numeric(24,12)", False),
    ("c_payment_cnt", "integer", False), ("c_delivery_cnt", "integer", False),
    ("c_data", "character varying(500)", False)]


def customer_rows(n, quoted, rng):
    per_w = 10 * 3000
    warehouses = (n + per_w - 1) // per_w
    keys = [(w, d, c) for w in range(1, warehouses + 1) for d in range(1, 11) for c in range(1, 3001)][:n]
    rng.shuffle(keys)
    alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    syll = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"]
    blob = "".join(rng.choice(alpha + "0123456789 ") for _ in range(1 << 16))
    streets = ["Oak St", "Main St", "Elm Ave", "Rue de l'Église", "King's Rd", "Mühlweg"]

    def s(lo, hi):
        k = rng.randint(lo, hi); i = rng.randrange(0, len(blob) - k)
        return blob[i:i + k]

    for (w, d, c) in keys:
        last = syll[c // 100 % 10] + syll[c // 10 % 10] + syll[c % 10]
        r = rng.random()
        street2 = None if r < 0.01 else ("" if r < 0.02 else s(10, 20))
        data = s(60, 200)
        if rng.random() < 0.002:
            data = data[:40] + "\n" + data[40:80] + ', "quoted" ' + data[80:]
        credit = "GC" if rng.random() < 0.9 else "BC"
        street1 = s(10, 20)
        if quoted:
            last = f'{last}, "{c % 1000}"'
            street1 = f'{rng.randint(1, 999)} {rng.choice(streets)}, Apt "{rng.choice(alpha[26:])}"'
        yield [str(c), str(d), str(w), s(8, 16), "OE", last, street1, street2, s(10, 20), s(2, 2),
               f"{rng.randint(0, 9999):04d}11111", f"{rng.randint(0, 10**16 - 1):016d}",
               f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
               credit, "50000.000000000000", f"{rng.randint(0, 5000) / 10000:.4f}", "-10.000000000000",
               "10.000000000000", "1", "0", data]


# --- events: a jsonb document per row ----------------------------------------------------------
EVENTS_COLS = [("id", "bigint", True), ("account_id", "integer", True),
    ("created", "timestamp with time zone", True), ("amount", "numeric(14,2)", False), ("doc", "jsonb", False)]
NAMES = ["Zoë Ångström", "José Núñez", "Łukasz Żółć", "山田 太郎", "Иван Петров", "Smith, John",
         "O'Brien \"Bob\"", "Ånes Ødegård", "محمد علي", "Nguyễn Văn A", "François d'Aubigné", "Ελένη"]
WORDS = ["deliver", "gate", "code", "after", "5pm", "fragile", "café", "naïve", "résumé", "größe",
         "ready", "refund", "\"urgent\"", "C:\\orders\\in", "50%", "½ price", "→", "✓", "🙂", "east, west"]


def jsonb_text(v):
    """v as PostgreSQL prints jsonb: keys by length then bytes, ", " and ": " separators."""
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + jsonb_text(v[k]) for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(jsonb_text(x) for x in v) + "]"
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, str) and v.startswith("#num:"):
        return v[5:]
    return json.dumps(v, ensure_ascii=False)


def phrase(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def event_doc(rng):
    items = [{"sku": f"SKU-{rng.randint(0, 99999):05d}", "qty": rng.randint(1, 9),
              "price": f"#num:{rng.randint(1, 99999) // 100}.{rng.randint(0, 99):02d}",
              "title": phrase(rng, 1, 6), "attrs": {"color": rng.choice(["red", "blue", "grün", "黒"]),
              "gift": rng.random() < 0.2}} for _ in range(rng.choice([0, 1, 1, 2, 3, 5, 8, 13, 21]))]
    doc = {"type": rng.choice(["order", "refund", "signup", "note"]), "v": 2,
           "user": {"name": rng.choice(NAMES), "email": f"u{rng.randint(0, 10**6)}@example.com",
                    "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 4))]},
           "items": items, "ok": rng.random() < 0.9, "ref": None}
    if rng.random() < 0.5:
        doc["comment"] = phrase(rng, 3, 20) + ("\nline two: \"quoted\"" if rng.random() < 0.3 else "")
    return jsonb_text(doc)


def ts(rng):
    # As the server prints it in UTC: trailing zeros of the fraction dropped.
    frac = f".{rng.randint(0, 999999):06d}".rstrip("0").rstrip(".")
    return (f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:"
            f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}{frac}+00")


def event_rows(n, rng):
    ids = list(range(1, n + 1)); rng.shuffle(ids)
    for i in ids:
        amount = None if rng.random() < 0.05 else f"{rng.randint(-99999, 9999999) / 100:.2f}"
        yield [str(i), str(rng.randint(1, 50000)), ts(rng), amount, event_doc(rng)]


# --- notes: multi-line UTF-8 text --------------------------------------------------------------
NOTES_COLS = [("id", "bigint", True), ("customer_id", "integer", True), ("written", "timestamp with time zone", True),
    ("score", "numeric(6,3)", False), ("body", "text", False)]
LINES = ["Called the customer about order #{n}.", "Said: \"deliver after 5pm\", gate code {n}.",
         "Address: {n} Rue de l'Église, 3e étage", "— Zoë", "Refund approved; see C:\\tickets\\{n}.txt",
         "Kunde wünscht Rückruf (Größe 42)", "客户要求退款。", "TODO:\tcheck stock\tand reply", "",
         "Notes, misc: 👍 fine", "Ref {n}, \"as discussed\"; ok"]


def note_rows(n, rng):
    ids = list(range(1, n + 1)); rng.shuffle(ids)
    for i in ids:
        k = rng.randint(1, 8)
        nl = "\r\n" if rng.random() < 0.05 else "\n"
        body = nl.join(rng.choice(LINES).format(n=rng.randint(1, 99999)) for _ in range(k))
        yield [str(i), str(rng.randint(1, 50000)), ts(rng),
               None if rng.random() < 0.1 else f"{rng.randint(0, 999999) / 1000:.3f}", body]


rng = random.Random(seed)
# (name, columns, key columns, pksort -k spec, rows)
tables = []
if shape in ("clean", "quoted", "all"):
    tables.append(("customer", CUSTOMER_COLS, ["c_w_id", "c_d_id", "c_id"], "3:int,2:int,1:int",
                   customer_rows(rows, shape != "clean", rng)))
if shape in ("json", "all"):
    tables.append(("events", EVENTS_COLS, ["id"], "1:int", event_rows(max(1, rows // 4), rng)))
if shape in ("notes", "all"):
    tables.append(("notes", NOTES_COLS, ["id"], "1:int", note_rows(max(1, rows // 2), rng)))


def ddl(name, cols, key):
    body = ",\n".join(f"    {c} {t}{' NOT NULL' if nn else ''}" for c, t, nn in cols)
    return f"CREATE TABLE public.{name} (\n{body}\n);\n", \
        f"ALTER TABLE ONLY public.{name}\n    ADD CONSTRAINT {name}_pkey PRIMARY KEY ({', '.join(key)});\n"


HEAD = """--
-- PostgreSQL database dump
--

-- Dumped from database version 15.14
-- Dumped by pg_dump version 15.14

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

"""

with open(os.path.join(outdir, "dump.sql"), "w", newline="\n", encoding="utf-8") as dump, \
        open(os.path.join(outdir, "schema.sql"), "w", newline="\n", encoding="utf-8") as schema:
    dump.write(HEAD)
    for name, cols, key, _, _ in tables:
        create, _ = ddl(name, cols, key)
        dump.write(f"--\n-- Name: {name}; Type: TABLE; Schema: public; Owner: -\n--\n\n{create}\n\n")
        schema.write(create + "\n")
    for name, cols, key, _, gen in tables:
        dump.write(f"--\n-- Data for Name: {name}; Type: TABLE DATA; Schema: public; Owner: -\n--\n\n")
        dump.write(f"COPY public.{name} ({', '.join(c for c, _, _ in cols)}) FROM stdin;\n")
        n = 0
        with open(os.path.join(outdir, f"{name}.csv"), "w", newline="\n", encoding="utf-8") as csv:
            for row in gen:
                dump.write("\t".join(copy_field(v) for v in row) + "\n")
                csv.write(",".join(csv_field(v) for v in row) + "\n")
                n += 1
        dump.write("\\.\n\n\n")
        path = os.path.join(outdir, f"{name}.csv")
        manifest = {"format": "dumpshard-manifest", "version": 1, "generator": "bench/gen_corpus.py",
                    "source": f"bench/gen_corpus.py {shape}", "tables": [{
                        "schema": "public", "name": name, "file": os.path.basename(path),
                        "columns": [{"name": c, "type": t, "not_null": nn} for c, t, nn in cols],
                        "primary_key": key, "rows": n, "bytes": os.path.getsize(path),
                        "header": False, "null": "", "compression": None}]}
        with open(os.path.join(outdir, f"{name}.manifest.json"), "w") as f:
            json.dump(manifest, f, indent=2); f.write("\n")
    for name, cols, key, _, _ in tables:
        _, pk = ddl(name, cols, key)
        dump.write(f"--\n-- Name: {name} {name}_pkey; Type: CONSTRAINT; Schema: public; Owner: -\n--\n\n{pk}\n\n")
        schema.write(pk + "\n")
    dump.write("--\n-- PostgreSQL database dump complete\n--\n\n")

main = tables[0]
with open(os.path.join(outdir, "env.sh"), "w") as f:
    d = os.path.abspath(outdir)
    f.write(f"# Written by bench/gen_corpus.py {shape} {rows}: the shape's main table for the bench scripts.\n"
            f"SHAPE={shape}\nTABLE={main[0]}\nT=public.{main[0]}\nDATA={d}/{main[0]}.csv\n"
            f"MANIFEST={d}/{main[0]}.manifest.json\nK='-k {main[3]}'\n"
            f"SORTKEY='{' '.join(f'-k{c},{c}n' for c in (x.split(':')[0] for x in main[3].split(',')))}'\nDDL={d}/schema.sql\nDUMP={d}/dump.sql\n"
            f"TABLES='{' '.join(t[0] for t in tables)}'\n")
