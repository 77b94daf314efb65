#!/usr/bin/env python3
"""Derive CockroachDB's statement grammar, per release, from the railroad diagrams that
cockroachdb/docs publishes (issue 59): the referee that decides whether a statement is in a
release's grammar (src/schemaconv/grammar/mod.rs reads the output).

    derive_crdb.py DOCS_GIT_DIR COMMIT OUT_DIR [RELEASE ...]

DOCS_GIT_DIR is a clone (bare or not) of https://github.com/cockroachdb/docs; COMMIT the commit
to read; each RELEASE (default: all of RELEASES) is read from
src/current/_includes/cockroach-generated/release-RELEASE/sql-diagrams/stmt_block.html and
written to OUT_DIR/crdb-RELEASE.bnf. Python 3 standard library only.

How a diagram becomes a rule
----------------------------
stmt_block.html holds one SVG railroad diagram per grammar rule, drawn by the Railroad Diagram
Generator from the BNF that cockroach's docgen extracts from sql.y. A diagram is boxes
(terminals and nonterminals, each a <rect> with its <text>) joined by one <path> of straight
lines and quarter curves. The script reads the geometry, not the drawing order (the generator
draws loop tracks left to right although a train runs them right to left):

* every line, curve and box is a track piece with an entry and an exit direction;
* a train enters the diagram at the start arrow heading right and may pass from one piece to
  another only where they meet heading the same way (railroad diagrams have no sharp turns),
  in either direction along a piece;
* so a state is (point, heading), each piece gives two edges (forwards and backwards), a box
  edge reads the box's symbol, and the states the train can reach between the start and the
  end arrow form an automaton whose language is the rule's right-hand side.

The automaton is turned into a regular expression by eliminating states (chains first, so
the expression keeps the diagram's shape), and that expression is checked to have exactly
the automaton's language (both determinised and compared) before it is written.

Terminals are classified as CockroachDB's lexer makes them: the words of the rules named
*_keyword are its keywords (cockroach's all_keywords.awk builds the lexer's keyword table from
those rules), written 'WORD'; a word used elsewhere but in no such rule is written the same
way and listed in the header, as the lexer never makes it (the word is an IDENT); a single
character of punctuation is written as itself, '('; every other terminal is a token class of
the lexer (IDENT, which the diagrams spell 'identifier', SCONST, the named operators, the
look-ahead tokens), written bare, and must be one of TOKEN_CLASSES below, or the script stops.
docgen writes the look-ahead tokens NOT_LA, WITH_LA, NULLS_LA, AS_LA and ON_LA as the plain
keyword (it deletes "_LA"), so they do not appear.

The diagrams are known to differ from sql.y in a few places (issue 59); CORRECTIONS below
lists each change made to the derived rules, with its reason and source, and the script stops
if a correction no longer applies (the diagrams changed, so it must be looked at again).
"""

import heapq
import html
import re
import subprocess
import sys
import textwrap
from collections import defaultdict

RELEASES = ["24.1", "24.3", "25.1", "25.2", "25.3", "25.4", "26.1", "26.2"]
DIAGRAMS = "src/current/_includes/cockroach-generated/release-{}/sql-diagrams/stmt_block.html"

