#!/usr/bin/env bash
# Writes docs/bad-input.md: every kind of bad input tried on the release binary, with the
# exit code and the one line it gets. Run from the repository's root after
# `cargo build --release`:  bash docs/bad-input.sh > docs/bad-input.md
set -uo pipefail
B=${REVERSI:-target/release/reversi}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
touch "$T/a-file"
printf 'XXO\n' > "$T/bad.obf"
: > "$T/empty.obf"

cases=(
  "no command|"
  "unknown command|frobnicate"
  "unknown flag|perft --frobnicate"
  "board too large|perft --size 9"
  "board too small|perft --size 2"
  "rows without cols|perft --rows 4"
  "depth not a number|perft --depth x"
  "illegal move|perft -n 4 --moves a1"
  "unknown move token|perft -n 4 --moves 'b1 zz'"
  "square off the board|perft -n 4 --moves e1"
  "pass when a move exists|perft -n 4 --moves pass"
  "board string of a wrong length|perft --board XXO"
  "board string with a bad character|perft -n 4 --board '-----OX--XO----Q X'"
  "board string with a bad side to move|perft -n 4 --board '-----OX--XO----- Z'"
  "board string without its side to move|perft --board '-----OX--XO-----'"
  "board with no discs|count --board '---------------- X'"
  "more memory than the machine has|perft --hash-mb 100000000"
  "a memory budget too small|count -n 5 --memory 1 --store memory --no-files"
  "--tmp-dir that does not exist|count -n 4 --store disk --tmp-dir /nonexistent"
  "--disk 0|count -n 4 --store disk --disk 0"
  "--out where a file stands|count -n 6 --out $T/a-file"
  "--out that cannot be created|estimate -n 6 --out $T/a-file/sub"
  "--tmp-dir where a file stands|count -n 4 --store disk --tmp-dir $T/a-file"
  "a directory as the --out file|solve -n 4 --out $T"
  "a directory as the --csv file|positions -n 4 --csv $T"
  "a directory as the checkpoint|perft -n 6 --fast -d 10 --checkpoint $T"
  "a row number of two digits|solve -n 4 --moves b10"
  "--resume with nothing to resume|count -n 4 --out $T/none --resume"
  "OBF file that does not exist|solve --file $T/missing.obf"
  "empty OBF file|solve --file $T/empty.obf"
  "OBF line of the wrong length|solve --file $T/bad.obf"
  "a game already over|solve -n 4 --board 'XXXXXXXXXXXXXXXX X' --mode best"
  "hostfile that does not exist|count -n 4 --processes 2 --process 0 --hostfile $T/none.txt"
  "--process out of range|count -n 4 --processes 1 --process 3"
  "a request of hours: solve 8x8|solve -n 8"
  "a request of hours: perft ply 30|perft -n 8 -d 30"
  "a request of hours: dfs count of 6x6|count -n 6 --method dfs"
  "a request of days: dp count of 4x8|count --rows 4 --cols 8"
)

echo "# Bad input and what it gets"
echo
echo "Written by \`bash docs/bad-input.sh > docs/bad-input.md\` from the release binary. Every case"
echo "gets one line on stderr and exit code 2, before any work starts. (\`Ctrl-C\`, SIGTERM and"
echo "SIGHUP get exit code 130: see the README.)"
echo
echo "| input | command | exit | message |"
echo "|---|---|---|---|"
for c in "${cases[@]}"; do
  what=${c%%|*}
  args=${c#*|}
  out=$(cd "$T" && eval "$(realpath "$OLDPWD/$B" 2>/dev/null || echo "$B") $args" 2>&1 >/dev/null </dev/null)
  code=$?
  shown=${args//$T/\$T}
  msg=$(printf '%s' "$out" | head -3 | tr '\n' ' ' | sed "s|$T|\$T|g; s/|/\\\\|/g")
  echo "| $what | \`reversi $shown\` | $code | $msg |"
done
