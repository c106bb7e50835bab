#!/usr/bin/env bash
# compare.sh: garc against 7zz on the standard mixed-data input
# (../shared/tools/mixed-data: the Go source tree as a tar, then Go binaries).
# Prints archive sizes and wall times side by side, and their ratios, for
# compression (-mx1/5/9, one and two threads) and for testing (decoding) a
# 7z archive made by 7zz. Usage: scripts/compare.sh [SIZE_BYTES] [LEVELS]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-104857600}
levels=${2:-"1 5 9"}
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

printf '\n%-28s %12s %9s %12s %9s %8s %8s\n' "compression" "7zz bytes" "7zz s" "garc bytes" "garc s" "size×" "time×"
for mx in $levels; do
  for mt in 1 2; do
    rm -f "$work/a7.7z" "$work/ag.7z"
    t7=$(seconds 7zz a -bd -mx"$mx" -mmt"$mt" "$work/a7.7z" "$work/mixed.bin")
    tg=$(seconds "$work/garc" a -q -mx"$mx" -mmt"$mt" "$work/ag.7z" "$work/mixed.bin")
    s7=$(stat -c %s "$work/a7.7z"); sg=$(stat -c %s "$work/ag.7z")
    printf '%-28s %12s %9s %12s %9s %8s %8s\n' "-mx$mx -mmt$mt" "$s7" "$t7" "$sg" "$tg" "$(ratio "$sg" "$s7")" "$(ratio "$tg" "$t7")"
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
echo "size× and time× are garc/7zz (lower is better); speed× is 7zz time/garc time (higher is better)."
