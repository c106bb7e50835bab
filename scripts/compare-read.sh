#!/usr/bin/env bash
# compare-read.sh: garc's reading of ZIP, tar.gz, tar.zst and .xz against
# the reference tools of issue 16, on the standard mixed-data input
# (../shared/tools/mixed-data: the Go source tree as a tar, then Go
# binaries):
#   ZIP Deflate   garc x   vs 7zz x
#   .tar.gz       garc x   vs tar xzf
#   .tar.zst      garc x   vs tar --zstd -xf
#   .xz           garc x   vs xz -dc -T1 > file (input: the mixed data
#                 without its first KiB, so that it is not a tar)
# Runs alternate between the two tools (RUNS each, the best kept) so that
# the load of a shared machine hits both alike. For each it prints CPU
# time (user+sys, children included), wall time and peak RSS, and the
# throughput ratio reference/garc on CPU time (≥ 1.0 meets the target).
# Usage: scripts/compare-read.sh [SIZE_BYTES] [RUNS] [ROWS]
# ROWS is a comma-separated list of the rows to run (zip,tar.gz,tar.zst,xz;
# default all of them), e.g. `scripts/compare-read.sh 104857600 3 xz`.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-104857600}
runs=${2:-3}
rows=${3:-zip,tar.gz,tar.zst,xz}
want() { [[ ",$rows," == *",$1,"* ]]; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for t in 7zz tar gzip zstd xz /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "$t is missing" >&2; exit 1; }
done
gen=../shared/tools/mixed-data
[ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }

go build -o "$work/garc" ./cmd/garc
mkdir "$work/src"
"$gen" "$size" > "$work/src/mixed.bin"
tail -c +1025 "$work/src/mixed.bin" > "$work/plain.bin"
echo "input: $(stat -c %s "$work/src/mixed.bin") bytes of mixed data; $(7zz | sed -n 2p)"

if want zip; then (cd "$work/src" && 7zz a -bd -tzip -mm=Deflate -mx5 "$work/a.zip" mixed.bin >/dev/null); fi
if want tar.gz || want tar.zst; then tar -C "$work/src" -cf "$work/a.tar" mixed.bin; fi
if want tar.gz; then gzip -6 -c "$work/a.tar" > "$work/a.tar.gz"; fi
if want tar.zst; then zstd -q -3 -c "$work/a.tar" > "$work/a.tar.zst"; fi
if want xz; then xz -6 -T1 -c "$work/plain.bin" > "$work/plain.xz"; fi
rm -f "$work/a.tar"

# measure CMD...: "cpu wall rss_kib" of one run (cpu = user+sys, children
# included), in a fresh output folder.
measure() {
  rm -rf "$work/out"; mkdir "$work/out"
  /usr/bin/time -f '%U %S %e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
    echo "failed: $*" >&2; cat "$work/err" >&2; exit 1; }
  awk '{ printf "%.3f %.3f %d", $1 + $2, $3, $4 }' "$work/time"
}

# best A B: the element-wise minimum of two "cpu wall rss" triples.
best() {
  if [ -z "$1" ]; then echo "$2"; return; fi
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y)
    printf "%.3f %.3f %d", (x[1] < y[1] ? x[1] : y[1]), (x[2] < y[2] ? x[2] : y[2]), (x[3] < y[3] ? x[3] : y[3]) }'
}

printf '\n%-10s %9s %9s %9s  %9s %9s %9s  %7s\n' "" "ref cpu" "ref wall" "ref MiB" "garc cpu" "garc wall" "garc MiB" "speed×"
row() { # name, reference command (string), garc command (string)
  local ref="" own="" i
  want "$1" || return 0
  for ((i = 0; i < runs; i++)); do
    ref=$(best "$ref" "$(measure bash -c "$2")")
    own=$(best "$own" "$(measure bash -c "$3")")
  done
  awk -v n="$1" -v r="$ref" -v g="$own" 'BEGIN { split(r, x); split(g, y)
    printf "%-10s %9.3f %9.3f %9.1f  %9.3f %9.3f %9.1f  %7.2f\n", n, x[1], x[2], x[3] / 1024, y[1], y[2], y[3] / 1024, x[1] / y[1] }'
}
g="$work/garc"
o="$work/out"
row "zip"     "7zz x -bd -y -o$o $work/a.zip"          "$g x -y -o$o $work/a.zip"
row "tar.gz"  "tar -C $o -xzf $work/a.tar.gz"          "$g x -y -o$o $work/a.tar.gz"
row "tar.zst" "tar -C $o --zstd -xf $work/a.tar.zst"   "$g x -y -o$o $work/a.tar.zst"
row "xz"      "xz -dc -T1 $work/plain.xz > $o/plain"   "$g x -y -o$o $work/plain.xz"
echo
echo "cpu = user+sys seconds (children included), best of $runs alternating runs; speed× = reference cpu / garc cpu (≥ 1.0: garc is as fast)."
