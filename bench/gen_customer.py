#!/usr/bin/env python3
"""Writes a reproducible DBT-2 customer CSV (dumpshard's CSV contract) in random key order.

usage: gen_customer.py ROWS OUT.csv [SEED]

Rows get the composite key (c_w_id, c_d_id, c_id) with 10 districts and 3000 customers per
district, shuffled with a fixed seed. About 1 in 500 c_data values holds a quoted newline and
comma, and some c_street_2 values are NULL or '' so the NULL/'' distinction is exercised.
A companion manifest OUT.manifest.json describes the table for pksort/csvsplit/csvcheck.
"""
import json, os, random, sys

rows = int(sys.argv[1]); out = sys.argv[2]; seed = int(sys.argv[3]) if len(sys.argv) > 3 else 42
rng = random.Random(seed)
per_w = 10 * 3000
warehouses = (rows + per_w - 1) // per_w
keys = [(w, d, c) for w in range(1, warehouses + 1) for d in range(1, 11) for c in range(1, 3001)][:rows]
rng.shuffle(keys)
alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
syll = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"]
blob = "".join(rng.choice(alpha + "0123456789 ") for _ in range(1 << 16))

def s(lo, hi):
    n = rng.randint(lo, hi); i = rng.randrange(0, len(blob) - n)
    return blob[i:i + n]

with open(out, "w", newline="\n") as f:
    for (w, d, c) in keys:
        last = syll[c // 100 % 10] + syll[c // 10 % 10] + syll[c % 10]
        r = rng.random()
        street2 = "" if r < 0.01 else ('""' if r < 0.02 else s(10, 20))
        data = s(60, 200)
        if rng.random() < 0.002:
            data = '"' + data[:40] + '\n' + data[40:80] + ', ""quoted"" ' + data[80:] + '"'
        credit = "GC" if rng.random() < 0.9 else "BC"
        f.write(f"{c},{d},{w},{s(8,16)},OE,{last},{s(10,20)},{street2},{s(10,20)},{s(2,2)},"
                f"{rng.randint(0,9999):04d}11111,{rng.randint(0,10**16-1):016d},"
                f"2026-{rng.randint(1,12):02d}-{rng.randint(1,28):02d} {rng.randint(0,23):02d}:{rng.randint(0,59):02d}:{rng.randint(0,59):02d},"
                f"{credit},50000.00,{rng.randint(0,5000)/10000:.4f},-10.00,10.00,1,0,{data}\n")

cols = [("c_id","integer",True),("c_d_id","integer",True),("c_w_id","integer",True),
        ("c_first","character varying(16)",False),("c_middle","character(2)",False),
        ("c_last","character varying(16)",False),("c_street_1","character varying(20)",False),
        ("c_street_2","character varying(20)",False),("c_city","character varying(20)",False),
        ("c_state","character(2)",False),("c_zip","character(9)",False),("c_phone","character(16)",False),
        ("c_since","timestamp without time zone",False),("c_credit","character(2)",False),
        ("c_credit_lim","numeric(24,12)",False),("c_discount","numeric(4,4)",False),
        ("c_balance","numeric(24,12)",False),("c_ytd_payment","numeric(24,12)",False),
        ("c_payment_cnt","integer",False),("c_delivery_cnt","integer",False),
        ("c_data","character varying(500)",False)]
manifest = {"format": "dumpshard-manifest", "version": 1, "generator": "bench/gen_customer.py",
            "source": "bench/gen_customer.py", "tables": [{
    "schema": "public", "name": "customer", "file": os.path.basename(out),
    "columns": [{"name": n, "type": t, "not_null": nn} for (n, t, nn) in cols],
    "primary_key": ["c_w_id", "c_d_id", "c_id"], "rows": rows, "bytes": os.path.getsize(out),
    "header": False, "null": "", "compression": None}]}
with open(os.path.splitext(out)[0] + ".manifest.json", "w") as f:
    json.dump(manifest, f, indent=2); f.write("\n")
