#!/usr/bin/env python3
"""Lists the calls between the C files of src/ (a file calling a function
another file defines) and fails when two or more files call each other in a
circle.  Usage: tools/file-cycles.py [DIR...] (default: src)."""
import glob, os, re, sys

dirs = sys.argv[1:] or ["src"]
files = sorted(f for d in dirs for f in glob.glob(os.path.join(d, "**", "*.c"), recursive=True))
defs, text = {}, {}
for f in files:
    s = open(f).read()
    s = re.sub(r"/\*.*?\*/", "", s, flags=re.S)
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
    text[f] = s
    for m in re.finditer(r"^(?!static)[A-Za-z][\w \*]*?\b(sym_\w+)\s*\([^;{]*\)\s*\{", s, re.M):
        defs.setdefault(m.group(1), f)
edges = {f: set() for f in files}
for f, s in text.items():
    for m in re.finditer(r"\b(sym_\w+)\s*\(", s):
        g = defs.get(m.group(1))
        if g and g != f:
            edges[f].add(g)
# strongly connected components (Tarjan)
index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        comps.append(c)
sys.setrecursionlimit(10000)
for v in files:
    if v not in index:
        visit(v)
for f in files:
    if edges[f]:
        print("%s -> %s" % (f, ", ".join(sorted(edges[f]))))
bad = [c for c in comps if len(c) > 1]
for c in bad:
    print("circle: " + " <-> ".join(sorted(c)))
print("%d files, %d circles" % (len(files), len(bad)))
sys.exit(1 if bad else 0)
