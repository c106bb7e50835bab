#!/usr/bin/env bash
# End-to-end scenarios of garc.exe under Wine, most of them differential:
# the same command is run with the Linux build and the Windows build, and
# the exit codes, outputs and extracted trees must agree. Where Windows
# (or Wine) differs on purpose, the scenario states the Windows
# expectation and README.md, section "Windows", says why.
#
# usage: scenarios.sh GARC_EXE GARC_LINUX   (Wine's environment set up by
# lane.sh: WINEPREFIX, WINEDLLOVERRIDES with the bcryptprimitives shim)
set -uo pipefail
exe=$(realpath "$1")
lin=$(realpath "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus="$root/../shared/corpus/files"
more="$root/../shared/corpus-more/files"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() {
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  [ -s "$T/err" ] && sed 's/^/     stderr: /' "$T/err" | head -5
  return 0
}

# w and l run garc.exe (under Wine) and the Linux garc with the
# subcommand first and --progress=never; rc is the exit code, out and err
# hold the output.
w() { local c=$1; shift; wine "$exe" "$c" --progress=never "$@" >"$T/out" 2>"$T/err"; rc=$?; }
l() { local c=$1; shift; "$lin" "$c" --progress=never "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# same NAME ARCHIVE [ARGS…]: extract with both builds into fresh
# directories; exit codes and trees (contents, names, link counts aside)
# must be equal.
same() {
  local name=$1 arc=$2; shift 2
  rm -rf "$T/lx" "$T/wx"
  l x "$arc" -o "$T/lx" "$@"; local lrc=$rc
  w x "$arc" -o "$T/wx" "$@"; local wrc=$rc
  if [ "$lrc" != "$wrc" ]; then bad "$name" "exit $wrc under Wine, $lrc on Linux"; return; fi
  if ! diff -r "$T/lx" "$T/wx" >"$T/diff" 2>&1; then bad "$name" "trees differ: $(head -3 "$T/diff")"; return; fi
  ok "$name (exit $wrc)"
}

echo "== sources"
mkdir -p src/d/e
printf 'hello\n' >src/d/f.txt
head -c 300000 /dev/urandom >src/d/e/random.bin
printf 'zzz\n' >src/z.txt
tar -C src -czf plain.tgz d z.txt

w --version
if [ "$rc" = 0 ] && grep -q garc "$T/out"; then ok "--version"; else bad "--version" "exit $rc"; fi

echo "== extraction, differential (Linux build vs garc.exe)"
same "x 7z (testdata/sample.7z)" "$root/testdata/sample.7z"
same "x RAR5, dirs and non-ASCII names" "$corpus/sharpcompress/Archives__Rar5.comment.rar"
same "x RAR5 solid volume set" "$corpus/sharpcompress/Archives__Rar.multi.solid.part01.rar"
same "x RAR4" "$corpus/sharpcompress/Archives__Rar.rar"
same "x ZIP" "$more/go/archive__zip__testdata__crc32-not-streamed.zip"
same "x tar.gz" plain.tgz
same "x with a pattern" "$root/testdata/sample.7z" '*.txt' -r

echo "== listing and testing"
for arc in "$root/testdata/sample.7z" "$corpus/sharpcompress/Archives__Rar5.comment.rar" plain.tgz; do
  l l --format=json "$arc"; cp "$T/out" "$T/l.json"; lrc=$rc
  w l --format=json "$arc"
  if [ "$rc" = "$lrc" ] && cmp -s "$T/out" "$T/l.json"; then ok "l --format=json $(basename "$arc")"; else bad "l --format=json $(basename "$arc")" "exit $rc/$lrc or output differs"; fi
done
w t "$root/testdata/sample.7z"
if [ "$rc" = 0 ]; then ok "t sample.7z"; else bad "t sample.7z" "exit $rc"; fi
cp "$root/testdata/sample.7z" corrupt.7z
size=$(stat -c %s corrupt.7z)
printf '\xff\xff\xff\xff' | dd of=corrupt.7z bs=1 seek=$((size / 2)) conv=notrunc status=none
l t corrupt.7z; lrc=$rc
w t corrupt.7z
if [ "$rc" = "$lrc" ] && [ "$rc" -ge 2 ]; then ok "t corrupt.7z (exit $rc)"; else bad "t corrupt.7z" "exit $rc under Wine, $lrc on Linux"; fi
w x missing.7z -o out
if [ "$rc" = 2 ]; then ok "x of a missing archive (exit 2)"; else bad "x of a missing archive" "exit $rc"; fi
w x --no-such-flag
if [ "$rc" = 7 ]; then ok "usage error (exit 7)"; else bad "usage error" "exit $rc"; fi

echo "== --stdout writes bytes unchanged (no text mode)"
l x --stdout "$root/testdata/sample.7z"; cp "$T/out" lin.out
w x --stdout "$root/testdata/sample.7z"
if [ "$rc" = 0 ] && cmp -s "$T/out" lin.out; then ok "x --stdout"; else bad "x --stdout" "exit $rc or bytes differ"; fi

echo "== creating 7z with garc.exe"
w a made.7z src
if [ "$rc" = 0 ] && 7zz t made.7z >/dev/null 2>&1; then ok "a (7zz tests it)"; else bad "a" "exit $rc or 7zz t failed"; fi
rm -rf back && l x made.7z -o back
if [ "$rc" = 0 ] && diff -r src back/src >/dev/null; then ok "a round trip"; else bad "a round trip" "exit $rc or tree differs"; fi
w a enc.7z src --password=secret --encrypt-headers
if [ "$rc" = 0 ] && 7zz t -psecret enc.7z >/dev/null 2>&1; then ok "a --encrypt-headers (7zz tests it)"; else bad "a --encrypt-headers" "exit $rc"; fi
w t enc.7z --password=wrong
if [ "$rc" = 11 ]; then ok "t with a wrong password (exit 11)"; else bad "t with a wrong password" "exit $rc"; fi

echo "== unsafe names and links"
python3 - <<'EOF'
import zipfile
with zipfile.ZipFile("trav.zip", "w") as z:
    z.writestr("ok.txt", "ok\n")
    z.writestr("../evil.txt", "evil\n")
    z.writestr("..\\evil2.txt", "evil\n")
    z.writestr("C:\\Windows\\evil3.txt", "evil\n")
EOF
# A name that leaves the destination is refused (exit 1), one with a
# drive letter lands inside; "..\evil2.txt" from a Unix host is one name,
# mapped to a Windows name. Nothing may appear beside travw/out.
rm -rf travw && mkdir -p travw && w x trav.zip -o travw/out
if [ "$rc" = 1 ] && grep -q 'evil.txt: refused' "$T/err" && [ -f travw/out/ok.txt ] &&
  [ "$(ls -A travw)" = out ] && [ "$(find travw/out -type f | wc -l)" = 3 ] && [ ! -e evil.txt ]; then
  ok "x refuses '..', keeps C:\\ names inside (exit 1)"
else
  bad "traversal" "exit $rc; $(find travw | tr '\n' ' ')"
fi

mkdir -p lk/d
printf 'target\n' >lk/d/t.txt
ln -s t.txt lk/d/link
ln lk/d/t.txt lk/d/hard
ln -s ../../outside lk/d/esc
tar -C lk -cf links.tar d
# Wine deviation: CreateSymbolicLinkW reports success and makes nothing
# (README "Windows"); garc checks and warns (exit 1), as on a Windows
# without the privilege, and writes everything else.
rm -rf lw && w x links.tar -o lw
if [ "$rc" = 1 ] && grep -q 'd/link: skipped: cannot create symbolic link' "$T/err" && grep -q 'd/esc: refused' "$T/err" &&
  [ -f lw/d/t.txt ] && [ -f lw/d/hard ] && [ ! -e lw/d/link ] && [ ! -e lw/d/esc ]; then
  ok "x symlink that cannot be created: warning, exit 1, the rest written"
else
  bad "x symlink that cannot be created" "exit $rc; $(find lw | tr '\n' ' ')"
fi
if [ "$(stat -c %i lw/d/t.txt)" = "$(stat -c %i lw/d/hard)" ]; then ok "x hard link (CreateHardLink)"; else bad "x hard link" "not the same file"; fi
same "x --links=copy" links.tar --links=copy
if [ -f "$T/wx/d/link" ] && [ "$(cat "$T/wx/d/link")" = target ]; then ok "--links=copy writes the target's contents"; else bad "--links=copy" "$(ls -l "$T/wx/d")"; fi
same "x --links=skip" links.tar --links=skip

echo "== Windows names (internal/extract's windowsNameCases, as files)"
# name → what garc.exe writes (SanitizeWindowsName); the Linux build
# keeps each name as it is.
python3 - <<'PY'
import io, tarfile
cases = {
    "CONIN$": "_CONIN$", "conout$.log": "_conout$.log", "Clock$": "_Clock$",
    "COM\u00b9": "_COM\u00b9", "com\u00b2.txt": "_com\u00b2.txt", "LPT\u00b3.tar.gz": "_LPT\u00b3.tar.gz",
    "nul.txt": "_nul.txt", "Prn.Tar.Gz": "_Prn.Tar.Gz", "aux .c": "_aux .c", "COM0": "COM0",
    "dots...": "dots___", "space ": "space_", "file.txt:stream": "file.txt_stream",
    'a<b>c:d"e|f?g*h': "a_b_c_d_e_f_g_h", "ctl\x01\x1f.txt": "ctl__.txt",
}
long = "d123456789/" * 25 + "file.txt"  # 283 characters: Go passes the \\?\ form
with tarfile.open("names.tar", "w", format=tarfile.PAX_FORMAT) as t:
    for name in list(cases) + [long]:
        data = name.encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
with open("names.expected", "w", encoding="utf-8") as f:
    for name, out in cases.items():
        f.write(out + "\t" + name.encode().hex() + "\n")
PY
rm -rf nw && w x names.tar -o nw
names_ok=1
while IFS=$'\t' read -r out hex; do
  if [ ! -f "nw/$out" ] || [ "$(od -An -tx1 "nw/$out" | tr -d ' \n')" != "$hex" ]; then
    names_ok=0
    echo "     missing or wrong: $out"
  fi
done <names.expected
long=$(printf 'd123456789/%.0s' $(seq 25))file.txt
if [ "$rc" = 0 ] && [ "$names_ok" = 1 ] && [ "$(cat "nw/$long")" = "$long" ] &&
  [ "$(find nw -maxdepth 1 -type f | wc -l)" = "$(wc -l <names.expected)" ]; then
  ok "x maps reserved, forbidden and trailing-dot names; writes a 283-character path"
else
  bad "Windows names" "exit $rc; $(ls -A nw | tr '\n' ' ')"
fi

echo "== attributes (issue 25, point 4)"
# A ZIP from an MS-DOS host with read-only, hidden, system and archive
# bits: l shows them as 7-Zip does (the table of both builds is the same),
# x sets them (Wine's attrib.exe reads them back). Wine deviations
# (README "Windows"): it reports the archive bit on every file (n.txt,
# recorded with none, reads "A"), keeps no read-only bit on directories
# (rodir) and no creation time.
python3 - <<'PY'
import zipfile
with zipfile.ZipFile("attrs.zip", "w") as z:
    for name, attr, data in [("r.txt", 0x21, "r\n"), ("h.txt", 0x22, "h\n"), ("s.txt", 0x24, "s\n"),
                             ("n.txt", 0x00, "n\n"), ("rhsa.txt", 0x27, "all\n"), ("hd/", 0x12, ""),
                             ("rodir/", 0x11, ""), ("rodir/f.txt", 0x20, "f\n")]:
        zi = zipfile.ZipInfo(name, (2020, 1, 2, 3, 4, 6))
        zi.create_system = 0  # MS-DOS: the external attributes' low byte
        zi.external_attr = attr
        z.writestr(zi, data)
PY
l l attrs.zip; cp "$T/out" l.txt
w l attrs.zip
if [ "$rc" = 0 ] && cmp -s "$T/out" l.txt && grep -q '^2020-01-02 03:04:06 \.RHSA .* rhsa\.txt$' l.txt &&
  grep -q '^2020-01-02 03:04:06 D\.H\.\. .* hd$' l.txt; then
  ok "l shows the attributes as 7-Zip does (.RHSA, D.H..)"
else
  bad "l attributes" "exit $rc or the tables differ"
fi
rm -rf ax && w x attrs.zip -o ax
# attrib prints the attribute letters in columns, then the full path.
wine attrib /s /d "$(winepath -w "$T/ax")\\*" 2>/dev/null | tr -d '\r' | sed 's|[A-Z]:.*\\ax\\||' | tr -s ' ' | LC_ALL=C sort >attrib.txt
printf '%s\n' ' rodir' ' H hd' 'A n.txt' 'A rodir\f.txt' 'A H h.txt' 'A R r.txt' 'AS s.txt' 'AS HR rhsa.txt' | LC_ALL=C sort >attrib.want
if [ "$rc" = 0 ] && cmp -s attrib.want attrib.txt; then
  ok "x sets read-only, hidden, system and archive attributes"
else
  bad "x attributes" "exit $rc; $(tr '\n' '|' <attrib.txt)"
fi
chmod u+w ax/r.txt && printf 'old\n' >ax/r.txt && chmod a-w ax/r.txt
w x attrs.zip -o ax -y r.txt
if [ "$rc" = 0 ] && [ "$(cat ax/r.txt)" = r ]; then ok "-y replaces a read-only file"; else bad "-y over a read-only file" "exit $rc: $(cat ax/r.txt)"; fi

echo "== Mark of the Web (issue 25, point 5)"
# Wine 8 has no alternate data streams: "motw.7z:Zone.Identifier" is a
# file of that name on the Unix side, which garc.exe opens as the
# archive's stream; Wine's volumes report no FILE_NAMED_STREAMS, so garc
# writes no mark, and no file named "NAME:Zone.Identifier" in its stead
# (README "Windows"; internal/extract's TestMarkOfWebExtracted checks both
# cases, TestPropagateZone the decision).
cp "$root/testdata/sample.7z" motw.7z
printf '[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://example.com/motw.7z\r\n' >'motw.7z:Zone.Identifier'
for mode in on off; do
  rm -rf "mw-$mode" && w x motw.7z -o "mw-$mode" --mark-of-web=$mode
  if [ "$rc" = 0 ] && [ -z "$(find "mw-$mode" -name '*:*')" ] && [ "$(find "mw-$mode" -type f | wc -l)" -gt 0 ]; then
    ok "x --mark-of-web=$mode of an archive with a Zone.Identifier: no stream where the volume has none"
  else
    bad "x --mark-of-web=$mode" "exit $rc; $(find "mw-$mode" -name '*:*' | head -3)"
  fi
done
rm -rf mw-e && w e motw.7z -o mw-e -snz
if [ "$rc" = 0 ] && [ -z "$(find mw-e -name '*:*')" ]; then ok "e -snz (7-Zip's spelling)"; else bad "e -snz" "exit $rc"; fi
w x motw.7z -o mw-bad --mark-of-web=maybe
if [ "$rc" = 7 ]; then ok "--mark-of-web=maybe is a usage error (exit 7)"; else bad "--mark-of-web=maybe" "exit $rc"; fi

echo "== console (issue 25, point 6): Wine's console on a pseudo-terminal"
# A pseudo-terminal gives garc.exe a console (Wine's conhost in Unix mode).
# onpty.py runs a command on one, types what it is told when a text
# appears, and prints the output and the exit code. Wine's conhost passes
# escape sequences through whether or not virtual-terminal processing is
# on, so the progress display's switch to it (or to plain text) shows only
# in internal/progress's TestVTMode (README "Windows").
cat >onpty.py <<'PY'
import glob, os, pty, select, sys, time
# usage: onpty.py WAIT SEND COMMAND…: send SEND once WAIT appears in the
# output (WAIT "glob:PATTERN": once a file matches PATTERN).
wait, send, args = sys.argv[1], sys.argv[2].encode().decode("unicode_escape").encode("latin-1"), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[0], args)
out, sent, deadline = b"", False, time.time() + 120
while time.time() < deadline:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            b = os.read(fd, 4096)
        except OSError:
            break
        if not b:
            break
        out += b
    ready = glob.glob(wait[5:]) if wait.startswith("glob:") else wait.encode() in out
    if not sent and ready:
        time.sleep(0.3)
        os.write(fd, send)
        sent = True
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
sys.stdout.buffer.write(out)
print("\nexit", code)
PY
l a enc-pty.7z "$root/testdata/sample.7z" --password=secret
python3 onpty.py 'Enter password' 'secret\r' wine "$exe" t enc-pty.7z >pty.out 2>&1
if grep -q '^exit 0$' pty.out && grep -q 'Enter password for enc-pty.7z' pty.out && ! grep -q secret pty.out; then
  ok "the password prompt reads the console without echo (exit 0)"
else
  bad "password prompt" "$(tr -d '\033' <pty.out | tail -c 300)"
fi
# Ctrl-C while a new file is being written (at its own name, CREATE_NEW):
# the run ends as on Linux, "garc: interrupted", exit 255, and the
# unfinished file is not left. (PPMd of random data decodes slowly enough
# to be caught.)
head -c 4000000 /dev/urandom >slow.bin && 7zz a -m0=PPMd:mem=16m:o=16 slow.7z slow.bin >/dev/null
rm -rf cc && mkdir cc
python3 onpty.py "glob:cc/slow.bin" '\x03' wine "$exe" x slow.7z -occ >pty.out 2>&1
if grep -q '^exit 255$' pty.out && grep -q 'garc: interrupted' pty.out && [ -z "$(ls -A cc)" ]; then
  ok "Ctrl-C: interrupted, exit 255, nothing left"
else
  bad "Ctrl-C" "$(ls -A cc | tr '\n' ' '); $(tr -d '\033' <pty.out | tail -c 300)"
fi
# Ctrl-C while a file replacing an existing one is written (-y: to a
# temporary name, renamed when complete): exit 255, the temporary file is
# removed and the existing file keeps its content.
rm -rf cc && mkdir cc && printf 'mine\n' >cc/slow.bin
python3 onpty.py "glob:cc/.garc-*.tmp" '\x03' wine "$exe" x -y slow.7z -occ >pty.out 2>&1
if grep -q '^exit 255$' pty.out && [ "$(ls -A cc)" = slow.bin ] && [ "$(cat cc/slow.bin)" = mine ]; then
  ok "Ctrl-C while replacing a file: exit 255, the existing file kept whole"
else
  bad "Ctrl-C while replacing" "$(ls -A cc | tr '\n' ' '); $(tr -d '\033' <pty.out | tail -c 300)"
fi

# Names on the console: Go writes them with WriteConsoleW (UTF-16), and
# carries a character split between two writes (the listing's 64 KiB
# buffer splits 130 KiB of names somewhere) over to the next. Every one of
# 1,500 names of Cyrillic, CJK and Latin letters arrives whole. Wine
# deviation (README "Windows"): its console turns each half of a UTF-16
# surrogate pair into U+FFFD, so the emoji reads as two of them.
python3 - <<'PY'
import zipfile
with zipfile.ZipFile("utf.zip", "w") as z:
    for i in range(1500):
        z.writestr("файл-日本語-Ä%04d-\U0001F600.txt" % i, "")
PY
python3 onpty.py 'never' '' wine "$exe" l utf.zip >pty.out 2>&1
# (Wine's console hides and shows the cursor around each write: ESC [?25l, h.)
n=$(sed 's/\x1b\[?25[hl]//g' pty.out | grep -ac $'файл-日本語-Ä[0-9]\\{4\\}-\xef\xbf\xbd\xef\xbf\xbd\\.txt')
if grep -q '^exit 0$' pty.out && [ "$n" = 1500 ]; then
  ok "l writes 1,500 non-ASCII names whole to the console (the emoji as Wine's two U+FFFD)"
else
  bad "names on the console" "$n of 1500 names whole"
fi

echo "== overwrite"
rm -rf ow && mkdir -p ow && printf 'mine\n' >ow/z.txt
w x plain.tgz -o ow z.txt
if [ "$rc" = 1 ] && [ "$(cat ow/z.txt)" = mine ]; then ok "existing file kept without -y (exit 1)"; else bad "overwrite" "exit $rc"; fi
w x plain.tgz -o ow -y z.txt
if [ "$rc" = 0 ] && [ "$(cat ow/z.txt)" = zzz ]; then ok "-y overwrites"; else bad "-y" "exit $rc"; fi

echo "scenarios: $passed passed, $failed failed"
[ "$failed" = 0 ]
