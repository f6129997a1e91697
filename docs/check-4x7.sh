#!/usr/bin/env bash
# Independent checks of the 4x7 count (issue 20): the disk store's counts after several
# openings against a second method on the same openings, file by file.
#   - a 3-ply opening: the disk store against the memory store (each layer in RAM);
#   - 4- and 5-ply openings, one under each first move: the disk store against dfs, which
#     enumerates every game one by one with none of dp's code (no keys, layers or merging).
# Every output file that both methods write must be byte-identical (score matrix, lengths,
# margins, first moves: the counts after one more placement; dp against dp also the
# positions per layer). Prints a Markdown table on stdout; exits non-zero on any difference.
#
#   cargo build --release && bash docs/check-4x7.sh WORKDIR > results/4x7/checks.md
#
# About 40 minutes on two cores; the memory store needs about 10 GiB for "e4 f4 g4". A run
# whose files are already in WORKDIR is not run again.
set -euo pipefail
B=$(realpath "${REVERSI:-target/release/reversi}")
W=${1:?usage: docs/check-4x7.sh WORKDIR}
mkdir -p "$W"
W=$(realpath "$W")

# FILE lists compared, per pair of methods.
dp_files="score_matrix.csv lengths.csv margins.csv first_moves.csv positions_per_layer.csv"
dfs_files="score_matrix.csv lengths.csv margins.csv first_moves.csv"

run() { # tag, then the count's own flags
  local tag=$1
  shift
  local out="$W/$tag"
  if [ ! -f "$out/summary.json" ]; then
    rm -rf "$out"
    "$B" count --rows 4 --cols 7 --out "$out" "$@" >"$W/$tag.log" 2>&1
  fi
}

games() { sed -n 's/^ *"games": *\([0-9]*\).*/\1/p' "$1/summary.json" | head -1; }

compare() { # opening, method A tag, method B tag, files
  local opening=$1 a=$2 b=$3 files=$4 same=yes f
  for f in $files; do
    if ! cmp -s "$W/$a/$f" "$W/$b/$f"; then
      same="NO ($f differs)"
    fi
  done
  printf '| %s | %s | %s | %s | %s |\n' "$opening" "${b##*-}" \
    "$(games "$W/$a")" "$(games "$W/$b")" "$same"
  [ "$same" = yes ]
}

echo "# Checks of the 4x7 count"
echo
echo "Written by \`bash docs/check-4x7.sh WORKDIR > results/4x7/checks.md\` ($("$B" --version),"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))."
echo "Games after each opening by the disk store (\`--store disk\`) and by a second method;"
echo "\"same files\" means every file both wrote is byte-identical: $dfs_files"
echo "(and positions_per_layer.csv between the two stores)."
echo
echo "| opening | second method | games by the disk store | games by the second method | same files |"
echo "|---|---|---|---|---|"
status=0
for opening in "e4 f4 g4 e1" "f3 f4 d1 e1" "c2 c1 e4 b2 a2" "d1 c3 f4 f1 b3"; do
  tag=${opening// /-}
  run "$tag-disk" --moves "$opening" --store disk --memory 4000 --tmp-dir "$W"
  run "$tag-dfs" --moves "$opening" --method dfs --frontier 200000
  compare "$opening" "$tag-disk" "$tag-dfs" "$dfs_files" || status=1
done
for opening in "e4 f4 g4"; do
  tag=${opening// /-}
  run "$tag-disk" --moves "$opening" --store disk --memory 6000 --tmp-dir "$W"
  run "$tag-memory" --moves "$opening" --store memory --memory 14000
  compare "$opening" "$tag-disk" "$tag-memory" "$dp_files" || status=1
done
exit $status
