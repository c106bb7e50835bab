#!/usr/bin/env bash
# compare-pipe.sh: extraction of an archive arriving on a pipe (issue 24),
# garc against the reference pipelines, in wall time:
#   cat a.tar.zst | garc x -    vs  cat a.tar.zst | zstd -dc | tar x
#   cat a.tar.gz  | garc x -    vs  cat a.tar.gz  | gzip -dc | tar x
# (`cat` stands for curl). Two inputs: "tree", the Go source tree
# (GOROOT/src: thousands of small files), and "mixed", one file of the
# standard mixed data (../shared/tools/mixed-data, SIZE bytes). Runs
# alternate between garc and the reference (RUNS each) so that the load
# of a shared machine hits both alike; each run extracts into a fresh
# directory. It prints every pair and the medians, the ratio garc/ref of
# the median wall times (≤ 1.05 meets the target), CPU time (user+sys,
# all processes of the pipeline) and garc's peak RSS.
# Usage: scripts/compare-pipe.sh [SIZE_BYTES] [RUNS] [ROWS]
# ROWS: a comma-separated list of tree.zst,tree.gz,mixed.zst,mixed.gz
# (default all). GARC=path uses an existing binary; GARC_ARGS adds
# options to garc's command line (e.g. "--threads 2").
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-268435456}
runs=${2:-5}
rows=${3:-tree.zst,tree.gz,mixed.zst,mixed.gz}
want() { [[ ",$rows," == *",$1,"* ]]; }
work=$(mktemp -d "${TMPDIR:-/tmp}/garc-pipe.XXXXXX")
trap 'rm -rf "$work"' EXIT

for t in tar gzip zstd go /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "$t is missing" >&2; exit 1; }
done
garc=${GARC:-}
if [ -z "$garc" ]; then
  go build -o "$work/garc" ./cmd/garc
  garc=$work/garc
fi

if want tree.zst || want tree.gz; then
  tar -C "$(go env GOROOT)" -cf "$work/tree.tar" src
fi
if want mixed.zst || want mixed.gz; then
  gen=../shared/tools/mixed-data
  [ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }
  mkdir "$work/m"
  "$gen" "$size" > "$work/m/mixed.bin"
  tar -C "$work/m" -cf "$work/mixed.tar" mixed.bin
  rm -rf "$work/m"
fi
for t in tree mixed; do
  [ -f "$work/$t.tar" ] || continue
  if want "$t.zst"; then zstd -q -3 -c "$work/$t.tar" > "$work/$t.tar.zst"; fi
  if want "$t.gz"; then gzip -6 -c "$work/$t.tar" > "$work/$t.tar.gz"; fi
  echo "$t: $(stat -c %s "$work/$t.tar") bytes of tar, $(tar -tf "$work/$t.tar" | wc -l) entries"
  rm -f "$work/$t.tar"
done

# measure CMD: "wall cpu rss_kib" of one run (cpu: user+sys of the whole
# pipeline; rss: the largest process's), into a fresh directory.
measure() {
  rm -rf "$work/out"; mkdir "$work/out"
  sync
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -o pipefail -c "$1" >/dev/null 2>"$work/err" || {
    echo "failed: $1" >&2; cat "$work/err" >&2; exit 1; }
  awk '{ printf "%.3f %.3f %d", $1, $2 + $3, $4 }' "$work/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

printf '\n%-10s %9s %9s  %9s %9s %9s  %7s\n' "" "ref wall" "ref cpu" "garc wall" "garc cpu" "garc MiB" "wall g/r"
row() { # name, reference pipeline, garc pipeline
  local i r g refw=() refc=() ownw=() ownc=() rss=()
  want "$1" || return 0
  for ((i = 0; i < runs; i++)); do
    r=$(measure "$2"); g=$(measure "$3")
    refw+=("${r%% *}"); ownw+=("${g%% *}")
    r=${r#* }; g=${g#* }
    refc+=("${r%% *}"); ownc+=("${g%% *}"); rss+=("${g#* }")
    echo "  $1 run $((i + 1)): ref ${refw[-1]} s, garc ${ownw[-1]} s" >&2
  done
  local rw rc gw gc gm
  rw=$(printf '%s\n' "${refw[@]}" | median); rc=$(printf '%s\n' "${refc[@]}" | median)
  gw=$(printf '%s\n' "${ownw[@]}" | median); gc=$(printf '%s\n' "${ownc[@]}" | median)
  gm=$(printf '%s\n' "${rss[@]}" | median)
  awk -v n="$1" -v rw="$rw" -v rc="$rc" -v gw="$gw" -v gc="$gc" -v gm="$gm" 'BEGIN {
    printf "%-10s %9.3f %9.3f  %9.3f %9.3f %9.1f  %7.3f\n", n, rw, rc, gw, gc, gm / 1024, gw / rw }'
}
o="$work/out"
for t in tree mixed; do
  row "$t.zst" "cat $work/$t.tar.zst | zstd -dc | tar -C $o -xf -" "cat $work/$t.tar.zst | $garc x -q ${GARC_ARGS:-} -o $o -"
  row "$t.gz" "cat $work/$t.tar.gz | gzip -dc | tar -C $o -xf -" "cat $work/$t.tar.gz | $garc x -q ${GARC_ARGS:-} -o $o -"
done
echo
echo "medians of $runs alternating runs; wall g/r = garc's median wall time / the reference's (≤ 1.05 meets issue 24's target)."
