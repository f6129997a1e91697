#!/usr/bin/env python3
"""Recomputes the numbers of cluster/PLAN.md (its first paragraph names the few it does not):
measured layer counts, first-move classes, the extrapolations, and
mobility per disc count from seeded random playouts. Pure Python, about 30 s on one core.

usage: python3 cluster/sizing.py [--games N] [--repo DIR]
"""
import argparse
import csv
import json
import math
import os
import random

# 4x7 by dp from the start (issue 20's disk-store run, /work/runs/4x7/out/positions_per_layer.csv,
# not yet in results/): positions per disc count from 5 to 27.
L4X7 = [4, 12, 46, 162, 685, 2672, 10952, 44409, 174654, 675415, 2433959, 8434749, 26273794,
        76676822, 193677476, 441026722, 828570427, 1320208064, 1624377389, 1545916763,
        1017975083, 436102718, 96836386]
PUBLISHED_5X6 = 257_387_474_170  # ../shared/REFERENCE.md, "Reachable positions on 5x6"
U64 = 2**64 - 1


def layers(repo, board):
    path = os.path.join(repo, "results", board, "positions_per_layer.csv")
    with open(path, newline="") as f:
        return {int(r["discs"]): int(r["positions"]) for r in csv.DictReader(f)}


def shares(p):
    t = sum(p.values())
    ks = sorted(p)
    return t, max(p.values()), max(p[k] + p.get(k + 1, 0) for k in ks)


def mapped_profile(src, squares_src, squares):
    """Layer shares of a board of `squares`, from a measured profile by fill fraction."""
    t = sum(src.values())
    pts = sorted(((d - 4) / (squares_src - 4), math.log(v / t)) for d, v in src.items())
    out = {}
    for d in range(5, squares):
        x = (d - 4) / (squares - 4)
        y = pts[-1][1] if x > pts[-1][0] else pts[0][1]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            if x0 <= x <= x1:
                y = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
                break
        out[d] = math.exp(y)
    s = sum(out.values())
    return {d: v / s for d, v in out.items()}


def mobility(rows, cols, games, seed):
    """Mean legal moves per disc count along uniformly random games (pass folded)."""
    full = sum(1 << (r * 8 + c) for r in range(rows) for c in range(cols))
    dirs = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)]
    masks = []
    for dr, dc in dirs:
        m = 0
        for r in range(rows):
            for c in range(cols):
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    m |= 1 << ((r + dr) * 8 + c + dc)
        masks.append((dr * 8 + dc, m))

    def step(b, k):
        s, m = masks[k]
        return ((b << s) if s > 0 else (b >> -s)) & m

    def legal(p, o):
        mv, e = 0, full & ~(p | o)
        for k in range(8):
            t = step(p, k) & o
            while t:
                n = step(t, k)
                mv |= n & e
                t = n & o
        return mv

    def flips(p, o, m):
        f = 0
        for k in range(8):
            t, x = 0, step(m, k)
            while x & o:
                t |= x
                x = step(x, k)
            if x & p:
                f |= t
        return f

    r0 = rows // 2 if rows % 2 else rows // 2 - 1
    c0 = cols // 2 if cols % 2 else cols // 2 - 1
    white = (1 << (r0 * 8 + c0)) | (1 << ((r0 + 1) * 8 + c0 + 1))
    black = (1 << (r0 * 8 + c0 + 1)) | (1 << ((r0 + 1) * 8 + c0))
    rng = random.Random(seed)
    tot, cnt = {}, {}
    for _ in range(games):
        p, o = black, white
        while True:
            mv = legal(p, o)
            if not mv:
                if legal(o, p):
                    p, o = o, p
                    continue
                break
            d = bin(p | o).count("1")
            ms = [1 << i for i in range(64) if mv >> i & 1]
            tot[d] = tot.get(d, 0) + len(ms)
            cnt[d] = cnt.get(d, 0) + 1
            m = rng.choice(ms)
            f = flips(p, o, m)
            p, o = o & ~f, p | f | m
    return {d: tot[d] / cnt[d] for d in tot}


