#!/usr/bin/env bash
# compare-write.sh: writing compressed tars (issue 26, points 7 and 8),
# garc against the reference pipelines, in alternating runs:
#   garc a -mxL --threads 2 out.tar.gz   vs  tar c | pigz -p2 -6
#   garc a -mxL --threads 2 out.tar.zst  vs  tar c | zstd -T2 -3
#   garc a -mxL --threads 2 out.tar.xz   vs  tar c | xz -T2 -6
#   garc a -mxL --threads 2 out.tar.bz2  vs  tar c | lbzip2 -n2 -9
# Two inputs: "tree", Go sources (GOROOT/src/crypto and src/net, about
# 21 MB in 2,000 files), and "mixed", one file of the standard mixed data
# (../shared/tools/mixed-data, SIZE bytes). Runs alternate between garc
# and the reference (RUNS each) so that the load of a shared machine hits
# both alike. It prints the medians of wall time, CPU time (user+sys of
# every process of the pipeline), garc's peak RSS, both sizes and the
# ratios garc/ref of wall, CPU and size.
# Usage: scripts/compare-write.sh [SIZE_BYTES] [RUNS] [ROWS]
# ROWS: a comma-separated list of tree.gz,tree.zst,tree.xz,tree.bz2,
# mixed.gz,... (default: tree.* and mixed.* for gz, zst and xz).
# LEVELS=gz:6,zst:5,xz:6,bz2:9 sets garc's -mx per format (these are the
# defaults: -mx5, garc's default, is the level that maps to zstd -3).
# GARC=path uses an existing binary.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100000000}
runs=${2:-3}
rows=${3:-tree.gz,tree.zst,tree.xz,mixed.gz,mixed.zst,mixed.xz}
levels=${LEVELS:-gz:6,zst:5,xz:6,bz2:9}
want() { [[ ",$rows," == *",$1,"* ]]; }
level() { local l=",$levels,"; l=${l#*",$1:"}; echo "${l%%,*}"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/garc-write.XXXXXX")
trap 'rm -rf "$work"' EXIT

for t in tar pigz zstd xz lbzip2 go /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "$t is missing" >&2; exit 1; }
done
garc=${GARC:-}
if [ -z "$garc" ]; then
  go build -o "$work/garc" ./cmd/garc
  garc=$work/garc
fi

mkdir -p "$work/tree" "$work/mixed"
if [[ ",$rows," == *",tree."* ]]; then
  src=$(go env GOROOT)/src
  cp -r "$src/crypto" "$src/net" "$work/tree/"
fi
if [[ ",$rows," == *",mixed."* ]]; then
  gen=../shared/tools/mixed-data
  [ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }
  "$gen" "$size" > "$work/mixed/mixed.bin"
fi
for t in tree mixed; do
  [ -n "$(ls -A "$work/$t")" ] || continue
  echo "$t: $(du -sb "$work/$t" | cut -f1) bytes in $(find "$work/$t" -type f | wc -l) files"
done

# measure CMD OUT: "wall cpu rss_kib size" of one run (cpu: user+sys of
# the whole pipeline; rss: the largest process's).
measure() {
  rm -f "$2"
  sync
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -o pipefail -c "$1" >/dev/null 2>"$work/err" || {
    echo "failed: $1" >&2; cat "$work/err" >&2; exit 1; }
  awk -v s="$(stat -c %s "$2")" '{ printf "%.3f %.3f %d %d", $1, $2 + $3, $4, s }' "$work/time"
  rm -f "$2"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

printf '\n%-10s %4s %8s %7s %7s %11s  %8s %7s %7s %11s  %6s %6s %7s\n' "" mx "ref wall" "ref cpu" "ref MiB" "ref bytes" \
  "g wall" "g cpu" "g MiB" "g bytes" "wall" "cpu" "size"
row() { # row, reference command, format
  local i r g t=${1%%.*} f=${1#*.} rw=() rc=() rm=() gw=() gc=() gm=() rs gs
  want "$1" || return 0
  local mx
  mx=$(level "$f")
  for ((i = 0; i < runs; i++)); do
    r=($(measure "tar -C $work/$t -c . | $2 > $work/out" "$work/out"))
    g=($(measure "cd $work/$t && $garc a -mx$mx --threads 2 -bso0 -bsp0 $work/out.tar.$f ." "$work/out.tar.$f"))
    rw+=("${r[0]}"); rc+=("${r[1]}"); rm+=("${r[2]}"); rs=${r[3]}
    gw+=("${g[0]}"); gc+=("${g[1]}"); gm+=("${g[2]}"); gs=${g[3]}
    echo "  $1 run $((i + 1)): ref ${r[0]} s ${r[1]} s cpu, garc ${g[0]} s ${g[1]} s cpu" >&2
  done
  local mrw mrc mrm mgw mgc mgm
  mrw=$(printf '%s\n' "${rw[@]}" | median); mrc=$(printf '%s\n' "${rc[@]}" | median)
  mrm=$(printf '%s\n' "${rm[@]}" | median)
  mgw=$(printf '%s\n' "${gw[@]}" | median); mgc=$(printf '%s\n' "${gc[@]}" | median)
  mgm=$(printf '%s\n' "${gm[@]}" | median)
  awk -v n="$1" -v mx="$mx" -v rw="$mrw" -v rc="$mrc" -v rm="$mrm" -v rs="$rs" -v gw="$mgw" -v gc="$mgc" -v gm="$mgm" -v gs="$gs" \
    'BEGIN { printf "%-10s %4s %8.3f %7.3f %7.1f %11d  %8.3f %7.3f %7.1f %11d  %6.3f %6.3f %7.4f\n",
      n, mx, rw, rc, rm / 1024, rs, gw, gc, gm / 1024, gs, gw / rw, gc / rc, gs / rs }'
}

for t in tree mixed; do
  row "$t.gz" "pigz -p2 -6"
  row "$t.zst" "zstd -q -T2 -3"
  row "$t.xz" "xz -T2 -6"
  row "$t.bz2" "lbzip2 -n2 -9"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
