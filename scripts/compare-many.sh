#!/usr/bin/env bash
# compare-many.sh: garc against 7zz extracting issue 13's many-file
# archives: FILES (default 100,000) stored files of a few bytes ("file N\n")
# in FILES/100 directories, as a 7z made by 7zz -m0=Copy and as a RAR5
# archive of stored entries written by this script (Debian has no rar, and
# its 7zz no RAR support: the RAR5 runs compare with 7zz extracting the same
# files from the 7z). Each round extracts, to a tmpfs (/dev/shm, or
# $DEST_ROOT), with `garc x` of the 7z, `7zz x` of the 7z and `garc x` of
# the RAR5, alternating, and checks the file count; then `l` of the 7z.
# Prints every run (wall, CPU = user+sys, peak RSS), the medians and the
# ratios to 7zz. The machine may be shared: compare CPU as well as wall.
# Usage: scripts/compare-many.sh [FILES] [ROUNDS]
# GARC=path uses an existing garc binary instead of a static build
# (CGO_ENABLED=0) of ./cmd/garc.
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-100000}
rounds=${2:-5}
root=${DEST_ROOT:-/dev/shm}
work=$(mktemp -d "$root/garc-many.XXXXXX")
trap 'rm -rf "$work"' EXIT

command -v 7zz >/dev/null || { echo "7zz is missing (apt-get install -y 7zip)" >&2; exit 1; }
garc=${GARC:-}
if [ -z "$garc" ]; then
  CGO_ENABLED=0 go build -o "$work/garc" ./cmd/garc
  garc=$work/garc
fi

# The input tree src/dNNNN/fNNNNNN.txt, 100 files a directory, and the
# RAR5 archive of the same entries (stored, CRC32 and modification time,
# unix attributes), following RARLAB's RAR 5.0 format description.
python3 - "$work" "$files" <<'EOF'
import os, struct, sys, time, zlib
work, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(work, "src", "d%04d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%06d.txt" % i), "w") as f:
        f.write("file %d\n" % i)

def vint(v):
    b = bytearray()
    while v >= 0x80:
        b.append((v & 0x7F) | 0x80)
        v >>= 7
    b.append(v)
    return bytes(b)

out = bytearray(b"Rar!\x1a\x07\x01\x00")
def header(typ, body, data=None):
    h = vint(typ) + vint(2 if data is not None else 0)
    if data is not None:
        h += vint(len(data))
    h += body
    sized = vint(len(h)) + h
    out.extend(struct.pack("<I", zlib.crc32(sized)) + sized)
    if data is not None:
        out.extend(data)

mtime = int(time.time())
def entry(name, data, is_dir):
    flags = 0x2 | (0x1 if is_dir else 0x4)  # unix mtime; a directory, or a CRC32
    b = vint(flags) + vint(len(data)) + vint(0o40755 if is_dir else 0o100644) + struct.pack("<I", mtime)
    if not is_dir:
        b += struct.pack("<I", zlib.crc32(data))
    name = name.encode()
    b += vint(0) + vint(1) + vint(len(name)) + name  # stored; unix host
    header(2, b, data)

header(1, vint(0))  # main archive header
entry("src", b"", True)
for i in range(n):
    if i % 100 == 0:
        entry("src/d%04d" % (i // 100), b"", True)
    entry("src/d%04d/f%06d.txt" % (i // 100, i), b"file %d\n" % i, False)
header(5, vint(0))  # end of archive
with open(os.path.join(work, "many.rar"), "wb") as f:
    f.write(out)
EOF
(cd "$work" && 7zz a -bd -m0=Copy many.7z src >/dev/null)
rm -rf "$work/src"
echo "archives: $files files; 7z $(stat -c %s "$work/many.7z") bytes, RAR5 $(stat -c %s "$work/many.rar") bytes"
echo "$(7zz | sed -n 2p); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# measure CMD...: "wall cpu rssKiB" of one run.
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; cat "$work/time" >&2; exit 1; }
  awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$work/time"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

runs="garc-7z 7zz-7z garc-rar5"
printf '\n%-6s %-10s %6s %6s %8s\n' round run wall cpu "RSS MiB"
for run in $runs; do : >"$work/x.$run"; done
for r in $(seq "$rounds"); do
  for run in $runs; do
    out=$work/out
    case $run in
      garc-7z) read -r w c k < <(measure "$garc" x -q "$work/many.7z" -o "$out") ;;
      7zz-7z) read -r w c k < <(measure 7zz x -bd "$work/many.7z" -o"$out") ;;
      garc-rar5) read -r w c k < <(measure "$garc" x -q "$work/many.rar" -o "$out") ;;
    esac
    got=$(find "$out" -type f | wc -l)
    [ "$got" = "$files" ] || { echo "$run extracted $got files, want $files" >&2; exit 1; }
    rm -rf "$out"
    echo "$w $c $k" >>"$work/x.$run"
    printf '%-6s %-10s %6s %6s %8s\n' "$r" "$run" "$w" "$c" "$((k / 1024))"
  done
done

col() { cut -d' ' -f"$2" "$work/x.$1" | median; }
w7=$(col 7zz-7z 1) c7=$(col 7zz-7z 2) k7=$(col 7zz-7z 3)
printf '\n%-10s %8s %8s %9s %9s %9s %10s\n' "x medians" "wall s" "cpu s" "RSS MiB" "wall×7zz" "cpu×7zz" "RSS-7zz"
for run in $runs; do
  w=$(col "$run" 1) c=$(col "$run" 2) k=$(col "$run" 3)
  printf '%-10s %8s %8s %9s %9s %9s %10s\n' "$run" "$w" "$c" "$(awk -v k="$k" 'BEGIN { printf "%.1f", k / 1024 }')" \
    "$(ratio "$w" "$w7")" "$(ratio "$c" "$c7")" "$(awk -v a="$k" -v b="$k7" 'BEGIN { printf "%+.1f", (a - b) / 1024 }')"
done

: >"$work/l.garc"; : >"$work/l.7zz"
for r in $(seq "$rounds"); do
  measure "$garc" l "$work/many.7z" >>"$work/l.garc"
  measure 7zz l "$work/many.7z" >>"$work/l.7zz"
done
printf '\n%-10s %8s %8s %9s\n' "l medians" "wall s" "cpu s" "RSS MiB"
for tool in garc 7zz; do
  printf '%-10s %8s %8s %9s\n' "$tool" "$(cut -d' ' -f1 "$work/l.$tool" | median)" "$(cut -d' ' -f2 "$work/l.$tool" | median)" \
    "$(cut -d' ' -f3 "$work/l.$tool" | median | awk '{ printf "%.1f", $1 / 1024 }')"
done
