#!/usr/bin/env bash
# How much of a killed solve a small `solve --state` snapshot keeps, against a large one
# (BENCHMARKS.md, "A solve resumed from its state"). One thread, so node counts repeat; only
# the moment of the kill is wall-clock. The solve is killed (SIGKILL) after KILL seconds with
# a snapshot of at most 256 MiB; copies of that snapshot cut to 1 MiB and 64 KiB by the rule
# `Table::snapshot` uses (whole size classes, most empty squares first) are resumed beside
# the full one, so all three start from the same moment.
#
#   docs/snapshot-size.sh KILL SOLVE-ARGS...
#   docs/snapshot-size.sh 20 --rows 6 --cols 6 --hash-mb 1024
#   docs/snapshot-size.sh 180 --rows 6 --cols 7 --moves c3,c4,c5,b4,d5,d6,b3,c6 --hash-mb 2048
set -euo pipefail
kill_after=$1
shift
reversi=${REVERSI:-target/release/reversi}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=(--threads 1 --yes "$@")

nodes() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['nodes'])" "$1/solve-state.json"; }

"$reversi" solve "${args[@]}" --state "$work/whole" > /dev/null 2>&1
echo "whole solve: $(nodes "$work/whole") nodes"

"$reversi" solve "${args[@]}" --state "$work/full" --state-mb 256 --snapshot-secs 5 \
    > /dev/null 2>&1 &
pid=$!
sleep "$kill_after"
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
rm -f "$work/full/.reversi.lock"

cut_snapshot() { # cut_snapshot SRC DST MIB: the snapshot SRC cut to at most MIB MiB, re-checksummed
    python3 - "$@" << 'PY'
import collections, struct, sys
src, dst, mib = sys.argv[1], sys.argv[2], float(sys.argv[3])
b = open(src, 'rb').read()
n = struct.unpack('<I', b[8:12])[0]
start = 20 + n
count = struct.unpack('<Q', b[12 + n:start])[0]
empties = [b[start + 24 * i + 19] for i in range(count)]
per = collections.Counter(empties)
least, kept, room = 256, 0, int(mib * (1 << 20)) // 24
while least > 0 and kept + per.get(least - 1, 0) <= room:
    least -= 1
    kept += per.get(least, 0)
body = b''.join(b[start + 24 * i:start + 24 * i + 24] for i in range(count) if empties[i] >= least)
out = b[:12 + n] + struct.pack('<Q', len(body) // 24) + body
h = 0xcbf29ce484222325
for x in out:
    h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(dst, 'wb').write(out + struct.pack('<Q', h))
PY
}

before=$(python3 -c "
import json,struct,sys
b=open(sys.argv[1],'rb').read(); n=struct.unpack('<I',b[8:12])[0]
print(json.loads(b[12:12+n])['nodes'])" "$work/full/solve-table.bin")
echo "killed; the snapshot was taken at $before nodes"
for mib in 1 0.0625; do
    mkdir "$work/cut-$mib"
    cut_snapshot "$work/full/solve-table.bin" "$work/cut-$mib/solve-table.bin" "$mib"
    if [ -f "$work/full/solve-state.json" ]; then cp "$work/full/solve-state.json" "$work/cut-$mib/"; fi
done
for d in full cut-1 cut-0.0625; do
    kib=$(( $(stat -c %s "$work/$d/solve-table.bin") / 1024 ))
    "$reversi" solve "${args[@]}" --state "$work/$d" --resume > /dev/null 2> "$work/$d.err"
    bounds=$(grep -o '[0-9]* table bounds' "$work/$d.err" | head -1)
    echo "$d: $bounds ($kib KiB), $(nodes "$work/$d") nodes in all"
done
