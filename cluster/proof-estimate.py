#!/usr/bin/env python3
"""Estimates what a proof in work units will cost, from its own proof log.

usage: python3 cluster/proof-estimate.py DIR [--revisions R] [--rate NODES_PER_S]
           [--cores N ...] [--reversi BIN]

DIR is the proof's --dir (its units-I-of-P.log files). The script reads the logs' header and
records, asks `reversi prove ... --status` how many units the current selection still holds,
and prints:

  units done, their nodes and core-seconds (mean and median per unit),
  units selected and not yet done,
  the estimate: (done + selected) units x the mean unit cost x R, where R allows for the
  reselections that follow a failed hypothesis (the first selection is the smallest set of
  units that can decide the root; a wrong guess of the root's value, or of a best move,
  selects more). R is measured on the 6x6 start: all the units of the proof over the first
  selection were 25/15 = 1.7 with units 4 plies below the root (28 empty squares), 197/67 =
  2.9 at 6 plies and 1613/315 = 5.1 at 8 plies, so by default R = 1.7 x 1.73^((plies-4)/2),
  plies being the root's empty squares less the units' (override with --revisions),
  in nodes, core-hours, and wall-clock hours on N cores (default: 2, 64, 1024).

The mean of a handful of units is a rough guide: unit costs spread over two orders of
magnitude (the log shows them), so the estimate firms up as units finish. Nothing here is
written anywhere; run it again at any time.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys


def read_logs(d):
    header = None
    seen = {}
    for name in sorted(os.listdir(d)):
        if not re.fullmatch(r"units-\d+-of-\d+\.log", name):
            continue
        with open(os.path.join(d, name), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                rec = json.loads(line.split(" ", 1)[1])
            except (IndexError, ValueError):
                if i == len(lines) - 1 or (i == len(lines) - 2 and not lines[-1]):
                    continue  # a torn last line: its unit is redone by the prover
                sys.exit(f"{name} line {i + 1}: not a proof log line")
            if i == 0:
                header = rec
            else:
                seen[(rec["position"], rec["alpha"])] = rec
    if header is None:
        sys.exit(f"{d}: no proof log (units-I-of-P.log) here")
    return header, list(seen.values())


def selected(header, d, binary):
    rows, cols = header["board"].split("x")
    cmd = [
        binary, "prove", "--rows", rows, "--cols", cols, "--board", header["root"],
        "--dir", d, "--scoring", header["scoring"],
        "--unit-empties", str(header["unit_empties"]), "--hash-mb", str(header["hash_mb"]),
        "--order-nodes", str(header["order_nodes"]), "--status",
    ]
    if header.get("tuning"):
        cmd += ["--without", header["tuning"]]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    m = re.search(r"(\d+) selected and not yet done", out.stdout + out.stderr)
    if out.returncode != 0 or not m:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr.strip()}")
    return int(m.group(1)), out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--revisions", type=float, default=None)
    ap.add_argument("--rate", type=float, default=None,
                    help="nodes per second per core to assume (default: the log's own)")
    ap.add_argument("--cores", type=int, nargs="+", default=[2, 64, 1024])
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "reversi")
    ap.add_argument("--reversi", default=os.environ.get("REVERSI") or shutil.which("reversi") or here)
    a = ap.parse_args()

    header, recs = read_logs(a.dir)
    if not recs:
        sys.exit(f"{a.dir}: no unit finished yet, so no cost to extrapolate from")
    left, status = selected(header, a.dir, a.reversi)
    if a.revisions is None:
        plies = header["root"].count("-") - header["unit_empties"]
        a.revisions = 1.7 * 1.73 ** ((plies - 4) / 2)
    nodes = [r["nodes"] for r in recs]
    secs = [r["seconds"] for r in recs]
    mean_n, mean_s = statistics.mean(nodes), statistics.mean(secs)
    total_units = (len(recs) + left) * a.revisions
    total_nodes = total_units * mean_n
    rate = a.rate or sum(nodes) / sum(secs)
    core_h = total_nodes / rate / 3600
    print(f"proof of {header['board']} ({header['scoring']}), units of {header['unit_empties']} empty squares, "
          f"{header['hash_mb']} MiB tables")
    print(status.strip().split("\n")[1])
    print(f"units done: {len(recs)}, {sum(nodes):.3e} nodes, {sum(secs) / 3600:.2f} core-hours; per unit "
          f"mean {mean_n:.3e} nodes (median {statistics.median(nodes):.3e}, max {max(nodes):.3e}), "
          f"mean {mean_s:.0f} s, {sum(nodes) / sum(secs):.3e} nodes/s per core")
    print(f"selected and not yet done: {left}")
    print(f"estimate: ({len(recs)} + {left}) units x {a.revisions:.1f} for reselections = {total_units:.0f} units, "
          f"{total_nodes:.2e} nodes, {core_h:.0f} core-hours at {rate:.2e} nodes/s per core")
    for n in a.cores:
        print(f"  on {n} cores: {core_h / n:.1f} hours ({core_h / n / 24:.1f} days)")


if __name__ == "__main__":
    main()
