#!/usr/bin/env python3
"""Collect the SQL examples of cockroachdb/docs that are of forms pg_dump writes, per release,
into docs-examples.sql beside this file: the data of tests/crdb_grammar.rs, which checks that
each release's grammar (src/schemaconv/grammar/crdb-*.bnf) takes its own docs' examples.

    collect_examples.py DOCS_GIT_DIR COMMIT > docs-examples.sql

Examples are the statements of the ```sql / ~~~ sql blocks of src/current/vNN.N/*.md; a
statement is a line after the `> ` prompt through the line that ends it with `;`, or, in a
block without prompts, the block split at its semicolons. Kept: CREATE (TABLE, INDEX, VIEW,
MATERIALIZED VIEW, SEQUENCE, TYPE, FUNCTION, PROCEDURE, TRIGGER, SCHEMA), ALTER (TABLE,
SEQUENCE, TYPE, VIEW, INDEX, FUNCTION, PROCEDURE, SCHEMA, DEFAULT PRIVILEGES), COMMENT ON,
GRANT, REVOKE, SELECT setval / set_config, SET var = value. Left out: statements with
template markup ({{ }}, {% %}, {name}), placeholders (<name>), ellipses, or a block that shows an
error. Each statement is written once, after a line `-- PAGE RELEASE...`.
Python 3 standard library only.
"""

import re
import subprocess
import sys

RELEASES = ["24.1", "24.3", "25.1", "25.2", "25.3", "25.4", "26.1", "26.2"]

KEEP = re.compile(
    r"^(CREATE\s+(OR\s+REPLACE\s+)?(UNIQUE\s+|INVERTED\s+|TEMP\s+|TEMPORARY\s+|UNLOGGED\s+)?"
    r"(TABLE|INDEX|VIEW|MATERIALIZED\s+VIEW|SEQUENCE|TYPE|FUNCTION|PROCEDURE|TRIGGER|SCHEMA)\b"
    r"|ALTER\s+(TABLE|SEQUENCE|TYPE|VIEW|MATERIALIZED\s+VIEW|INDEX|FUNCTION|PROCEDURE|SCHEMA"
    r"|DEFAULT\s+PRIVILEGES)\b"
    r"|COMMENT\s+ON\b|GRANT\b|REVOKE\b"
    r"|SELECT\s+(pg_catalog\.)?(setval|set_config)\s*\("
    r"|SET\s+(SESSION\s+)?[a-z_.]+\s*(=|TO\b))",
    re.I,
)
SKIP = re.compile(r"\{\{|\{%|\{[a-z_]+\}|<[a-zA-Z_][a-zA-Z_ ]*>|\.\.\.|…")


def git(git_dir, *args):
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True
    ).stdout.decode("utf-8", "replace")


def split_statements(text):
    """Statements of SQL text, split at semicolons outside quotes and comments."""
    out, cur, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            j = text.find(c, i + 1)
            while j != -1 and j + 1 < n and text[j + 1] == c:
                j = text.find(c, j + 2)
            j = n if j == -1 else j + 1
            cur.append(text[i:j])
            i = j
        elif c == "$" and (m := re.match(r"\$([A-Za-z_]\w*)?\$", text[i:])):
            tag = m.group(0)
            j = text.find(tag, i + len(tag))
            j = n if j == -1 else j + len(tag)
            cur.append(text[i:j])
            i = j
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j == -1 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            i = n if j == -1 else j + 2
        elif c == ";":
            out.append("".join(cur).strip())
            cur = []
            i += 1
        else:
            cur.append(c)
            i += 1
    rest = "".join(cur).strip()
    if rest:
        out.append(rest)
    return [s for s in out if s]


def ends_statement(text):
    """Whether text ends with a `;` outside quotes and comments: then what follows it is a
    statement of its own."""
    return split_statements(text + "\nx")[-1] == "x"


def block_statements(block):
    lines = [l for l in block.split("\n") if not l.strip().startswith("{%")]
    if not any(l.lstrip().startswith(">") for l in lines):
        return split_statements("\n".join(lines))
    stmts, cur = [], None
    for l in lines:
        s = l.lstrip()
        if s.startswith(">"):
            cur = [s[1:]]
        elif cur is not None:
            cur.append(l)
        else:
            continue
        joined = "\n".join(cur)
        if ends_statement(joined):
            stmts.extend(split_statements(joined))
            cur = None
    return stmts


BLOCK = re.compile(r"^(?:~~~|```) ?sql\s*\n(.*?)^(?:~~~|```)\s*$", re.M | re.S)


def main():
    git_dir, commit = sys.argv[1:3]
    found = {}  # statement -> (page, [releases])
    for rel in RELEASES:
        pages = git(git_dir, "ls-tree", "--name-only", commit, f"src/current/v{rel}/").split()
        for path in sorted(pages):
            if not path.endswith(".md"):
                continue
            text = git(git_dir, "show", f"{commit}:{path}")
            for m in BLOCK.finditer(text):
                after = text[m.end() : m.end() + 400]
                # A block whose output is an error shows what is refused.
                if re.match(r"\s*(~~~|```)\s*\n(ERROR|pq:|error)", after):
                    continue
                for stmt in block_statements(m.group(1)):
                    stmt = stmt.strip()
                    if not KEEP.match(stmt) or SKIP.search(stmt):
                        continue
                    page, rels = found.setdefault(stmt, (path.rsplit("/", 1)[1], []))
                    if rel not in rels:
                        rels.append(rel)
    print("# The SQL examples of cockroachdb/docs of forms pg_dump writes: collected by")
    print(f"# collect_examples.py from commit {commit}, src/current/vNN.N/*.md.")
    print("# Each statement follows a line `-- PAGE RELEASE...`: the page it was first found on")
    print("# and every release whose pages have it.")
    for stmt, (page, rels) in found.items():
        print(f"-- {page} {' '.join(rels)}")
        print(stmt + ";")

if __name__ == "__main__":
    main()
