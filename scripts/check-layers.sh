#!/usr/bin/env bash
# Fails when an include breaks the house's floors, and names the file, the include and the rule:
#   core/   base < text < model < run < analysis < train: an include runs down or stays in its folder;
#           no Qt.
#   ui/     base < {run, views} < {attention, inside, positional} < {research, train, export} < window <
#           lesson < MainWindow (ui/'s root): an include runs down or stays in its folder, never across
#           to a folder of the same floor; no torch, nor a core header that brings it in.
#   app/    commands/, gui/ and bench/ include app/'s root, ui/ and core/, never each other; the root
#           includes none of them.
#   all     core/ includes neither ui/ nor app/, ui/ never app/; and no include closes a circle of rooms
#           (a room is a .h/.cpp pair), inside one folder or across folders.
# Run by ctest (test "layers"); `scripts/check-layers.sh DIR` checks the tree at DIR instead of this one
# (tests/install/check-layers-plants.sh plants one include of each kind there and expects each refused).
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
core_floors = ["base", "text", "model", "run", "analysis", "train"]
ui_floors = [["base"], ["run", "views"], ["attention", "inside", "positional"], ["research", "train", "export"],
             ["window"], ["lesson"], [""]]
ui_floor = {folder: i for i, group in enumerate(ui_floors) for folder in group}
app_parts = {"commands", "gui", "bench"}
include_re = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

sources = []
for top in ("core", "ui", "app"):
    for d, _, names in os.walk(os.path.join(root, top)):
        sources += [os.path.relpath(os.path.join(d, n), root) for n in names if n.endswith((".h", ".cpp"))]
sources.sort()
includes = {}  # file -> [(line, kind, path)]
for f in sources:
    with open(os.path.join(root, f), encoding="utf-8") as fh:
        text = fh.read()
    includes[f] = [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in include_re.finditer(text)]

problems = []
def refuse(f, line, inc, why):
    problems.append(f"{f}:{line}: #include \"{inc}\": {why}")

def parts(path):
    p = path.split("/")
    return p[0], (p[1] if len(p) > 2 else "")  # top folder, and its subfolder ("" at its root)

# Core headers that bring torch in, directly or through another such header.
torchy = {f for f in sources if f.startswith("core/") and f.endswith(".h")
          and any(k == "<" and re.match(r"(torch|ATen|c10)/", p) for _, k, p in includes[f])}
while True:
    more = {f for f in sources if f.startswith("core/") and f.endswith(".h") and f not in torchy
            and any(k == '"' and p in torchy for _, k, p in includes[f])}
    if not more:
        break
    torchy |= more

for f in sources:
    top, sub = parts(f)
    for line, kind, inc in includes[f]:
        if kind == "<":
            if top == "core" and re.match(r"(Q|qt)", inc):
                refuse(f, line, inc, "core/ includes Qt")
            if top == "ui" and re.match(r"(torch|ATen|c10)/", inc):
                refuse(f, line, inc, "ui/ includes torch")
            continue
        if not re.match(r"(core|ui|app)/", inc):
            continue
        itop, isub = parts(inc)
        if top == "core" and itop != "core" or top == "ui" and itop == "app":
            refuse(f, line, inc, f"{top}/ includes {itop}/, which stands above it")
        elif top == "core" and core_floors.index(isub) > core_floors.index(sub):
            refuse(f, line, inc, f"core/{sub}/ includes core/{isub}/, a floor above it "
                   f"({' < '.join(core_floors)})")
        elif top == "ui" and itop == "ui" and isub != sub:
            if ui_floor[isub] > ui_floor[sub]:
                refuse(f, line, inc, f"ui/{sub or '(root)'}/ includes ui/{isub or '(root)'}/, a floor above it")
            elif ui_floor[isub] == ui_floor[sub]:
                refuse(f, line, inc, f"ui/{sub}/ and ui/{isub}/ stand on one floor and never include each other")
        elif top == "ui" and inc in torchy:
            refuse(f, line, inc, "ui/ includes a core header that brings torch in")
        elif top == "app" and itop == "app" and isub != sub and isub in app_parts:
            who = f"app/{sub}/" if sub else "app/'s root"
            refuse(f, line, inc, f"{who} includes app/{isub}/: commands/, gui/ and bench/ include only app/'s "
                   "root, ui/ and core/")

# Rooms: a .h and its .cpp are one. An include inside a circle of rooms runs back up, wherever it is.
room = lambda path: os.path.splitext(path)[0]
edges = {}
for f in sources:
    for line, kind, inc in includes[f]:
        if kind == '"' and os.path.exists(os.path.join(root, inc)) and room(inc) != room(f):
            edges.setdefault(room(f), set()).add(room(inc))
index, low, stack, on, comp, counter = {}, {}, [], set(), {}, [0]
def strong(v):  # Tarjan's strongly connected components, iteratively
    work = [(v, iter(sorted(edges.get(v, ()))))]
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    while work:
        u, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
                break
            if w in on:
                low[u] = min(low[u], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[u])
            if low[u] == index[u]:
                while True:
                    w = stack.pop(); on.discard(w); comp[w] = u
                    if w == u:
                        break
for v in sorted(edges):
    if v not in index:
        strong(v)
for f in sources:
    for line, kind, inc in includes[f]:
        a, b = room(f), room(inc)
        if kind == '"' and a != b and b in comp and comp.get(a) == comp[b]:
            circle = sorted(r for r in comp if comp[r] == comp[a])
            refuse(f, line, inc, "closes a circle of rooms (" + ", ".join(circle) + "): an include runs back up")

for p in problems:
    print("check-layers: " + p, file=sys.stderr)
if problems:
    print(f"check-layers: {len(problems)} include(s) break the floors (above)", file=sys.stderr)
    sys.exit(1)
n = sum(len(v) for v in includes.values())
print(f"check-layers: {len(sources)} files, {n} includes: core/ {' < '.join(core_floors)}; ui/ "
      + " < ".join("{" + ", ".join(g) + "}" if len(g) > 1 else (g[0] or "MainWindow") for g in ui_floors)
      + "; app/'s commands, gui and bench apart; no circle of rooms; no Qt in core/, no torch in ui/")
PY
