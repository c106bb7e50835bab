#!/usr/bin/env bash
# compare-startup.sh — CPU time per process of `garc t` and `7zz t` on tiny
# archives (issue 13: process start-up and per-archive set-up, which is all
# a tiny archive costs).
#
# Usage: scripts/compare-startup.sh [-n PROCESSES] [-r ROUNDS] [[LABEL=]GARC ...]
#
# Without GARC binaries it builds ./cmd/garc as `make build` does (static,
# -trimpath). Each round runs PROCESSES processes of every command, the
# commands in turn (so that a change of the machine's load falls on all
# of them), and sums their CPU time (user+sys, from wait4's rusage, with
# python3). Reported: CPU per process (ms) per round, the median over the
# rounds and its ratio to `7zz t` of the same archive; `/bin/true` shows
# what any process costs (exec and exit).
#
# The 7z archive is made with 7zz (two short text files, LZMA2); the RAR5
# one is a 132-byte LZ archive of ../shared/corpus, and a 1.5 KB bzip2 7z
# of it stands for small archives whose decoder allocates megabytes (both
# skipped when the corpus is absent).
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
corpus=$repo/../shared/corpus/files
archives=("$tmp/tiny.7z")
[ -f "$corpus/rarfile/files__rar5-times.rar" ] && cp "$corpus/rarfile/files__rar5-times.rar" "$tmp/tiny5.rar" && archives+=("$tmp/tiny5.rar")
[ -f "$corpus/libarchive/test_read_format_7zip_bzip2.7z" ] && cp "$corpus/libarchive/test_read_format_7zip_bzip2.7z" "$tmp/bzip2.7z" && archives+=("$tmp/bzip2.7z")

# The commands: name, archive kind and command line.
names=() kinds=() cmds=()
add() { names+=("$1"); kinds+=("$2"); shift 2; cmds+=("$*"); }
add "/bin/true" - /bin/true
add "7zz t 7z" 7z "$tmp/7zz" t "$tmp/tiny.7z"
[ -f "$tmp/bzip2.7z" ] && add "7zz t bzip2 7z" "bzip2 7z" "$tmp/7zz" t "$tmp/bzip2.7z"
for i in "${!bins[@]}"; do
	for a in "${archives[@]}"; do
		case $a in *bzip2.7z) k="bzip2 7z" ;; *.7z) k=7z ;; *) k=RAR5 ;; esac
		add "${labels[$i]} t $k" "$k" "${bins[$i]}" t "$a"
	done
done

# round: one line of CPU ms per process, one field per command, from n
# processes of each command started in turn (all commands' runs
# interleaved, so that the machine's load falls on all of them alike),
# each started with posix_spawn and reaped with wait4 (exact rusage).
round() {
	python3 -c '
import os, sys
n = int(sys.argv[1]); cmds = [c.split(" ") for c in sys.argv[2:]]
null = os.open(os.devnull, os.O_RDWR)
io = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
cpu = [0.0] * len(cmds)
for _ in range(n):
    for i, cmd in enumerate(cmds):
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=io)
        _, _, ru = os.wait4(pid, 0)
        cpu[i] += ru.ru_utime + ru.ru_stime
print(" ".join("%.3f" % (c * 1000 / n) for c in cpu))
' "$n" "${cmds[@]}"
}

command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 1; }
declare -A results
echo "CPU (user+sys) per process, ms; $n processes per command and round"
printf '%-22s' round
for r in $(seq 1 "$rounds"); do printf '%8s' "$r"; done
printf '%9s %8s\n' median "×7zz"
for r in $(seq 1 "$rounds"); do
	read -r -a line <<<"$(round)"
	for i in "${!names[@]}"; do results[$i,$r]=${line[$i]}; done
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
declare -A medians ref
for i in "${!names[@]}"; do
	vals=()
	for r in $(seq 1 "$rounds"); do vals+=("${results[$i,$r]}"); done
	medians[$i]=$(median "${vals[@]}")
	case ${names[$i]} in "7zz t "*) ref[${kinds[$i]}]=${medians[$i]} ;; esac
done
for i in "${!names[@]}"; do
	printf '%-22s' "${names[$i]}"
	for r in $(seq 1 "$rounds"); do printf '%8s' "${results[$i,$r]}"; done
	k=${kinds[$i]}
	[ "$k" = RAR5 ] && k=7z
	ratio=-
	if [ -n "${ref[$k]:-}" ]; then
		ratio=$(awk -v a="${medians[$i]}" -v b="${ref[$k]}" 'BEGIN {printf "%.2f", a / b}')
	fi
	printf '%9.3f %8s\n' "${medians[$i]}" "$ratio"
done
echo "×7zz: against 7zz t of the same archive (the RAR5 one against the 7z one: Debian's 7zz reads no RAR)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