# The token classes of CockroachDB's lexer that are not keywords: pkg/sql/scanner/scan.go
# (literals and operators) and pkg/sql/parser/lexer.go (the look-ahead tokens, which the lexer
# makes from a keyword and the token after it). The spelling is what the header documents and
# what the recognizer (mod.rs, crdb_token) must agree with.
TOKEN_CLASSES = {
    "IDENT": "an unquoted word that is not a keyword, or any \"quoted\" identifier",
    "SCONST": "a string: '...', e'...', E'...', $$...$$, $tag$...$tag$",
    "BCONST": "a byte string: b'...', x'...', X'...'",
    "BITCONST": "a bit string: B'...'",
    "ICONST": "an integer: 123, 0x1F",
    "FCONST": "a decimal number: 1.5, .5, 1e3",
    "PLACEHOLDER": "$1",
    "TYPECAST": "::",
    "TYPEANNOTATE": ":::",
    "DOT_DOT": "..",
    "NOT_EQUALS": "!= or <>",
    "LESS_EQUALS": "<=",
    "GREATER_EQUALS": ">=",
    "LSHIFT": "<<",
    "RSHIFT": ">>",
    "INET_CONTAINED_BY_OR_EQUALS": "<<=",
    "INET_CONTAINS_OR_EQUALS": ">>=",
    "CONTAINS": "@>",
    "CONTAINED_BY": "<@",
    "AT_AT": "@@",
    "AND_AND": "&&",
    "CONCAT": "||",
    "SQRT": "|/",
    "CBRT": "||/",
    "FLOORDIV": "//",
    "REGIMATCH": "~*",
    "NOT_REGMATCH": "!~",
    "NOT_REGIMATCH": "!~*",
    "FETCHVAL": "->",
    "FETCHTEXT": "->>",
    "FETCHVAL_PATH": "#>",
    "FETCHTEXT_PATH": "#>>",
    "REMOVE_PATH": "#-",
    "JSON_SOME_EXISTS": "?|",
    "JSON_ALL_EXISTS": "?&",
    "HELPTOKEN": "??",
    "DISTANCE": "<->",
    "COS_DISTANCE": "<=>",
    "NEG_INNER_PRODUCT": "<#>",
    "NOT_LA": "NOT before BETWEEN, IN, LIKE, ILIKE or SIMILAR",
    "WITH_LA": "WITH before TIME, ORDINALITY or BUCKET_COUNT",
    "AS_LA": "AS before OF SYSTEM",
    "NULLS_LA": "NULLS before FIRST or LAST",
    "GENERATED_ALWAYS": "GENERATED before ALWAYS",
    "GENERATED_BY_DEFAULT": "GENERATED before BY",
    "RESET_ALL": "RESET before ALL",
    "ROLE_ALL": "ROLE before ALL",
    "USER_ALL": "USER before ALL",
    "ON_LA": "ON before DELETE, or before UPDATE then NO, RESTRICT, CASCADE or SET",
    "TENANT_ALL": "TENANT before ALL",
    "CLUSTER_ALL": "CLUSTER before ALL",
    "SET_TRACING": "SET before TRACING (not tracing.x), or before SESSION TRACING",
    "OVERRIDING_SYSTEM_VALUE": "OVERRIDING before SYSTEM",
    "OVERRIDING_USER_VALUE": "OVERRIDING before USER",
    "NOTHING_AFTER_RETURNING": "NOTHING after RETURNING",
    "INDEX_BEFORE_PAREN": "INDEX after ( or , (or INVERTED/VECTOR after them) before (",
    "INDEX_BEFORE_NAME_THEN_PAREN": "INDEX as above, before a word then (",
    "INDEX_AFTER_ORDER_BY_BEFORE_AT": "INDEX after ORDER BY or , before a name then @",
}

# The diagrams spell these token classes differently.
RENAME = {"identifier": "IDENT"}

PUNCTUATION = set("()[]{},.;:+-*/%^<>=~@#&|?")

