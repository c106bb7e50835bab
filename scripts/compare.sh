#!/usr/bin/env bash
# compare.sh: garc against 7zz on the standard mixed-data input
# (../shared/tools/mixed-data: the Go source tree as a tar, then Go binaries).
# Prints archive sizes, wall and CPU times (user+sys) and peak RSS side by
# side, and their ratios, for compression (-mx1/3/5/9, one and two threads;
# RUNS alternating runs each, the best time kept) and for testing
# (decoding) a 7z archive made by 7zz. On a shared machine compare the CPU
# ratio. Usage: scripts/compare.sh [SIZE_BYTES] [LEVELS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-104857600}
levels=${2:-"1 3 5 9"}
runs=${3:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v 7zz >/dev/null || { echo "7zz is missing (apt-get install -y 7zip)" >&2; exit 1; }
gen=../shared/tools/mixed-data
[ -x "$gen" ] || { echo "$gen is missing" >&2; exit 1; }

go build -o "$work/garc" ./cmd/garc
"$gen" "$size" > "$work/mixed.bin"
echo "input: $(stat -c %s "$work/mixed.bin") bytes of mixed data; $(7zz | sed -n 2p)"

# seconds CMD...: wall time of one run, in seconds with 3 decimals.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
minof() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

# measure CMD...: "wall cpu rssKiB" of one run.
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>&1
  awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$work/time"
}

printf '\n%-16s %10s %7s %7s %7s %10s %7s %7s %7s %7s %7s %7s\n' "compression" "7zz bytes" "wall" "cpu" "MiB" \
  "garc bytes" "wall" "cpu" "MiB" "size×" "cpu×" "RSS×"
for mx in $levels; do
  for mt in 1 2; do
    w7= c7= r7= wg= cg= rg=
    for run in $(seq "$runs"); do
      rm -f "$work/a7.7z" "$work/ag.7z"
      read -r w c r < <(measure 7zz a -bd -mx"$mx" -mmt"$mt" "$work/a7.7z" "$work/mixed.bin")
      w7=$(minof "$w7" "$w"); c7=$(minof "$c7" "$c"); r7=$r
      read -r w c r < <(measure "$work/garc" a -q -mx"$mx" -mmt"$mt" "$work/ag.7z" "$work/mixed.bin")
      wg=$(minof "$wg" "$w"); cg=$(minof "$cg" "$c"); rg=$r
    done
    s7=$(stat -c %s "$work/a7.7z"); sg=$(stat -c %s "$work/ag.7z")
    printf '%-16s %10s %7s %7s %7s %10s %7s %7s %7s %7s %7s %7s\n' "-mx$mx -mmt$mt" "$s7" "$w7" "$c7" "$((r7 / 1024))" \
      "$sg" "$wg" "$cg" "$((rg / 1024))" "$(ratio "$sg" "$s7")" "$(ratio "$cg" "$c7")" "$(ratio "$rg" "$r7")"
  done
done

rm -f "$work/a7.7z"
7zz a -bd -mx5 "$work/a7.7z" "$work/mixed.bin" >/dev/null
printf '\n%-28s %9s %9s %8s\n' "decoding (7zz -mx5 archive)" "7zz s" "garc s" "speed×"
t7=$(seconds 7zz t -mmt1 "$work/a7.7z")
tg=$(seconds "$work/garc" t -q --threads 1 "$work/a7.7z")
printf '%-28s %9s %9s %8s\n' "t, one thread" "$t7" "$tg" "$(ratio "$t7" "$tg")"
if [ -f "$work/ag.7z" ]; then
  rm -f "$work/ag.7z"; "$work/garc" a -q -mx5 "$work/ag.7z" "$work/mixed.bin"
  t7=$(seconds 7zz t -mmt1 "$work/ag.7z")
  tg=$(seconds "$work/garc" t -q --threads 1 "$work/ag.7z")
  printf '%-28s %9s %9s %8s\n' "t on garc's -mx5 archive" "$t7" "$tg" "$(ratio "$t7" "$tg")"
fi
echo
echo "size×, cpu× and RSS× are garc/7zz (lower is better); speed× is 7zz time/garc time (higher is better)."
