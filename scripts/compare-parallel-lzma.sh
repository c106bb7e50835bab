#!/usr/bin/env bash
# compare-parallel-lzma.sh: parallel LZMA2 and xz decoding (issue 27,
# point 4) against the anchors, in alternating runs so that the load of a
# shared machine hits all commands alike. For each row it prints the
# median of RUNS runs of CPU time (user+sys), wall time, wall/CPU (≤ 0.6
# is the issue's target on multi-block inputs) and peak RSS:
#   DATA.mx1.t  garc t x.7z (--threads 1 and 2)  vs  7zz t   (7zz a -mx1 -mmt2: 1 MiB blocks)
#   DATA.mx5.t  the same of 7zz a -mx5 -mmt2 (128 MiB blocks)
#   DATA.xz.t   garc t x.xz (--threads 1 and 2)  vs  xz -t -T2, 7zz t   (xz -T2 -6: 24 MiB blocks)
# DATA: numbers (`seq 1 15000000`, 124 MB) and mixed (the standard mixed
# data, ../shared/tools/mixed-data SIZE). The load average is printed
# before and after.
# Usage: scripts/compare-parallel-lzma.sh [SIZE_BYTES] [RUNS] [ROWS]
# ROWS: comma-separated row names (default all). GARC=path uses an
# existing binary.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100000000}
runs=${2:-3}
rows=${3:-numbers.mx1.t,numbers.mx5.t,numbers.xz.t,mixed.mx1.t,mixed.mx5.t,mixed.xz.t}
want() { [[ ",$rows," == *",$1,"* ]]; }
work=$(mktemp -d "${TMPDIR:-/tmp}/garc-parlz.XXXXXX")
trap 'rm -rf "$work"' EXIT
for t in xz 7zz go seq /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "$t is missing" >&2; exit 1; }
done
garc=${GARC:-}
if [ -z "$garc" ]; then
  go build -o "$work/garc" ./cmd/garc
  garc=$work/garc
fi
gen=../shared/tools/mixed-data
[ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }
for d in numbers mixed; do
  want $d.mx1.t || want $d.mx5.t || want $d.xz.t || continue
  # The mixed data goes behind one byte so that it does not begin like a tar.
  if [ $d = numbers ]; then seq 1 15000000 > "$work/$d"; else { printf x; "$gen" "$size"; } > "$work/$d"; fi
  if want $d.mx1.t; then 7zz a -bd -mx1 -mmt2 "$work/$d.mx1.7z" "$work/$d" >/dev/null; fi
  if want $d.mx5.t; then 7zz a -bd -mx5 -mmt2 "$work/$d.mx5.7z" "$work/$d" >/dev/null; fi
  if want $d.xz.t; then xz -T2 -6 -c "$work/$d" > "$work/$d.xz"; fi
  rm -f "$work/$d"
done
ls -l "$work" | sed 1d
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

width=14
. scripts/rows.sh
for d in numbers mixed; do
  for m in mx1 mx5; do
    row $d.$m.t "garc t --threads 1" "$garc t --threads 1 $work/$d.$m.7z" \
      "garc t --threads 2" "$garc t --threads 2 $work/$d.$m.7z" \
      "7zz t" "7zz t $work/$d.$m.7z"
  done
  row $d.xz.t "garc t --threads 1" "$garc t --threads 1 $work/$d.xz" \
    "garc t --threads 2" "$garc t --threads 2 $work/$d.xz" \
    "xz -t -T2" "xz -t -T2 $work/$d.xz" \
    "7zz t" "7zz t $work/$d.xz"
done
echo
echo "medians of $runs alternating runs; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
