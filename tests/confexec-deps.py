#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""confexec-deps: the dependency graph of cmd/confexec and its cycles.

A file depends on another when it includes its header ("ctl.h": ctl.c)
or uses a symbol the other's object defines (nm).  The loop's table
names every source (loop.c -> src_*.c: their registration) and the
sources call the loop back: those edges are the one cycle allowed.  A
source's private parts (PARTS: the files its header lists) count as the
source, and nothing outside the source may use them.

Each module's header is beside its file (NAME.h: NAME.c's names, run.h
the run every file shares); a file includes a header of the directory
only when it uses a name the header declares (a function, a macro, an
enum constant, a struct or enum tag, an extern object), and a module
exports only names with its own prefix (NAME_..., main in confexec.c).

  confexec-deps.py OBJDIR SRCDIR     print the graph, its cycles, and
                                     exit 1 when a cycle remains without
                                     the registration edges, a file but
                                     loop.c names a source or uses a
                                     source's part, a src_NAME.c exports
                                     more than src_NAME, a module exports
                                     a name without its prefix, or a file
                                     includes a header it uses no name of
  confexec-deps.py --self-test       the checker finds a planted cycle
"""
import os
import re
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDRBCV":
            defined.add(f[2])
    return defined, used


def graph(objdir, srcdir):
    mods = sorted(f[:-2] for f in os.listdir(srcdir) if f.endswith(".c"))
    defs, uses = {}, {}
    for m in mods:
        defs[m], uses[m] = symbols(os.path.join(objdir, m + ".o"))
    owner = {s: m for m in mods for s in defs[m]}
    edges = {m: set() for m in mods}
    for m in mods:
        for s in uses[m]:
            if s in owner and owner[s] != m:
                edges[m].add(owner[s])
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
    for f in os.listdir(srcdir):
        if not (f.endswith(".c") or f.endswith(".h")):
            continue
        m = f[:-2] if f.endswith(".c") else None
        with open(os.path.join(srcdir, f)) as fh:
            heads = inc.findall(fh.read())
        for h in heads:
            if h in edges and m is not None and h != m:
                edges[m].add(h)
    # A header's includes count for every file that includes it.
    return mods, defs, edges


KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof",
            "_Static_assert", "_Noreturn", "defined"}


def strip(text):
    """C text without comments, and with empty string and char literals."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", text)


def header_names(text):
    """The names a header declares: (plain names, "struct TAG"/"enum TAG")."""
    t = strip(text)
    t = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", t)
    plain, tags = set(), set()
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)", t, re.M):
        if not m.group(1).endswith("_H"):	# the include guard
            plain.add(m.group(1))
    body = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", "", t, flags=re.M)
    for m in re.finditer(r"\b(struct|enum|union)\s+(\w+)\s*\{", body):
        tags.add(m.group(1) + " " + m.group(2))
    for m in re.finditer(r"\benum\b[^{;]*\{([^}]*)\}", body):
        for item in m.group(1).split(","):
            w = re.match(r"\s*(\w+)", item)
            if w:
                plain.add(w.group(1))
    top, depth = [], 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            continue
        if depth == 0:
            top.append(ch)
    for decl in "".join(top).split(";"):
        m = re.search(r"(\w+)\s*\(", decl)
        if m and m.group(1) not in KEYWORDS:
            plain.add(m.group(1))
        elif "extern" in decl or "typedef" in decl:
            w = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", decl)
            if w:
                plain.add(w.group(1))
    return plain - KEYWORDS, tags


def uses(text, names):
    plain, tags = names
    t = strip(text)
    if plain & set(re.findall(r"\w+", t)):
        return True
    return any(re.search(r"\b%s\s+%s\b" % tuple(tag.split()), t)
               for tag in tags)


def includes_unused(srcdir):
    """Each file's includes of this directory's headers whose names it does
    not use: a list of (file, header)."""
    files = sorted(f for f in os.listdir(srcdir)
                   if f.endswith(".c") or f.endswith(".h"))
    names = {}
    for f in files:
        if f.endswith(".h"):
            with open(os.path.join(srcdir, f)) as fh:
                names[f] = header_names(fh.read())
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    bad = []
    for f in files:
        with open(os.path.join(srcdir, f)) as fh:
            text = fh.read()
        for h in inc.findall(text):
            if h in names and h != f and not uses(text, names[h]):
                bad.append((f, h))
    return bad


def prefix_ok(m, sym):
    return sym == m or sym.startswith(m + "_") or (m == "confexec" and
                                                   sym == "main")


def cycles(edges):
    """Every elementary cycle's node list, each once (Johnson-lite: a DFS
    from each node through greater nodes only)."""
    found = []
    nodes = sorted(edges)

    def dfs(start, v, path, seen):
        for w in sorted(edges[v]):
            if w == start:
                found.append(path[:])
            elif w > start and w not in seen:
                seen.add(w)
                path.append(w)
                dfs(start, w, path, seen)
                path.pop()
                seen.discard(w)

    for s in nodes:
        dfs(s, s, [s], {s})
    return found