# Corrections to the diagrams: (releases, rule, as derived, corrected, reason). `releases` is
# None for every release whose diagrams have the rule, or the releases that must have it;
# the right-hand sides are in this file's syntax, and the derived one must be exactly what
# the diagrams give, or the script stops (the diagrams changed: look again).
#
# Why the diagrams differ from sql.y: cockroach's docgen (pkg/cmd/docgen/extract/extract.go,
# GenerateBNF) drops every alternative whose action mentions `unimplemented` or says
# `SKIP DOC`, and every alternative that uses a rule left with none; it loses an empty
# first alternative of some rules (written `{ ... }` or `/* EMPTY */ { ... }` before the
# first `|`), so those optional clauses are drawn as required; and it drops alternatives
# that use yacc's `error` token. The dropped unimplemented and SKIP DOC forms stay out (the
# former are refused by CockroachDB with "unimplemented"; the latter are parsed but
# undocumented, and leaving them out only makes the referee stricter). The sources quoted
# are cockroachdb/cockroach pkg/sql/parser/sql.y as the search tool stores it (a 25.x master
# and older copies); its release branches could not be read one by one, which is why each
# correction is also checked against every release's diagrams (the `as derived` text).
#
# Left as drawn: opt_cluster, opt_show_ranges_options and opt_show_create_format_options
# (SHOW statements) look like the same defect, but no copy of sql.y the search tool holds has
# them; the referee is stricter there, and pg_dump writes none of them.
SQL_Y = "cockroachdb/cockroach pkg/sql/parser/sql.y"
EMPTY_FIRST = "sql.y's first alternative is empty, which docgen loses"
CORRECTIONS = [
    (
        None,
        "opt_with_storage_parameter_list",
        "'WITH' '(' storage_parameter_list ')'",
        "( 'WITH' '(' storage_parameter_list ')' )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_with_storage_parameter_list: {{ $$.val = nil }} | WITH '(' "
        "storage_parameter_list ')'`; without it every CREATE TABLE, CREATE INDEX and PRIMARY "
        "KEY would need a WITH (...) clause",
    ),
    (
        None,
        "opt_create_table_on_commit",
        "'ON' 'COMMIT' 'PRESERVE' 'ROWS'",
        "( 'ON' 'COMMIT' 'PRESERVE' 'ROWS' )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_create_table_on_commit: {{ $$.val = "
        "tree.CreateTableOnCommitUnset } | ON COMMIT PRESERVE ROWS | ON COMMIT DELETE ROWS error "
        "(unimplemented) | ON COMMIT DROP error (unimplemented)`",
    ),
    (
        None,
        "opt_locked_rels",
        "'OF' table_name_list",
        "( 'OF' table_name_list )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_locked_rels: /* EMPTY */ | OF table_name_list` "
        "(SELECT ... FOR UPDATE without OF)",
    ),
    (
        None,
        "opt_nowait_or_skip",
        "'SKIP' 'LOCKED' | 'NOWAIT'",
        "( 'SKIP' 'LOCKED' | 'NOWAIT' )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_nowait_or_skip: /* EMPTY */ | SKIP LOCKED | NOWAIT`",
    ),
    (
        ["24.1", "24.3", "25.1", "25.2"],
        "opt_col_def_list",
        "'(' col_def_list ')'",
        "( '(' col_def_list ')' )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_col_def_list: /* EMPTY */ {{ $$.val = "
        "tree.ColumnDefList(nil) } | '(' col_def_list ')'` (a function in FROM with an alias "
        "and no column list)",
    ),
    (
        None,
        "opt_backup_targets",
        "backup_targets",
        "backup_targets?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_backup_targets: /* EMPTY -- full cluster */ | "
        "backup_targets`",
    ),
    (
        None,
        "opt_changefeed_sink",
        "'INTO' string_or_placeholder",
        "( 'INTO' string_or_placeholder )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_changefeed_sink: INTO string_or_placeholder | /* EMPTY */ "
        "{ /* SKIP DOC */ }` (kept out in older copies, an empty first alternative in newer)",
    ),
    (
        None,
        "opt_schedule_executor_type",
        "'FOR' ( 'BACKUP' | 'SQL' 'STATISTICS' | 'CHANGEFEED' )",
        "( 'FOR' ( 'BACKUP' | 'SQL' 'STATISTICS' | 'CHANGEFEED' ) )?",
        f"{EMPTY_FIRST}: {SQL_Y}: `opt_schedule_executor_type: /* Empty */ | FOR BACKUP | FOR SQL "
        "STATISTICS ...`",
    ),
    (
        ["26.2"],
        "opt_view_with",
        "'WITH' '(' 'SECURITY_INVOKER' ( '=' ( 'TRUE' | ICONST | 'FALSE' ) )? ')'",
        "( 'WITH' '(' 'SECURITY_INVOKER' ( '=' ( 'TRUE' | ICONST | 'FALSE' ) )? ')' )?",
        "an optional clause drawn as required (new in 26.2, after the search tool's copies of "
        "sql.y); without it no CREATE VIEW would parse, and v26.2/create-view.md's examples have "
        "no WITH",
    ),
    (
        None,
        "opt_with_data",
        "( 'WITH' 'DATA' )?",
        "( 'WITH' 'NO'? 'DATA' )?",
        f"docgen drops alternatives that use yacc's error token: {SQL_Y}: `opt_with_data: WITH NO "
        "DATA error { $$.val = false } | WITH DATA | /* EMPTY */`; the error token lets the "
        "parser accept WITH NO DATA at the end of CREATE MATERIALIZED VIEW (supported since "
        "v22.2, issue 59; create-view.md)",
    ),
]


# ---------------------------------------------------------------------------------------
# Reading the diagrams


def git_show(git_dir, commit, path):
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
    ).stdout.decode()


