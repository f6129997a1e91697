#!/usr/bin/env python3
"""Import cycles between the modules of src/.

    python3 docs/import-cycles.py [--tests] [-v] [--under FOLDER]

Every file of src/ is a module (a `mod.rs` is its folder's module). An edge A -> B means that
A's code names an item of B: a `use` line or a path written in the code (`crate::x::y`,
`super::y`, a child module's name, `reversi_nxn::...` in the binary); comments, doc links and
`pub(in path)` visibilities are left out. A path through a module that only re-exports an item
(`pub use`, or a `use` that a child reaches by `super::`) is followed to the module that defines
the item, so a folder's `mod.rs` facade does not close a circle by itself. `mod x;` lines are
not edges, and neither are methods of a type defined in another file (`impl Searcher` blocks
spread over several files). The code of `#[cfg(test)] mod tests` is left out unless `--tests`.

Prints each strongly connected component of more than one module (modules that reach each
other) with one circle in it, and exits 1 if there is any; `-v` also prints every edge, and
`--under solve` keeps only the cycles that touch `src/solve/`.
"""

import os
import re
import sys
from collections import defaultdict

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
LIB = "reversi_nxn"


def module_of(rel):
    """The module path of a file: ('solve', 'search') for solve/search.rs, () for the roots."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    if parts in (["lib"], ["main"]):
        parts = []
    return tuple(parts)


def strip_comments(text):
    """The code with comments removed and string and char literals emptied."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif re.match(r"b?r#*\"", text[i : i + 12]) and not (i and re.match(r"\w", text[i - 1])):
            m = re.match(r"b?r(#*)\"", text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + m.end())
            out.append('""')
            i = (j if j >= 0 else n) + len(close)
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^'\\])'", text[i:])
            if m:  # a char literal; else a lifetime
                out.append("' '")
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    # `pub(in crate::x)` names where an item is visible, not something it uses.
    return re.sub(r"pub\(in [^)]*\)", "pub", "".join(out))


def split_tests(text):
    """(code, test code): the test module is the `#[cfg(test)] mod tests { ... }` block."""
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
    if not m:
        return text, ""
    depth, i = 0, m.end() - 1
    while i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            break
        i += 1
    return text[: m.start()] + text[i + 1 :], text[m.end() : i]


def expand_use(tree):
    """Expands `a::{b, c::{d, e as f}}` to [(['a', 'b'], 'b'), ...], each with the name bound."""
    out = []

    def go(prefix, s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        parts.append(cur)
        for p in (x.strip() for x in parts):
            if not p:
                continue
            if "{" in p:
                head, rest = p.split("{", 1)
                go(prefix + [x.strip() for x in head.split("::") if x.strip()], rest.rstrip()[:-1])
                continue
            alias = None
            m = re.match(r"(.*?)\s+as\s+(\w+)$", p)
            if m:
                p, alias = m.group(1), m.group(2)
            path = prefix + [x.strip() for x in p.split("::") if x.strip()]
            if path and path[-1] == "self":
                path = path[:-1]
            out.append((path, alias or (path[-1] if path else None)))

    go([], re.sub(r"^\s*(pub(\([^)]*\))?\s+)?", "", tree))
    return out


class Crate:
    def __init__(self, name):
        self.name = name
        self.modules = {}  # module -> (code, test code, rel path)
        self.defined = defaultdict(set)  # module -> item names defined there
        self.uses = defaultdict(dict)  # module -> name bound by `use` -> absolute path
        self.globs = defaultdict(list)  # module -> absolute paths of `use x::*`

    def absolute(self, mod, path):
        """The path from the crate root, or None for another crate."""
        if not path:
            return None
        head = path[0]
        if head == "crate":
            return list(path[1:])
        if head == "self":
            return list(mod) + list(path[1:])
        if head == "super":
            base = list(mod)
            while path and path[0] == "super":
                base = base[:-1]
                path = path[1:]
            return base + list(path)
        if head == LIB and self.name == "bin":
            return None  # handled by the caller (edge into the library)
        if tuple(mod) + (head,) in self.modules:
            return list(mod) + list(path)
        if head in self.uses.get(tuple(mod), {}):
            target = self.uses[tuple(mod)][head]
            return None if target is None else target + list(path[1:])
        return None

    def resolve(self, path, seen=0):
        """The module that defines the item at this absolute path."""
        path = list(path)
        for n in range(len(path), -1, -1):
            if tuple(path[:n]) in self.modules:
                mod, rest = tuple(path[:n]), path[n:]
                break
        else:
            return None
        if not rest or seen > 20:
            return mod
        name = rest[0]
        if name in self.defined[mod]:
            return mod
        if name in self.uses[mod]:
            target = self.uses[mod][name]
            if target is None:
                return mod
            return self.resolve(target + rest[1:], seen + 1)
        for g in self.globs[mod]:
            r = self.resolve(g + rest, seen + 1)
            if r is not None and r != tuple(g) or (r == tuple(g) and name in self.defined[r]):
                return r
        return mod


ITEM = re.compile(
    r"\b(?:fn|struct|enum|trait|type|const|static|union|mod)\s+([A-Za-z_]\w*)|macro_rules!\s*(\w+)"
)
USE = re.compile(r"\buse\s+([^;]+);")
PUB_USE = re.compile(r"\bpub(?:\([^)]*\))?\s+use\s+[^;]+;")
PATH = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*::)+[A-Za-z_]\w*)")