# The files of a source besides src_NAME.c (broker.h, ctl.h list them).
PARTS = {"broker": "src_egress", "resolver": "src_egress",
         "hostroute": "src_egress", "relay": "src_egress",
         "brokersay": "src_egress", "ctl": "src_control",
         "handoffs": "src_notify"}


def group(m):
    return PARTS.get(m, m)


def grouped(edges):
    g = {}
    for a, bs in edges.items():
        g.setdefault(group(a), set())
        for b in bs:
            if group(b) != group(a):
                g[group(a)].add(group(b))
    return g


def registration(a, b):
    return a == "loop" and b.startswith("src_")


def check(edges, defs):
    bad = 0
    for a, bs in sorted(edges.items()):
        for b in sorted(bs):
            if b in PARTS and group(a) != PARTS[b]:
                print("%s uses %s, a part of %s" % (a, b, PARTS[b]))
                bad = 1
            if b.startswith("src_") and a != "loop" and group(a) != b:
                print("%s names the source %s (only the loop's table may)"
                      % (a, b))
                bad = 1
    edges = grouped(edges)
    rest = {a: {b for b in bs if not registration(a, b)}
            for a, bs in edges.items()}
    all_cycles = cycles(edges)
    left = cycles(rest)
    print("cycles: %d in all, %d without the loop's registration edges"
          % (len(all_cycles), len(left)))
    for c in all_cycles:
        print("  %s %s" % ("ALLOWED" if c not in left else "CYCLE",
                           " -> ".join(c + [c[0]])))
    if left:
        bad = 1
    for m, d in sorted(defs.items()):
        if not m.startswith("src_"):
            for sym in sorted(d):
                if not prefix_ok(m, sym):
                    print("%s.c exports %s, not prefixed %s_" % (m, sym, m))
                    bad = 1
        if m.startswith("src_") and d != {m}:
            print("%s.c exports %s, not %s alone" %
                  (m, " ".join(sorted(d)), m))
            bad = 1
    return bad


def self_test():
    e = {"loop": {"src_a"}, "src_a": {"loop", "sink"}, "sink": {"loop"},
         "ctl": {"src_control"}, "src_control": {"ctl"}}
    d = {"loop": {"loop_x"}, "src_a": {"src_a"}, "sink": {"sink_y"},
         "src_control": {"src_control"}}
    e["loop"] = {"src_a", "sink"}
    if check(e, d) != 1:
        print("self-test: a cycle through a sink was not found")
        return 1
    e["loop"] = {"src_a"}
    e["sink"] = set()
    if check(e, d) != 0:
        print("self-test: the registration cycle was refused")
        return 1
    e["sink"] = {"src_a"}
    if check(e, d) != 1:
        print("self-test: a sink naming a source was not found")
        return 1
    e["sink"] = {"ctl"}
    if check(e, d) != 1:
        print("self-test: a sink using a source's part was not found")
        return 1
    e["sink"] = set()
    d["src_a"] = {"src_a", "extra_fn"}
    if check(e, d) != 1:
        print("self-test: a source's second export was not found")
        return 1
    d["src_a"] = {"src_a"}
    d["sink"] = {"sink_y", "init"}
    if check(e, d) != 1:
        print("self-test: an export without its module's prefix was not "
              "found")
        return 1
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        def put(name, text):
            with open(os.path.join(tmp, name), "w") as fh:
                fh.write(text)
        put("a.h", "#ifndef A_H\n#define A_H\n#define A_MAX 3\n"
            "struct a_thing { int x; };\nenum { A_ONE, A_TWO };\n"
            "extern const char *const a_names[2];\n"
            "int a_do(int (*fn)(void *), void *arg)\n"
            "    __attribute__((nonnull(1)));\n#endif\n")
        put("b.h", "#include \"a.h\"\nvoid b_go(struct a_thing *t);\n")
        put("c.c", "#include \"a.h\"\n#include \"b.h\"\n"
            "/* a_do, A_MAX named in a comment only */\n"
            "void f(void) { b_go(0); puts(\"a_do\"); }\n")
        put("d.c", "#include \"a.h\"\nint g(void) { return A_TWO; }\n"
            "const char *h(void) { return a_names[0]; }\n")
        if includes_unused(tmp) != [("c.c", "a.h")]:
            print("self-test: an include of a header whose names are not "
                  "used was not found, or a used one refused: %r"
                  % includes_unused(tmp))
            return 1
    print("self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mods, defs, edges = graph(sys.argv[1], sys.argv[2])
    g = grouped(edges)
    for m in sorted(g):
        print("%s -> %s" % (m, " ".join(sorted(g[m])) or "-"))
    bad = check(edges, defs)
    unused = includes_unused(sys.argv[2])
    for f, h in unused:
        print("%s includes %s and uses none of its names" % (f, h))
    print("includes without a use: %d" % len(unused))
    return 1 if unused else bad


if __name__ == "__main__":
    sys.exit(main())