RULE_RE = re.compile(
    r'<a name="([^"]+)" href="#[^"]+">[^<]*</a></p><svg width="\d+" height="\d+">(.*?)</svg>',
    re.S,
)
BOX_RE = re.compile(
    r'<rect x="(-?\d+)" y="(-?\d+)" width="(\d+)" height="(\d+)" class="(terminal|nonterminal)"'
    r'(?: rx="\d+")?></rect>\s*<text class="(?:terminal|nonterminal)" x="-?\d+" y="-?\d+">'
    r"([^<]*)</text>"
)
POLY_RE = re.compile(r'<polygon points="([^"]+)"></polygon>')
PATH_RE = re.compile(r'<path class="line" d="([^"]+)"></path>')


def parse_diagrams(text):
    """The rules of stmt_block.html: [(name, boxes, path, polygons)]."""
    rules = []
    for name, body in RULE_RE.findall(text):
        boxes = []
        for x, y, w, h, cls, label in BOX_RE.findall(body):
            boxes.append((int(x), int(y), int(w), int(h), cls, html.unescape(label)))
        # Every box drawn must have been read: its class attribute appears once per box.
        n_drawn = body.count('class="terminal"') + body.count('class="nonterminal"')
        if n_drawn != 2 * len(boxes):
            sys.exit(f"{name}: read {len(boxes)} boxes of {n_drawn // 2}")
        paths = PATH_RE.findall(body)
        polys = [
            [tuple(map(float, p.split()[i : i + 2])) for i in range(0, 6, 2)]
            for p in POLY_RE.findall(body)
        ]
        if len(paths) != 1 or len(polys) != 4:
            sys.exit(f"{name}: {len(paths)} paths, {len(polys)} arrows")
        rules.append((name, boxes, paths[0], polys))
    return rules


def path_pieces(d):
    """The straight lines and curves of an SVG path of relative commands (m, h, v, l, q):
    [(p0, p1, entry direction, exit direction)], directions as unit (dx, dy).

    A sequence too wide for the page is wrapped: its row ends in a dotted stub (three dashes,
    `m2 0 l2 0 m2 0 l2 0 m2 0 l2 0`) and the next row begins with another, drawn next. The
    stubs are not track: each pair becomes one piece from where the first stub begins to
    where the second ends, both a 2-unit gap away from the dashes."""
    toks = re.findall(r"[a-zA-Z]|-?\d+(?:\.\d+)?", d)
    cmds = []
    x = y = 0.0
    i = 0
    cmd = None
    arity = {"m": 2, "h": 1, "v": 1, "l": 2, "q": 4}
    while i < len(toks):
        if toks[i].isalpha():
            cmd = toks[i]
            i += 1
            if cmd not in arity:
                sys.exit(f"path command {cmd!r} not handled")
        args = [float(t) for t in toks[i : i + arity[cmd]]]
        i += arity[cmd]
        p0 = (x, y)
        c = None
        if cmd in ("m", "l"):
            x, y = x + args[0], y + args[1]
        elif cmd == "h":
            x += args[0]
        elif cmd == "v":
            y += args[0]
        elif cmd == "q":
            c = (x + args[0], y + args[1])
            x, y = x + args[2], y + args[3]
        cmds.append((cmd, args, p0, (x, y), c))

    dash = ("l", [2.0, 0.0])
    gap = ("m", [2.0, 0.0])
    stubs = []
    pieces = []
    k = 0
    while k < len(cmds):
        shape = [(c[0], c[1]) for c in cmds[k : k + 5]]
        if shape == [dash, gap, dash, gap, dash]:
            first, last = cmds[k][2], cmds[k + 4][3]
            stubs.append(((first[0] - 2, first[1]), (last[0] + 2, last[1])))
            k += 5
            continue
        cmd, args, p0, p1, c = cmds[k]
        k += 1
        if cmd == "m":
            continue
        if cmd == "q":
            t0 = unit(c[0] - p0[0], c[1] - p0[1]) or unit(p1[0] - p0[0], p1[1] - p0[1])
            t1 = unit(p1[0] - c[0], p1[1] - c[1]) or unit(p1[0] - p0[0], p1[1] - p0[1])
        else:
            t0 = t1 = unit(p1[0] - p0[0], p1[1] - p0[1])
        if t0 is None:
            continue  # zero length
        pieces.append((p0, p1, t0, t1))
    if len(stubs) % 2:
        sys.exit("a wrapped row without its continuation")
    for (row_end, _), (_, row_start) in zip(stubs[0::2], stubs[1::2]):
        if not row_start[1] > row_end[1]:
            sys.exit("a wrapped row continues above itself")
        pieces.append((row_end, row_start, (1, 0), (1, 0)))
    return pieces


