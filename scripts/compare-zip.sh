#!/usr/bin/env bash
# compare-zip.sh: ZIP Deflate of garc against 7zz -tzip (one thread) and
# Info-ZIP zip, issue 26 point 6. Inputs: 20 MB of Go sources (the tar of
# $(go env GOROOT)/src cut at 20,000,000 bytes), ../shared/tools/mixed-data
# (SIZE bytes) and `seq 1 10000000`, each packed as one file. For each
# input and level, RUNS alternating runs of 7zz and garc (and zip -6/-9 against garc -mx3/-mx4),
# the least CPU time (user+sys) kept; prints sizes, CPU and peak RSS, and
# garc/7zz and garc/zip ratios (lower is better). On a shared machine
# compare the CPU figures, not wall time.
# Usage: scripts/compare-zip.sh [SIZE_BYTES] [LEVELS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100000000}
levels=${2:-"1 5 9"}
runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for t in 7zz zip go; do
  command -v "$t" >/dev/null || { echo "$t is missing" >&2; exit 1; }
done
gen=../shared/tools/mixed-data
[ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }

go build -o "$work/garc" ./cmd/garc
mkdir "$work/in"
tar c -C "$(go env GOROOT)" src 2>/dev/null | head -c 20000000 > "$work/in/gosrc.tar" || true
"$gen" "$size" > "$work/in/mixed.bin"
seq 1 10000000 > "$work/in/seq.txt"
echo "$(7zz | sed -n 2p); $(zip -v | sed -n 2p)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# measure OUT CMD...: "cpu rssKiB size" of one run writing OUT.
measure() {
  local out=$1
  shift
  rm -f "$out"
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>&1
  awk -v s="$(stat -c %s "$out")" '{ printf "%.2f %d %d\n", $1 + $2, $3, s }' "$work/time"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
minof() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

printf '\n%-18s %10s %6s %5s %10s %6s %5s %7s %6s\n' "input, level" "anchor B" "cpu" "MiB" "garc B" "cpu" "MiB" "size×" "cpu×"
row() { # label anchor-command... -- garc level
  local label=$1 level=$2 anchor=$3
  shift 3
  local ca= cg= ra rg sa sg c r s
  for run in $(seq "$runs"); do
    read -r c r s < <(measure "$work/a.zip" "$@")
    ca=$(minof "$ca" "$c"); ra=$r; sa=$s
    read -r c r s < <(cd "$work/in" && measure "$work/g.zip" "$work/garc" a -q -tzip -mx"$level" "$work/g.zip" "$f")
    cg=$(minof "$cg" "$c"); rg=$r; sg=$s
  done
  printf '%-18s %10s %6s %5s %10s %6s %5s %7s %6s  (%s)\n' "$label" "$sa" "$ca" "$((ra / 1024))" "$sg" "$cg" "$((rg / 1024))" \
    "$(ratio "$sg" "$sa")" "$(ratio "$cg" "$ca")" "$anchor"
}
for f in gosrc.tar mixed.bin seq.txt; do
  for mx in $levels; do
    row "$f -mx$mx" "$mx" "7zz -mx$mx" sh -c "cd '$work/in' && exec 7zz a -bd -tzip -mx$mx -mmt1 '$work/a.zip' '$f'"
  done
  # garc's lazy levels against Info-ZIP's: -mx3 against zip -6 (its
  # default), -mx4 against zip -9 (docs/PERFORMANCE.md, ZIP Deflate).
  for pair in 3:6 4:9; do
    row "$f -mx${pair%:*}" "${pair%:*}" "zip -${pair#*:}" sh -c "cd '$work/in' && exec zip -q -${pair#*:} '$work/a.zip' '$f'"
  done
done
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "size× and cpu× are garc/anchor (lower is better); MiB is peak RSS."
