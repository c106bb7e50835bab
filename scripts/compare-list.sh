#!/usr/bin/env bash
# compare-list.sh: `garc l` against `7zz l` on issue 13's listing workload:
# FILES (default 100,000) files of a few bytes in FILES/100 directories,
# archived by 7zz twice: non-solid Copy (-m0=Copy, a folder per file) and
# solid LZMA2 (-mx5). Runs both tools alternately, ROUNDS rounds, and
# prints every run's CPU time (user+sys) and peak RSS, then the medians
# and garc's ratio (CPU) and excess (RSS) over 7zz. On a shared machine
# compare CPU time, not wall time. The listings must also match the
# previous build's byte for byte: PREV=path-to-garc compares the table,
# -slt and JSON listings with that binary's.
# Usage: scripts/compare-list.sh [FILES] [ROUNDS]
# GARC=path uses an existing garc binary instead of a static build of
# ./cmd/garc.
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-100000}
rounds=${2:-7}
work=$(mktemp -d "${TMPDIR:-/tmp}/garc-list.XXXXXX")
trap 'rm -rf "$work"' EXIT

command -v 7zz >/dev/null || { echo "7zz is missing (apt-get install -y 7zip)" >&2; exit 1; }
garc=${GARC:-}
if [ -z "$garc" ]; then
  CGO_ENABLED=0 go build -o "$work/garc" ./cmd/garc
  garc=$work/garc
fi

# The input: "file N\n" in src/dNNNN/fNNNNNN.txt, 100 files a directory.
python3 - "$work/src" "$files" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%04d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("file %d\n" % i)
EOF
(cd "$work" && 7zz a -bd -m0=Copy copy.7z src >/dev/null && 7zz a -bd -mx5 lzma2.7z src >/dev/null)
rm -rf "$work/src"
echo "archives: $files files; copy.7z $(stat -c %s "$work/copy.7z") bytes, lzma2.7z $(stat -c %s "$work/lzma2.7z") bytes"
echo "$(7zz | sed -n 2p); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -n "${PREV:-}" ]; then
  for a in copy lzma2; do
    for args in "l" "l -slt" "l --format=json"; do
      # shellcheck disable=SC2086
      cmp <("$garc" $args "$work/$a.7z") <("$PREV" $args "$work/$a.7z") >/dev/null ||
        { echo "$a.7z: \`$args\` differs from $PREV's" >&2; exit 1; }
    done
  done
  echo "listings identical to $PREV's"
fi

# measure CMD...: "cpu rssKiB" of one run.
measure() {
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; cat "$work/time" >&2; exit 1; }
  awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$work/time"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for a in copy lzma2; do
  : >"$work/$a.garc"; : >"$work/$a.7zz"
  printf '\n%s.7z\n%-6s %-5s %6s %8s\n' "$a" round tool cpu "RSS MiB"
  for r in $(seq "$rounds"); do
    read -r c k < <(measure "$garc" l "$work/$a.7z")
    echo "$c $k" >>"$work/$a.garc"
    printf '%-6s %-5s %6s %8.1f\n' "$r" garc "$c" "$(awk -v k="$k" 'BEGIN { print k / 1024 }')"
    read -r c k < <(measure 7zz l "$work/$a.7z")
    echo "$c $k" >>"$work/$a.7zz"
    printf '%-6s %-5s %6s %8.1f\n' "$r" 7zz "$c" "$(awk -v k="$k" 'BEGIN { print k / 1024 }')"
  done
  cg=$(cut -d' ' -f1 "$work/$a.garc" | median); c7=$(cut -d' ' -f1 "$work/$a.7zz" | median)
  kg=$(cut -d' ' -f2 "$work/$a.garc" | median); k7=$(cut -d' ' -f2 "$work/$a.7zz" | median)
  kmax=$(cut -d' ' -f2 "$work/$a.garc" | sort -g | tail -1)
  awk -v cg="$cg" -v c7="$c7" -v kg="$kg" -v k7="$k7" -v kmax="$kmax" -v a="$a" 'BEGIN {
    printf "%s.7z medians: CPU garc %.2f s, 7zz %.2f s (%.2fx); peak RSS garc %.1f MiB (max %.1f), 7zz %.1f MiB (+%.1f MiB)\n",
      a, cg, c7, cg / c7, kg / 1024, kmax / 1024, k7 / 1024, (kg - k7) / 1024 }'
done