def unit(dx, dy):
    if dx == 0 and dy == 0:
        return None
    if dx != 0 and dy != 0:
        sys.exit(f"a piece of track leaves at a slant ({dx}, {dy})")
    return (int(dx > 0) - int(dx < 0), int(dy > 0) - int(dy < 0))


def rule_automaton(name, boxes, d, polys):
    """The rule's diagram as an automaton: (edges {state: [(label, state)]}, start, end),
    a label being None (no symbol) or (kind, text)."""
    pieces = [(p0, p1, t0, t1, None) for p0, p1, t0, t1 in path_pieces(d)]
    for x, y, w, h, cls, label in boxes:
        mid = y + h / 2
        pieces.append(((x, mid), (x + w, mid), (1, 0), (1, 0), (cls, label)))

    # Points closer than 1.5 units are one point: the generator starts a loop's curve one
    # unit before the junction it leaves (`l20 0 m-1 0 q-9 0 -9 -10`).
    pts = []
    grid = {}

    def node(p):
        gx, gy = round(p[0]), round(p[1])
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for k in grid.get((gx + dx, gy + dy), []):
                    q = pts[k]
                    if abs(p[0] - q[0]) <= 1.5 and abs(p[1] - q[1]) <= 1.5:
                        return k
        pts.append(p)
        grid.setdefault((gx, gy), []).append(len(pts) - 1)
        return len(pts) - 1

    ends = [(node(p0), node(p1), t0, t1, lab) for p0, p1, t0, t1, lab in pieces]
    by_y = defaultdict(list)
    by_x = defaultdict(list)
    for k, (px, py) in enumerate(pts):
        by_y[round(py)].append(k)
        by_x[round(px)].append(k)
    # A straight piece passing through a point where another piece begins is split there
    # (a junction in the middle of a line).
    split = []
    for a, b, t0, t1, lab in ends:
        if lab is not None or t0 != t1:
            split.append((a, b, t0, t1, lab))
            continue
        (ax, ay), (bx, by) = pts[a], pts[b]
        if ax != bx and ay != by:
            # the jump from a wrapped row's end to the next row's start
            split.append((a, b, t0, t1, lab))
            continue
        inner = []
        if t0[1] == 0:
            for k in by_y[round(ay)]:
                px, py = pts[k]
                if k not in (a, b) and abs(py - ay) <= 0.5 and min(ax, bx) < px < max(ax, bx):
                    inner.append((abs(px - ax), k))
        else:
            for k in by_x[round(ax)]:
                px, py = pts[k]
                if k not in (a, b) and abs(px - ax) <= 0.5 and min(ay, by) < py < max(ay, by):
                    inner.append((abs(py - ay), k))
        seq = [a] + [k for _, k in sorted(inner)] + [b]
        for u, v in zip(seq, seq[1:]):
            split.append((u, v, t0, t1, None))

    edges = defaultdict(list)
    for a, b, t0, t1, lab in split:
        # Forwards: at a heading t0, through the piece, at b heading t1; backwards likewise.
        edges[(a, t0)].append((lab, (b, t1)))
        edges[(b, (-t1[0], -t1[1]))].append((lab, (a, (-t0[0], -t0[1]))))

    # The start arrow's tip is where the path begins; the end arrow's tip is 7 units right
    # of where the path ends.
    sx, sy = polys[1][0]
    ex, ey = polys[2][0]
    start = (node((sx, sy)), (1, 0))
    end_pts = [(px, k) for k, (px, py) in enumerate(pts) if abs(py - ey) <= 0.5 and ex - 10 <= px < ex]
    if not end_pts:
        sys.exit(f"{name}: end of the diagram not found")
    end = (max(end_pts)[1], (1, 0))
    return edges, start, end


# ---------------------------------------------------------------------------------------
# Expressions: ("sym", kind, text) | ("seq", [e]) | ("alt", [e]) | ("opt", e) | ("star", e)
# | ("plus", e); ("seq", []) is the empty string.

EMPTY = ("seq", [])