def path_shares(rows, cols):
    """Largest share of a layer's paths that one stored position carries (dp's keys: canonical
    under the board's symmetries, colour to move kept), per disc count. Exact; slow in Python
    (4x4 takes a second)."""
    sq = [(r, c) for r in range(rows) for c in range(cols)]
    maps = [lambda r, c: (r, c), lambda r, c: (rows - 1 - r, c),
            lambda r, c: (r, cols - 1 - c), lambda r, c: (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [lambda r, c, f=f: f(c, r) for f in maps]
    perms = [[f(r, c)[0] * cols + f(r, c)[1] for r, c in sq] for f in maps]
    n = rows * cols
    nb = [[(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]]

    def canon(p, o):
        best = None
        for pm in perms:
            a = sum(1 << pm[i] for i in range(n) if p >> i & 1)
            b = sum(1 << pm[i] for i in range(n) if o >> i & 1)
            if best is None or (a, b) < best:
                best = (a, b)
        return best

    def moves(p, o):
        out = []
        for i in range(n):
            if (p | o) >> i & 1:
                continue
            r, c, f = i // cols, i % cols, 0
            for dr, dc in nb[0]:
                rr, cc, t = r + dr, c + dc, 0
                while 0 <= rr < rows and 0 <= cc < cols and o >> (rr * cols + cc) & 1:
                    t |= 1 << (rr * cols + cc)
                    rr, cc = rr + dr, cc + dc
                if t and 0 <= rr < rows and 0 <= cc < cols and p >> (rr * cols + cc) & 1:
                    f |= t
            if f:
                out.append((1 << i, f))
        return out

    r0 = rows // 2 if rows % 2 else rows // 2 - 1
    c0 = cols // 2 if cols % 2 else cols // 2 - 1
    at = lambda r, c: 1 << (r * cols + c)
    cur = {(at(r0, c0 + 1) | at(r0 + 1, c0), at(r0, c0) | at(r0 + 1, c0 + 1), 1): 1}
    rows_out = []
    while cur:
        nxt = {}
        for (p, o, black), paths in cur.items():
            for m, f in moves(p, o):
                np_, no = o & ~f, p | f | m
                if moves(np_, no):
                    key = canon(np_, no) + (1 - black,)
                elif moves(no, np_):
                    key = canon(no, np_) + (black,)
                else:
                    continue
                nxt[key] = nxt.get(key, 0) + paths
        if nxt:
            d = bin(next(iter(nxt))[0] | next(iter(nxt))[1]).count("1")
            rows_out.append((d, len(nxt), max(nxt.values()) / sum(nxt.values())))
        cur = nxt
    return rows_out


def first_move_classes(rows, cols):
    """The first moves grouped as `reversi count` groups them: by the canonical key (smallest
    image under the board's symmetries, 8 on a square, 4 on a rectangle) of the position after."""
    r0 = rows // 2 if rows % 2 else rows // 2 - 1
    c0 = cols // 2 if cols % 2 else cols // 2 - 1
    board = {(r0, c0): "O", (r0 + 1, c0 + 1): "O", (r0, c0 + 1): "X", (r0 + 1, c0): "X"}
    maps = [lambda r, c: (r, c), lambda r, c: (rows - 1 - r, c),
            lambda r, c: (r, cols - 1 - c), lambda r, c: (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [lambda r, c, f=f: f(c, r) for f in maps]
    keys = {}
    for r in range(rows):
        for c in range(cols):
            if (r, c) in board:
                continue
            flipped = []
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    line, rr, cc = [], r + dr, c + dc
                    while (dr or dc) and board.get((rr, cc)) == "O":
                        line.append((rr, cc))
                        rr, cc = rr + dr, cc + dc
                    if line and board.get((rr, cc)) == "X":
                        flipped += line
            if not flipped:
                continue
            after = dict(board)
            after.update({q: "X" for q in flipped + [(r, c)]})
            key = min(tuple(sorted((f(*q), v) for q, v in after.items())) for f in maps)
            keys.setdefault(key, []).append("abcdefgh"[c] + str(r + 1))
    return list(keys.values())


def sq(board):
    r, c = board.split("x")
    return int(r) * int(c)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000, help="random games per board")
    ap.add_argument("--repo", default=os.path.join(os.path.dirname(__file__), ".."))
    a = ap.parse_args()

    print("## first-move classes (checked against results/*/summary.json where it exists)")
    for r, c in [(3, 4), (4, 4), (4, 5), (4, 6), (5, 5), (4, 7), (4, 8), (5, 6), (5, 7), (6, 6)]:
        cl = first_move_classes(r, c)
        path = os.path.join(a.repo, "results", f"{r}x{c}", "summary.json")
        check = ""
        if os.path.exists(path):
            with open(path) as f:
                check = " (= summary.json)" if json.load(f)["classes"] == cl else " (DIFFERS)"
        print(f"{r}x{c}: {len(cl)} {cl}{check}")

    meas = {b: layers(a.repo, b) for b in ("4x4", "4x5", "4x6", "5x5")}
    meas["4x7"] = {5 + i: v for i, v in enumerate(L4X7)}
    print("\n## measured\n| board | positions | widest layer (discs) | widest two | shares |")
    for b, p in meas.items():
        t, w, pr = shares(p)
        print(f"| {b} | {t:,} | {w:,} ({max(p, key=p.get)}) | {pr:,} |"
              f" {w / t:.3f} / {pr / t:.3f} |")

    n = {b: shares(p)[0] for b, p in meas.items()}
    col45, col56 = n["4x6"] / n["4x5"], n["4x7"] / n["4x6"]  # growth per added column, 4 rows
    g = col56 ** 0.25                                          # per added square
    raw44, raw45, raw55 = 53_801, 4_502_618, 1_729_501_170     # results/*/strong.json "positions"
    r45 = raw45 / n["4x5"]          # raw / stored on a board with one odd side (4x5; 5x6 alike)
    r_sq = (raw44 / n["4x4"] + raw55 / n["5x5"]) / 2
    r_odd = 1.745                   # 3x5 and 3x7, both sides odd (strong.json / layers csv)
    g_row = (raw55 / raw45) ** 0.2  # 4x5 -> 5x5, per added square
    frac = [raw44 / (16 * 3**12), raw45 / (16 * 3**16), raw55 / (16 * 3**21),
            PUBLISHED_5X6 / (16 * 3**26)]
    print(f"\ncolumn growth 4x5->4x6 {col45:.2f}, 4x6->4x7 {col56:.2f}; g = {g:.3f} per square; "
          f"4x5->5x5 raw {g_row:.3f} per square")
    print(f"raw/stored: 4x5 {r45:.3f}, squares {r_sq:.2f} (4x4 {raw44 / n['4x4']:.2f}, "
          f"5x5 {raw55 / n['5x5']:.2f}); raw / (16*3^(S-4)) on 4x4, 4x5, 5x5, 5x6 (published): "
          + ", ".join(f"{x:.4f}" for x in frac))

    est = {}
    est["4x8"] = (n["4x7"] * col45, n["4x7"] * (2 * col56 - col45), n["4x7"] * 70)
    e56_own = raw55 * g**5 / r45
    est["5x6"] = (PUBLISHED_5X6 / r45, e56_own, PUBLISHED_5X6)
    c5 = g**5 * col56 / col45
    b57 = [16 * 3**31 * f / r_odd for f in (min(frac), max(frac))]
    est["5x7"] = (est["5x6"][0] * g**5, e56_own * c5 * r45 / r_odd,
                  max(PUBLISHED_5X6 * c5, b57[1]))
    b66 = [16 * 3**32 * f / r_sq for f in (min(frac), max(frac))]
    r66 = [PUBLISHED_5X6 * x**6 / r_sq for x in (g, g_row)]
    est["6x6"] = (r66[0], math.sqrt(b66[0] * b66[1]), max(r66[1], b66[1]))
    print(f"5x7: published x {c5:.0f} = {PUBLISHED_5X6 * c5:.3g}; bound fraction "
          f"{b57[0]:.3g}-{b57[1]:.3g}")
    print(f"6x6: row growth {r66[0]:.3g}-{r66[1]:.3g}; bound fraction {b66[0]:.3g}-{b66[1]:.3g}")

    # (rows, cols, memory bytes, wire bytes, layer profile to borrow)
    spec = {"4x8": (4, 8, 24, 24, "4x7"), "5x6": (5, 6, 40, 40, "5x5"),
            "5x7": (5, 7, 48, 48, "5x5"), "6x6": (6, 6, 24, 24, "5x5")}
    m55 = mobility(5, 5, a.games, 1)
    w55 = sum(meas["5x5"][d] * m55[d] for d in meas["5x5"]) / n["5x5"]
    calib = (1.18e9 / n["5x5"]) / w55   # BENCHMARKS.md: 1.18e9 insertions on 5x5
    print(f"\n5x5: playout mobility over its layers {w55:.2f}, measured children/position "
          f"{1.18e9 / n['5x5']:.2f}: factor {calib:.3f}")
    print("\n## positions\n| board | low | central | high | widest layer 0.22N | widest two 0.42N |"
          " children/position | widest children layer (central) |")
    mob = {}
    for b, (r, c, mem, wire, src) in spec.items():
        prof = mapped_profile(meas[src], int(src[0]) * int(src[2]), r * c)
        mb = mobility(r, c, a.games, 1)
        avg = calib * sum(prof[d] * mb.get(d, 1.0) for d in prof)
        peak = calib * max(prof[d] * mb.get(d, 1.0) for d in prof)
        mob[b] = (avg, peak)
        lo, mid, hi = est[b]
        print(f"| {b} | {lo:.3g} | {mid:.3g} | {hi:.3g} | {0.22 * mid:.3g} | {0.42 * mid:.3g} |"
              f" {avg:.2f} | {peak * mid:.3g} |")

    print("\nE6 check, profile mapped by fill fraction, widest two: "
          + ", ".join(f"{a}->{b} {shares(mapped_profile(meas[a], sq(a), sq(b)))[2]:.3f}"
                      f" (measured {shares(meas[b])[2] / n[b]:.3f})"
                      for a, b in (("4x5", "4x6"), ("4x6", "4x7")))
          + "; for the four boards: "
          + ", ".join(f"{b} {shares(mapped_profile(meas[v[4]], sq(v[4]), v[0] * v[1]))[2]:.3f}"
                      for b, v in spec.items()))

    c_child, c_pos = 2 * 61.545 / 1.18e9, 2 * 12524 / n["4x7"]
    print(f"\ncore-seconds: {c_child * 1e6:.3f} us per child (5x5 memory store, "
          f"{2 * 61.545 / n['5x5'] * 1e6:.3f} us per position), {c_pos * 1e6:.2f} us per position "
          "(4x7 disk store)")
    tib = 2**40
    print("\n## memory, disk, network, time (N central / high)\n| board | tables TiB | x2 TiB |"
          " node GiB, cores, Gb/s | M | GiB/machine | checkpoint disk GiB/machine |"
          " widest layer's traffic GiB/machine (s) | run traffic GiB/machine | compute h |"
          " network h | checkpoints written GiB/machine |")
    nodes = {"4x8": (256, 32, 10), "5x6": (256, 32, 10), "5x7": (1024, 64, 100),
             "6x6": (1024, 64, 100), "6x6 u128": (1024, 64, 100)}
    for b, (ram, cores, gbit) in nodes.items():
        _, _, mem, wire, _ = spec[b[:3]]
        if b.endswith("u128"):
            mem, wire = mem + 8, wire + 8
        avg, peak = mob[b[:3]]
        for label, nn in (("central", est[b[:3]][1]), ("high", est[b[:3]][2])):
            tables = 0.42 * nn * mem * 8 / 7
            m = math.ceil(2 * tables / (0.85 * ram * 2**30))
            cross = (m - 1) / m
            layer_t = peak * nn * wire * cross / m
            run_t = nn * avg * wire * cross / m
            bw = gbit / 8 * 1e9
            print(f"| {b} {label} | {tables / tib:,.1f} | {2 * tables / tib:,.1f} |"
                  f" {ram}, {cores}, {gbit} | {m:,} | {2 * tables / m / 2**30:.0f} |"
                  f" {0.42 * nn * wire / m / 2**30:.0f} | {layer_t / 2**30:.0f} ({layer_t / bw:.0f}) |"
                  f" {run_t / 2**30:.0f} | {nn * avg * c_child / (m * cores) / 3600:.2f}-"
                  f"{nn * c_pos / (m * cores) / 3600:.2f} | {run_t / bw / 3600:.2f} |"
                  f" {nn * wire / m / 2**30:.0f} |")

    print(f"\n## u64 path counts (max {U64:.4g})")
    for r, c in [(4, 4)]:
        sh = path_shares(r, c)
        print(f"{r}x{c}: largest share of a layer's paths at one position, last layers: "
              + ", ".join(f"{d} discs {x:.2g}" for d, _, x in sh[-4:])
              + f" ({sum(k for _, k, _ in sh):,} positions, as results/4x4)")
    print(f"6x6 overflows if one position carries more than {U64 / 2.857e22:.2g} of the paths")


if __name__ == "__main__":
    main()
