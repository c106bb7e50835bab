#!/usr/bin/env bash
# compare-startup.sh — CPU time per process of `garc t` and `7zz t` on tiny
# archives (issue 13: process start-up and per-archive set-up, which is all
# a tiny archive costs).
#
# Usage: scripts/compare-startup.sh [-n PROCESSES] [-r ROUNDS] [[LABEL=]GARC ...]
#
# Without GARC binaries it builds ./cmd/garc as `make build` does (static,
# -trimpath). Each round runs PROCESSES processes of every command one
# after the other and sums their CPU time (user+sys, from wait4's rusage;
# bash's `times`, in 10 ms ticks, without python3); the order of the
# commands alternates between rounds so that a change of the machine's
# load falls on all of them. Reported: CPU per process (ms) per round, the
# median over the rounds and its ratio to `7zz t` of the 7z archive;
# `/bin/true` shows what any process costs (exec and exit).
#
# The 7z archive is made with 7zz (two short text files, LZMA2); the RAR5
# one is a 132-byte LZ archive of ../shared/corpus (skipped when absent).
# Every binary is copied into a fresh file first: a binary just written by
# the Go linker sits in the page cache in small pages and faults in more
# often than one read from disk, which makes the same binary up to 0.2 ms
# slower per process.
set -euo pipefail

n=200
rounds=5
while getopts n:r: opt; do
	case $opt in
	n) n=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-n PROCESSES] [-r ROUNDS] [[LABEL=]GARC ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sevenzip=$(command -v 7zz) || { echo "7zz is needed (apt-get install 7zip)" >&2; exit 1; }
cat "$sevenzip" >"$tmp/7zz" && chmod +x "$tmp/7zz"

labels=() bins=()
if [ $# -eq 0 ]; then
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$tmp/garc.built" ./cmd/garc)
	set -- "garc=$tmp/garc.built"
fi
for arg in "$@"; do
	label=${arg%%=*} path=${arg#*=}
	[ "$label" = "$arg" ] && label=$(basename "$arg")
	cat "$path" >"$tmp/bin.${#bins[@]}" && chmod +x "$tmp/bin.${#bins[@]}"
	labels+=("$label") bins+=("$tmp/bin.${#bins[@]}")
done

# The archives.
printf 'hello tiny world\n' >"$tmp/a.txt"
printf 'hello world\n' >"$tmp/b.txt"
(cd "$tmp" && "$tmp/7zz" a -bd -bso0 tiny.7z a.txt b.txt)
rar5=$repo/../shared/corpus/files/rarfile/files__rar5-times.rar
archives=("$tmp/tiny.7z")
[ -f "$rar5" ] && cp "$rar5" "$tmp/tiny5.rar" && archives+=("$tmp/tiny5.rar")

# The commands: name and command line.
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }
add "/bin/true" /bin/true
add "7zz t 7z" "$tmp/7zz" t "$tmp/tiny.7z"
for i in "${!bins[@]}"; do
	for a in "${archives[@]}"; do
		case $a in *.7z) k=7z ;; *) k=RAR5 ;; esac
		add "${labels[$i]} t $k" "${bins[$i]}" t "$a"
	done
done

# cpu_per_process CMD...: CPU ms per process of n runs of CMD: the
# children's rusage, exact to the microsecond with python3 (each process
# started with posix_spawn and reaped with wait4), else bash's `times`
# (10 ms ticks: use -n 1000 or more).
if command -v python3 >/dev/null; then
	cpu_per_process() {
		python3 -c '
import os, sys
n = int(sys.argv[1]); cmd = sys.argv[2:]
null = os.open(os.devnull, os.O_RDWR)
io = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
cpu = 0.0
for _ in range(n):
    pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=io)
    _, _, ru = os.wait4(pid, 0)
    cpu += ru.ru_utime + ru.ru_stime
print("%.3f" % (cpu * 1000 / n))
' "$n" "$@"
	}
else
	cpu_per_process() {
		local t
		t=$(
			for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1 </dev/null || true; done
			times
		)
		t=${t#*$'\n'} # the second line, "0m0.250s 0m0.120s": the children's user and sys
		awk -v n="$n" -v t="$t" 'BEGIN {
			split(t, f, " "); s = 0
			for (k = 1; k <= 2; k++) { split(f[k], m, "m"); sub("s", "", m[2]); s += m[1] * 60 + m[2] }
			printf "%.3f", s * 1000 / n }'
	}
fi

declare -A results
echo "CPU (user+sys) per process, ms; $n processes per command and round"
printf '%-22s' round
for r in $(seq 1 "$rounds"); do printf '%8s' "$r"; done
printf '%9s %8s\n' median "×7zz"
for r in $(seq 1 "$rounds"); do
	order=("${!names[@]}")
	if [ $((r % 2)) -eq 0 ]; then
		order=($(printf '%s\n' "${order[@]}" | tac))
	fi
	for i in "${order[@]}"; do
		read -r -a cmd <<<"${cmds[$i]}"
		results[$i,$r]=$(cpu_per_process "${cmd[@]}")
	done
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ref=
for i in "${!names[@]}"; do
	vals=()
	printf '%-22s' "${names[$i]}"
	for r in $(seq 1 "$rounds"); do
		printf '%8s' "${results[$i,$r]}"
		vals+=("${results[$i,$r]}")
	done
	m=$(median "${vals[@]}")
	[ "${names[$i]}" = "7zz t 7z" ] && ref=$m
	ratio=-
	if [ -n "$ref" ] && [ "${names[$i]}" != "/bin/true" ]; then
		ratio=$(awk -v a="$m" -v b="$ref" 'BEGIN {printf "%.2f", a / b}')
	fi
	printf '%9.3f %8s\n' "$m" "$ratio"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
