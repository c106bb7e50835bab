#!/usr/bin/env bash
# compare-parallel.sh: parallel decoding (issue 27, point 4) against the
# anchors, in alternating runs so that the load of a shared machine hits
# all commands alike. For each row it prints the median of RUNS runs of
# CPU time (user+sys), wall time and peak RSS, and wall/CPU (≤ 0.6 is
# the issue's target on multi-block inputs):
#   bz2.t     garc t x.bz2 (--threads 1 and 2)  vs  lbzip2 -t -n2, bzip2 -t, 7zz t
#   tzst.x    garc x big.tar.zst -o d (--threads 1 and 2)  vs  tar -I zstd -xf
#   tgz.x     garc x big.tar.gz -o d (--threads 1 and 2)   vs  tar -xzf
# Inputs: the standard mixed data (../shared/tools/mixed-data SIZE,
# behind one byte so that it does not begin like a tar) compressed by
# lbzip2 -9; a tar of GOROOT/src and that data, compressed by zstd -3
# and gzip -6. The load average is printed before and after.
# Usage: scripts/compare-parallel.sh [SIZE_BYTES] [RUNS] [ROWS]
# ROWS: comma-separated bz2.t,tzst.x,tgz.x (default all). GARC=path uses
# an existing binary.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200000000}
runs=${2:-3}
rows=${3:-bz2.t,tzst.x,tgz.x}
want() { [[ ",$rows," == *",$1,"* ]]; }
work=$(mktemp -d "${TMPDIR:-/tmp}/garc-par.XXXXXX")
trap 'rm -rf "$work"' EXIT
for t in tar gzip zstd lbzip2 bzip2 7zz go /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "$t is missing (apt-get install -y lbzip2 for lbzip2)" >&2; exit 1; }
done
garc=${GARC:-}
if [ -z "$garc" ]; then
  go build -o "$work/garc" ./cmd/garc
  garc=$work/garc
fi
gen=../shared/tools/mixed-data
[ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }
mkdir "$work/src"
{ printf x; "$gen" "$size"; } > "$work/src/mixed.bin"
if want bz2.t; then lbzip2 -9 -n2 -c "$work/src/mixed.bin" > "$work/x.bz2"; fi
if want tzst.x || want tgz.x; then
  tar -C "$(go env GOROOT)" -cf "$work/big.tar" src
  tar -C "$work/src" -rf "$work/big.tar" mixed.bin
  if want tzst.x; then zstd -q -3 -c "$work/big.tar" > "$work/big.tar.zst"; fi
  if want tgz.x; then gzip -6 -c "$work/big.tar" > "$work/big.tar.gz"; fi
  rm -f "$work/big.tar"
fi
rm -rf "$work/src"
ls -l "$work" | sed 1d
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

width=8
fresh=$work/out
. scripts/rows.sh
o=$work/out
row bz2.t "garc t --threads 1" "$garc t --threads 1 $work/x.bz2" \
  "garc t --threads 2" "$garc t --threads 2 $work/x.bz2" \
  "lbzip2 -t -n2" "lbzip2 -t -n2 $work/x.bz2" \
  "bzip2 -t" "bzip2 -t $work/x.bz2" \
  "7zz t" "7zz t $work/x.bz2"
row tzst.x "garc x --threads 1" "$garc x -q --threads 1 -o $o $work/big.tar.zst" \
  "garc x --threads 2" "$garc x -q --threads 2 -o $o $work/big.tar.zst" \
  "tar -I zstd -xf" "tar -C $o -I zstd -xf $work/big.tar.zst"
row tgz.x "garc x --threads 1" "$garc x -q --threads 1 -o $o $work/big.tar.gz" \
  "garc x --threads 2" "$garc x -q --threads 2 -o $o $work/big.tar.gz" \
  "tar -xzf" "tar -C $o -xzf $work/big.tar.gz"
echo
echo "medians of $runs alternating runs; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
