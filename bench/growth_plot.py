#!/usr/bin/env python3
"""Draws bench/growth.tsv (from bench/growth.sh) as bench/growth.svg: three panels against input
size, log-log: time (solid: wall, dashed: CPU user+sys), throughput (MB/s of dump input per
wall second) and peak RSS. SVG written by hand so no plotting library is needed.

usage: growth_plot.py [growth.tsv [growth.svg]]
"""
import csv, math, sys

tsv = sys.argv[1] if len(sys.argv) > 1 else "bench/growth.tsv"
svg = sys.argv[2] if len(sys.argv) > 2 else "bench/growth.svg"
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
tools = list(dict.fromkeys(r["tool"] for r in rows))
colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
gb = sorted({float(r["size_gb"]) for r in rows})

def series(f):
    return {t: [(float(r["size_gb"]), f(r)) for r in rows if r["tool"] == t] for t in tools}

wall = series(lambda r: float(r["wall_s"]))
cpu = series(lambda r: float(r["user_s"]) + float(r["sys_s"]))
mbs = series(lambda r: float(r["input_bytes"]) / 1e6 / max(float(r["wall_s"]), 1e-3))
rss = series(lambda r: float(r["maxrss_kb"]) / 1024)

W, H, M = 330, 260, 52  # panel size and margin
out = []
def text(x, y, s, anchor="middle", size=11, extra=""):
    s = s.replace("&", "&amp;").replace("<", "&lt;")
    out.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {extra}>{s}</text>')

def panel(ox, title, ylabel, sets, dashed=None):
    vals = [v for s in sets.values() for _, v in s] + [v for s in (dashed or {}).values() for _, v in s]
    vals = [v for v in vals if v > 0]
    lo, hi = math.floor(math.log10(min(vals))), math.ceil(math.log10(max(vals)))
    if hi == lo:
        hi += 1
    xlo, xhi = math.log2(gb[0]), math.log2(gb[-1])
    X = lambda g: ox + M + (math.log2(g) - xlo) / max(xhi - xlo, 1e-9) * (W - M - 10)
    Y = lambda v: 20 + (hi - math.log10(max(v, 10 ** lo))) / (hi - lo) * (H - 20 - 40)
    out.append(f'<rect x="{ox + M}" y="20" width="{W - M - 10}" height="{H - 60}" fill="none" stroke="#999"/>')
    text(ox + W / 2, 14, title, size=12, extra='font-weight="bold"')
    for e in range(lo, hi + 1):
        for k in (1, 2, 5):
            v = k * 10 ** e
            if v > 10 ** hi:
                break
            y = Y(v)
            out.append(f'<line x1="{ox + M}" y1="{y:.1f}" x2="{ox + W - 10}" y2="{y:.1f}" stroke="#eee"/>')
            text(ox + M - 4, y + 4, f"{v:g}", anchor="end", size=9)
    for g in gb:
        out.append(f'<line x1="{X(g):.1f}" y1="20" x2="{X(g):.1f}" y2="{H - 40}" stroke="#eee"/>')
        text(X(g), H - 28, f"{g:g}", size=9)
    text(ox + W / 2, H - 12, "input (GB of plain dump)", size=10)
    text(ox + 12, H / 2 - 10, ylabel, size=10, extra=f'transform="rotate(-90 {ox + 12} {H / 2 - 10})"')
    for i, t in enumerate(tools):
        for s, dash in ((sets, ""), (dashed or {}, 'stroke-dasharray="4 3"')):
            pts = s.get(t, [])
            if pts:
                p = " ".join(f"{X(g):.1f},{Y(v):.1f}" for g, v in pts)
                out.append(f'<polyline points="{p}" fill="none" stroke="{colors[i % 6]}" stroke-width="1.6" {dash}/>')
                for g, v in pts:
                    out.append(f'<circle cx="{X(g):.1f}" cy="{Y(v):.1f}" r="2.2" fill="{colors[i % 6]}"/>')

panel(0, "time (s): wall solid, CPU dashed", "seconds", wall, cpu)
panel(W, "throughput (MB/s, wall)", "MB/s", mbs)
panel(2 * W, "peak RSS (MiB)", "MiB", rss)
for i, t in enumerate(tools):
    x = 20 + i * (3 * W - 20) / len(tools)
    out.append(f'<line x1="{x:.0f}" y1="{H + 8}" x2="{x + 18:.0f}" y2="{H + 8}" stroke="{colors[i % 6]}" stroke-width="3"/>')
    text(x + 22, H + 12, t, anchor="start", size=10)
loads = sorted(float(r["load1"]) for r in rows)
text(3 * W / 2, H + 30, f"one run per point, shared 2-core VM, load average {loads[0]:g}-{loads[-1]:g}; "
     "pipeline peak RSS is its largest process", size=10)
with open(svg, "w") as f:
    f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{3 * W}" height="{H + 40}" '
            f'font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>\n')
    f.write("\n".join(out))
    f.write("\n</svg>\n")
print(f"wrote {svg}")