def seq(*es):
    out = []
    for e in es:
        out.extend(e[1] if e[0] == "seq" else [e])
    # X X* and X* X -> X+ (X a single item or a sequence)
    changed = True
    while changed:
        changed = False
        for i in range(len(out)):
            e = out[i]
            if e[0] == "star":
                body = e[1][1] if e[1][0] == "seq" else [e[1]]
                n = len(body)
                if n and out[max(0, i - n) : i] == body and i - n >= 0:
                    out[i - n : i + 1] = [("plus", e[1])]
                    changed = True
                    break
                if n and out[i + 1 : i + 1 + n] == body:
                    out[i : i + 1 + n] = [("plus", e[1])]
                    changed = True
                    break
    return out[0] if len(out) == 1 else ("seq", out)


def alt(*es):
    items = []
    nullable = False
    for e in es:
        for x in e[1] if e[0] == "alt" else [e]:
            if x == EMPTY:
                nullable = True
            elif x[0] == "opt":
                nullable = True
                if x[1] not in items:
                    items.append(x[1])
            elif x not in items:
                items.append(x)
    items = factor(items)
    if not items:
        return EMPTY
    core = items[0] if len(items) == 1 else ("alt", items)
    if nullable and not is_nullable(core):
        return opt(core)
    return core


def factor(items):
    """Common leading or trailing items of alternatives taken out: `a b | a c` -> `a (b | c)`."""
    for side in (0, -1):
        groups = {}
        order = []
        for it in items:
            parts = it[1] if it[0] == "seq" else [it]
            if len(parts) < 2:
                key = None
            else:
                key = repr(parts[side])
            if key is None or key not in groups:
                order.append(key if key is not None else ("solo", len(order)))
                groups.setdefault(order[-1], []).append(it)
            else:
                groups[key].append(it)
        if all(len(g) == 1 for g in groups.values()):
            continue
        out = []
        for key in order:
            g = groups[key]
            if len(g) == 1:
                out.append(g[0])
                continue
            parts0 = g[0][1]
            common = parts0[side]
            rests = [seq(*(it[1][1:] if side == 0 else it[1][:-1])) for it in g]
            rest = alt(*rests)
            out.append(seq(common, rest) if side == 0 else seq(rest, common))
        return out
    return items


def opt(e):
    if e == EMPTY or is_nullable(e):
        return e
    if e[0] == "plus":
        return ("star", e[1])
    return ("opt", e)


def star(e):
    if e == EMPTY:
        return EMPTY
    if e[0] in ("star", "plus", "opt"):
        e = e[1]
    return ("star", e)


def is_nullable(e):
    k = e[0]
    if k == "sym":
        return False
    if k == "seq":
        return all(is_nullable(x) for x in e[1])
    if k == "alt":
        return any(is_nullable(x) for x in e[1])
    if k in ("opt", "star"):
        return True
    return is_nullable(e[1])


def to_expression(edges, start, end):
    """State elimination over the automaton: states with one way in or one way out first,
    so that a chain of pieces becomes a sequence and a fork a choice, as drawn."""
    fwd = reach(edges, start)
    back_edges = defaultdict(list)
    for s, outs in edges.items():
        for lab, t in outs:
            back_edges[t].append((lab, s))
    live = fwd & reach(back_edges, end)
    if start not in live:
        return None
    S, F = "S", "F"
    # succ[p][q]: the expressions of the edges p -> q (a list, joined into a choice only
    # when p or q is eliminated); pred[q]: the p with an edge p -> q.
    succ = defaultdict(dict)
    pred = defaultdict(set)

    def add(p, q, e):
        succ[p].setdefault(q, []).append(e)
        pred[q].add(p)

    add(S, start, EMPTY)
    add(end, F, EMPTY)
    for s in live:
        for lab, t in edges.get(s, []):
            if t in live:
                add(s, t, EMPTY if lab is None else ("sym",) + lab)

    def cost(s):
        ins = len(pred[s] - {s})
        outs = len(set(succ[s]) - {s})
        return (ins * outs, ins + outs)

    heap = [(cost(s), n, s) for n, s in enumerate(live)]
    heapq.heapify(heap)
    done = set()
    n = len(heap)
    while heap:
        c, _, s = heapq.heappop(heap)
        if s in done:
            continue
        if c != cost(s):
            n += 1
            heapq.heappush(heap, (cost(s), n, s))
            continue
        done.add(s)
        loop = succ[s].pop(s, None)
        pred[s].discard(s)
        mid = [star(alt(*loop))] if loop is not None else []
        ins = [(p, alt(*succ[p].pop(s))) for p in pred[s]]
        outs = [(q, alt(*es)) for q, es in succ[s].items()]
        for q, _ in outs:
            pred[q].discard(s)
        del succ[s]
        del pred[s]
        touched = set()
        for p, a in ins:
            for q, b in outs:
                add(p, q, seq(a, *mid, b))
            touched.add(p)
        touched |= {q for q, _ in outs}
        for t in touched - {S, F}:
            n += 1
            heapq.heappush(heap, (cost(t), n, t))
    es = succ[S].get(F)
    return alt(*es) if es else None