def load(with_tests):
    crates = {"lib": Crate("lib"), "bin": Crate("bin")}
    bin_roots = set()
    main = open(os.path.join(SRC, "main.rs")).read()
    for m in re.finditer(r"^\s*(?:pub\s+)?mod\s+(\w+)\s*;", strip_comments(main), re.M):
        bin_roots.add(m.group(1))
    for root, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), SRC)
            mod = module_of(rel)
            which = "bin" if rel == "main.rs" or (mod and mod[0] in bin_roots) else "lib"
            code, tests = split_tests(strip_comments(open(os.path.join(SRC, rel)).read()))
            crates[which].modules[mod] = (code, tests if with_tests else "", rel)
    for c in crates.values():
        for mod, (code, tests, _) in c.modules.items():
            for m in ITEM.finditer(code):
                c.defined[mod].add(m.group(1) or m.group(2))
        for _ in range(2):  # twice, so a `use` may start from a name another `use` bound
            for mod, (code, tests, _) in c.modules.items():
                for m in USE.finditer(code):
                    for path, name in expand_use(m.group(1)):
                        if path and path[-1] == "*":
                            a = c.absolute(mod, path[:-1])
                            if a is not None and a not in c.globs[mod]:
                                c.globs[mod].append(a)
                        elif name:
                            c.uses[mod][name] = c.absolute(mod, path)
    return crates


def edges(crates):
    out = defaultdict(set)
    for cname, c in crates.items():
        for mod, (code, tests, rel) in c.modules.items():
            me = (cname, mod)
            bodies = [(code, mod)]
            if tests:
                bodies.append((tests, mod))  # inside `mod tests`, `super` is the file itself
            for body, base in bodies:
                paths = []
                for m in USE.finditer(body):
                    if re.match(r"\s*pub\b", body[m.start() - 12 : m.start()].split("\n")[-1]):
                        continue  # a re-export: followed by `resolve`, not an edge of its own
                    paths += [p for p, _ in expand_use(m.group(1)) if p and p[-1] != "*"]
                    paths += [p[:-1] for p, _ in expand_use(m.group(1)) if p and p[-1] == "*"]
                body_wo_use = USE.sub("", PUB_USE.sub("", body))
                paths += [m.group(1).split("::") for m in PATH.finditer(body_wo_use)]
                for p in paths:
                    if body is tests and p and p[0] == "super":
                        p = ["self"] + p[1:]
                    if cname == "bin" and p and p[0] == LIB:
                        target = crates["lib"].resolve(p[1:])
                        if target is not None:
                            out[me].add(("lib", target))
                        continue
                    a = c.absolute(base, p)
                    if a is None:
                        continue
                    target = c.resolve(a)
                    if target is not None and target != mod:
                        out[me].add((cname, target))
    return out


def components(nodes, out):
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in out.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return [c for c in comps if len(c) > 1]


def circle(comp, out):
    """One shortest circle through the first module of the component."""
    members = set(comp)
    start = sorted(comp)[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(out.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def name(node):
    cname, mod = node
    root = "crate" if cname == "lib" else "main"
    return "::".join([root, *mod])


def main():
    crates = load("--tests" in sys.argv)
    out = edges(crates)
    nodes = {(n, m) for n, c in crates.items() for m in c.modules}
    if "-v" in sys.argv:
        for v in sorted(out):
            for w in sorted(out[v]):
                print(f"{name(v)} -> {name(w)}")
    comps = components(nodes, out)
    if "--under" in sys.argv:  # only the cycles that touch this folder, e.g. `--under solve`
        under = tuple(sys.argv[sys.argv.index("--under") + 1].split("/"))
        comps = [c for c in comps if any(m[: len(under)] == under for _, m in c)]
    for comp in comps:
        print("cycle among:", ", ".join(sorted(name(v) for v in comp)))
        print("  e.g.", " -> ".join(name(v) for v in circle(comp, out)))
    n_edges = sum(len(v) for v in out.values())
    print(f"{len(nodes)} modules, {n_edges} edges, {len(comps)} cycles")
    sys.exit(1 if comps else 0)


if __name__ == "__main__":
    main()
