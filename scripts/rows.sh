# rows.sh: the measuring loop shared by the compare-parallel scripts,
# sourced by them. The caller sets work (a scratch directory), runs (the
# rounds), want (a function: is this row asked for?) and width (the
# width of the row-name column), and may set fresh to a directory that is
# emptied before every run (an extraction's destination).

# measure CMD: "cpu wall rss_kib" of one run (CPU is user+sys).
measure() {
  if [ -n "${fresh:-}" ]; then rm -rf "$fresh"; mkdir "$fresh"; fi
  /usr/bin/time -f '%U %S %e %M' -o "$work/time" bash -c "$1" >/dev/null 2>"$work/err" || {
    echo "failed: $1" >&2; cat "$work/err" >&2; exit 1; }
  awk '{ printf "%.2f %.2f %d", $1 + $2, $3, $4 }' "$work/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# row NAME LABEL1 CMD1 LABEL2 CMD2 ...: the commands alternate for runs
# rounds; prints the medians of CPU, wall, wall/CPU and peak RSS.
row() {
  local name=$1; shift
  want "$name" || return 0
  local -a labels=() cmds=()
  while [ $# -gt 0 ]; do labels+=("$1"); cmds+=("$2"); shift 2; done
  declare -A cpu wall rss
  local i k m
  for ((i = 0; i < runs; i++)); do
    for k in "${!cmds[@]}"; do
      m=$(measure "${cmds[$k]}")
      cpu[$k]+="${m%% *} "; m=${m#* }
      wall[$k]+="${m%% *} "; rss[$k]+="${m#* } "
    done
  done
  echo
  printf "%-${width}s %-28s %8s %8s %8s %9s\n" "$name" "" "cpu s" "wall s" "wall/cpu" "RSS MiB"
  for k in "${!cmds[@]}"; do
    local c w r
    c=$(tr ' ' '\n' <<<"${cpu[$k]}" | grep . | median)
    w=$(tr ' ' '\n' <<<"${wall[$k]}" | grep . | median)
    r=$(tr ' ' '\n' <<<"${rss[$k]}" | grep . | median)
    awk -v l="${labels[$k]}" -v c="$c" -v w="$w" -v r="$r" -v width="$width" 'BEGIN {
      printf "%-" width "s %-28s %8.2f %8.2f %8.2f %9.1f\n", "", l, c, w, w / c, r / 1024 }'
  done
}