def reach(edges, s0):
    seen = {s0}
    todo = [s0]
    while todo:
        s = todo.pop()
        for _, t in edges.get(s, []):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


# ---------------------------------------------------------------------------------------
# Language equality of an expression and an automaton (the derivation's self-check)


def expr_automaton(e):
    """Thompson construction: (edges, start, end) as rule_automaton gives."""
    edges = defaultdict(list)
    counter = [0]

    def new():
        counter[0] += 1
        return counter[0]

    def build(e, a, b):
        k = e[0]
        if k == "sym":
            edges[a].append(((e[1], e[2]), b))
        elif k == "seq":
            cur = a
            for i, x in enumerate(e[1]):
                nxt = b if i == len(e[1]) - 1 else new()
                build(x, cur, nxt)
                cur = nxt
            if not e[1]:
                edges[a].append((None, b))
        elif k == "alt":
            for x in e[1]:
                build(x, a, b)
        elif k == "opt":
            build(e[1], a, b)
            edges[a].append((None, b))
        elif k in ("star", "plus"):
            m1, m2 = new(), new()
            edges[a].append((None, m1))
            build(e[1], m1, m2)
            edges[m2].append((None, m1))
            edges[m2].append((None, b))
            if k == "star":
                edges[a].append((None, b))

    s, f = new(), new()
    build(e, s, f)
    return edges, s, f


def closure(edges, states):
    seen = set(states)
    todo = list(states)
    while todo:
        s = todo.pop()
        for lab, t in edges.get(s, []):
            if lab is None and t not in seen:
                seen.add(t)
                todo.append(t)
    return frozenset(seen)


def step(edges, states, sym):
    return closure(edges, [t for s in states for lab, t in edges.get(s, []) if lab == sym])


def same_language(a1, a2):
    (e1, s1, f1), (e2, s2, f2) = a1, a2
    p0 = (closure(e1, [s1]), closure(e2, [s2]))
    seen = {p0}
    todo = [p0]
    while todo:
        x, y = todo.pop()
        if (f1 in x) != (f2 in y):
            return False
        syms = {lab for e, st in ((e1, x), (e2, y)) for s in st for lab, _ in e.get(s, [])}
        syms.discard(None)
        for sym in syms:
            nxt = (step(e1, x, sym), step(e2, y, sym))
            if not nxt[0] and not nxt[1]:
                continue
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return True


# ---------------------------------------------------------------------------------------
# Text


def sym_text(kind, text, keywords):
    if kind == "nonterminal":
        return text
    text = RENAME.get(text, text)
    if text in TOKEN_CLASSES:
        return text
    if re.fullmatch(r"[A-Z][A-Z_0-9]*", text):
        # A keyword; or a word in no keyword rule, which the lexer never makes (listed in
        # the header).
        return f"'{text}'"
    if text in PUNCTUATION:
        return "'\\''" if text == "'" else f"'{text}'"
    sys.exit(f"terminal {text!r} is neither a keyword, punctuation nor a known token class")


def show(e, kw, top=False):
    k = e[0]
    if k == "sym":
        return sym_text(e[1], e[2], kw)
    if k == "seq":
        if not e[1]:
            return "()"
        return " ".join(show(x, kw) if x[0] != "alt" else f"( {show(x, kw)} )" for x in e[1])
    if k == "alt":
        sep = "\n    | " if top else " | "
        return sep.join(show(x, kw) for x in e[1])
    inner = show(e[1], kw)
    if e[1][0] in ("seq", "alt") and e[1] != EMPTY:
        inner = f"( {inner} )"
    return inner + {"opt": "?", "star": "*", "plus": "+"}[k]


