#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets from the fixtures (fixtures/dumps, fixtures/expected*).

    python3 fuzz/seed.py            (writes fuzz/corpus/<target>/, which git ignores)

Every target reads one flag byte first (see the target's doc comment), so each seed is a
flag byte plus a piece of a fixture. Seeds stay small (a few KB) so libFuzzer mutates them
quickly; the whole-converter target also gets whole dumps.
"""
import gzip
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
DUMPS = os.path.join(ROOT, "fixtures", "dumps")


def put(target, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def dumps():
    for name in sorted(os.listdir(DUMPS)):
        with open(os.path.join(DUMPS, name), "rb") as f:
            raw = f.read()
        yield name, raw, (gzip.decompress(raw) if name.endswith(".gz") else raw)


def pieces(text, lines):
    ls = text.splitlines(keepends=True)
    for i in range(0, len(ls), lines):
        yield b"".join(ls[i : i + lines])


def main():
    for name, raw, sql in dumps():
        # Whole dumps for the converter, checked and unchecked, compressed ones as they are.
        put("pgdump2csv", b"\x01" + raw)
        put("pgdump2csv", b"\x0e" + raw)
        for i, p in enumerate(pieces(sql, 60)):
            put("sql_lexer", bytes([(i % 16) << 1 | ("crlf" in name)]) + p)
            put("pgdump2csv", b"\x00" + p)
        for m in re.finditer(rb"^INSERT INTO .*?;\r?$", sql, re.M | re.S):
            put("inserts", b"\x00" + m.group(0))
        for m in re.finditer(rb"^COPY [^\n]*\((.*?)\) FROM stdin;\r?\n(.*?)^\\\.\r?$", sql, re.M | re.S):
            ncols = m.group(1).count(b",") + 1
            for i, p in enumerate(pieces(m.group(2), 30)):
                put("copytext", bytes([ncols & 15 | (i % 2) << 4]) + p)

    for sub in ("expected", "expected-partroot"):
        d = os.path.join(ROOT, "fixtures", sub)
        for i, name in enumerate(sorted(os.listdir(d))):
            with open(os.path.join(d, name), "rb") as f:
                csv = f.read()
            for j, p in enumerate(pieces(csv, 40)):
                put("records", bytes([(i * 7 + j) % 128]) + p)

    keys = [
        (0, [b"0", b"-1", b"+42", b" 7 ", b"99999999999999999999999", b"-0", b"007"]),
        (1, [b"0", b"-1.5", b"1e10", b"NaN", b"123.456000", b"-0.0001", b".5"]),
        (2, [b"0", b"-0", b"1.5e300", b"Infinity", b"-Infinity", b"NaN", b"3.14"]),
        (3, [b"", b"abc", b"a\x00b", "\u00e9".encode(), b"\xff"]),
        (4, [b"", b"ab  ", b"ab", b" a"]),
        (5, [b"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", b"{A0EEBC999C0B4EF8BB6D6BB9BD380A11}"]),
        (6, [b"t", b"f", b"true", b"no"]),
        (7, [b"2024-02-29", b"infinity", b"-infinity", b"0044-03-15 BC"]),
        (8, [b"2024-02-29 12:34:56.789", b"1999-01-08 04:05:06", b"infinity"]),
        (9, [b"2024-02-29 12:34:56.789+01", b"1999-01-08 04:05:06-08:30", b"-infinity"]),
    ]
    for t, vals in keys:
        for a in vals:
            for b in vals:
                put("keys", bytes([t]) + a + b"\x00" + b)

    values = [
        b"0", b"-32768", b"2147483648", b" 12 ", b"1.5", b"NaN", b"-Infinity", b"1e-5",
        b"t", b"off", b"2024-02-29", b"24:00:00", b"04:05:06.789-08", b"2024-02-29 12:00+02",
        b"1 year 2 mons -3 days 04:05:06", b"P1Y2M3DT4H5M6S", b"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        b'{"a": [1, 2.5e3, null, "x\\u00e9"]}', b"\\x00ff", b"\\\\001abc", b"abc  ", b"{1,2,NULL}",
        b'{{"a b","c\\"d"},{NULL,""}}', b"[1:2]={3,4}",
    ]
    for i, v in enumerate(values):
        for t in range(0, 32, 3):
            put("pgtypes", bytes([(t + i) % 32]) + v)
    for name in [b"numeric(12, 4)", b"character varying(10)[]", b"public.mood", b'"Weird"."T"[]',
                 b"interval day to second", b"bit varying(5)", b"float(24)"]:
        put("pgtypes", b"\xc0" + name + b"\x001")


if __name__ == "__main__":
    sys.exit(main())