def derive(text, release):
    rules = parse_diagrams(text)
    exprs = {}
    for name, boxes, d, polys in rules:
        if name in exprs:
            sys.exit(f"{name}: drawn twice")
        auto = rule_automaton(name, boxes, d, polys)
        e = to_expression(*auto)
        if e is None:
            sys.exit(f"{name}: no way through the diagram")
        if not same_language(auto, expr_automaton(e)):
            sys.exit(f"{name}: the expression's language is not the diagram's")
        exprs[name] = e
    return exprs


def terminals(e, out):
    if e[0] == "sym":
        if e[1] == "terminal":
            out.add(e[2])
    elif e[0] in ("seq", "alt"):
        for x in e[1]:
            terminals(x, out)
    else:
        terminals(e[1], out)
    return out


def nonterminals(e, out):
    if e[0] == "sym":
        if e[1] == "nonterminal":
            out.add(e[2])
    elif e[0] in ("seq", "alt"):
        for x in e[1]:
            nonterminals(x, out)
    else:
        nonterminals(e[1], out)
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    git_dir, commit, out_dir = sys.argv[1:4]
    releases = sys.argv[4:] or RELEASES
    for rel in releases:
        path = DIAGRAMS.format(rel)
        exprs = derive(git_show(git_dir, commit, path), rel)
        # The lexer's keywords: the words of the rules named *_keyword, as cockroach's
        # all_keywords.awk collects them (sql.y lists a few look-ahead tokens there too).
        keywords = set()
        for r, e in exprs.items():
            if r.endswith("_keyword"):
                keywords |= {t for t in terminals(e, set()) if re.fullmatch(r"[A-Z_0-9]+", t)}
        keywords -= set(TOKEN_CLASSES)
        missing = set()
        for e in exprs.values():
            missing |= nonterminals(e, set()) - set(exprs)
        if missing:
            sys.exit(f"{rel}: rules used but not drawn: {sorted(missing)}")
        lines = [
            f"# CockroachDB {rel}: the statement grammar, derived by derive_crdb.py from the",
            "# railroad diagrams of https://github.com/cockroachdb/docs",
            f"# commit {commit}",
            f"# path {path}",
            "#",
            "# rule ::= expression; an expression is items in sequence, alternatives split by |,",
            "# ( ) groups, () is empty, postfix ? * + as in EBNF. 'WORD' is a keyword (an unquoted",
            "# word, any case), '(' punctuation, an UPPER_CASE name a token class of the lexer:",
        ]
        used = set()
        for e in exprs.values():
            used |= {RENAME.get(t, t) for t in terminals(e, set())}
        for t in sorted(used & set(TOKEN_CLASSES)):
            lines.append(f"#   {t}: {TOKEN_CLASSES[t]}")
        words = {t for e in exprs.values() for t in terminals(e, set())}
        dead = sorted(
            t for t in words - keywords - set(TOKEN_CLASSES) if re.fullmatch(r"[A-Z][A-Z_0-9]*", t)
        )
        lines.append("# The keywords are the words of the rules named *_keyword (as cockroach's")
        lines.append("# all_keywords.awk makes the lexer's keyword table); other words are IDENT.")
        if dead:
            lines.append("# Words used in rules but in no *_keyword rule, so never a token (dead):")
            lines.append("#   " + " ".join(dead))
        lines.append("# The first rule is the start symbol. Corrections to the diagrams (derive_crdb.py,")
        lines.append("# CORRECTIONS):")
        fixed = {}
        for releases, rule, before, after, reason in CORRECTIONS:
            if rule not in exprs:
                if releases is not None and rel in releases:
                    sys.exit(f"{rel}: correction of {rule}: the rule is not drawn")
                continue
            if releases is not None and rel not in releases:
                sys.exit(f"{rel}: correction of {rule}: the rule is drawn, look at it again")
            got = show(exprs[rule], keywords)
            if got != before:
                sys.exit(f"{rel}: correction of {rule}: the diagrams give {got}, not {before}")
            fixed[rule] = after
            lines.append(f"# corrected: {rule} ::= {after}")
            for part in textwrap.wrap(f"was {before}: {reason}", 94):
                lines.append(f"#   {part}")
        lines.append("")
        for name, e in exprs.items():
            rhs = fixed.get(name) or show(e, keywords, top=True)
            lines.append(f"{name} ::= {rhs}")
        with open(f"{out_dir}/crdb-{rel}.bnf", "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{rel}: {len(exprs)} rules, {len(keywords)} keywords", file=sys.stderr)


if __name__ == "__main__":
    main()
