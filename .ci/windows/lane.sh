#!/usr/bin/env bash
# The Windows lane: garc built for windows/amd64 and run under Wine (64-bit
# only; no i386 architecture is needed). It installs Wine and MinGW-w64,
# builds the bcryptprimitives.dll shim that Go's runtime needs under Wine 8
# (bcryptprimitives.c), makes a Wine prefix once, then runs
#   - the CLI scenarios of scenarios.sh against garc.exe, and
#   - the conformance harness over ../shared/corpus and corpus-more with
#     garc.exe as the binary (GARC_BINARY), every difference from Linux
#     listed in expected-differences.tsv and checked both ways.
# README.md, section "Windows", lists Wine's deviations and why they are
# accepted. Run from anywhere: bash .ci/windows/lane.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
lane=.ci/windows
start=$SECONDS

export DEBIAN_FRONTEND=noninteractive
if ! command -v wine >/dev/null 2>&1 || ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
  apt-get update
  # Without the recommends (fonts, 32-bit pieces, gecko/mono helpers)
  # Wine still runs console programs.
  apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends wine wine64 gcc-mingw-w64-x86-64
fi
wine --version 2>/dev/null  # (the wrapper's advice to add wine32 concerns 32-bit programs only)

work=$(mktemp -d)
export WINEPREFIX="$work/prefix" WINEARCH=win64 WINEDEBUG=-all
# The shim replaces the DLL Wine lacks; mscoree and mshtml are disabled so
# that wineboot does not look for Mono and Gecko installers.
export WINEDLLOVERRIDES="bcryptprimitives=n;mscoree,mshtml="
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== windows lane: shim, prefix and garc.exe"
x86_64-w64-mingw32-gcc -O2 -Wall -Werror -shared -o "$work/bcryptprimitives.dll" \
  "$lane/bcryptprimitives.c" "$lane/bcryptprimitives.def" -ladvapi32
# wineboot -i creates the prefix (about 10 s the first time); wineserver -w
# waits until it has settled.
wineboot -i >"$work/wineboot.log" 2>&1 || { cat "$work/wineboot.log"; exit 1; }
wineserver -w
cp "$work/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
# One persistent wineserver for the whole lane: each garc.exe run then
# starts in about 0.2 s.
wineserver -p
# The cache of .ci/run's cross-compile and tests serves these builds (same flags).
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$work/garc.exe" ./cmd/garc
CGO_ENABLED=0 go build -o "$work/garc" ./cmd/garc
wine "$work/garc.exe" --version

echo "== windows lane: CLI scenarios (garc.exe under Wine)"
bash "$lane/scenarios.sh" "$work/garc.exe" "$work/garc"

echo "== windows lane: internal/extract's Windows tests, built for Windows, under Wine"
# The link rules, --links=copy, the name mapping, attributes and creation
# times, the Mark of the Web, a new file created under its own name
# (CREATE_NEW) and removed by Abort, and the removal of an open temporary
# file by an interrupt's cleanup, run by Windows' own file API. Each test's TempDir cleanup fails
# under Wine (os.RemoveAll: "Invalid function", README "Windows"), and the
# tests note where Wine keeps no creation time, read-only directory
# attribute or named stream (they probe it); any other failure or message
# fails the lane.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$work/extract.test.exe" ./internal/extract
wine "$work/extract.test.exe" -test.v -test.count=1 \
  -test.run '^(TestSanitizeWindowsName|TestSanitizeWindowsNameDevices|TestWindowsLinkProblem|TestWindowsLinkRulesRefuse|TestLinksCopy|TestWindowsNamesOnDisk|TestMetaOf|TestMapLinkTarget|TestWindowsAttributesOnDisk|TestWindowsReadOnlyDirectory|TestRemoveTemporariesDuringWrite|TestNewFileWrittenInPlace|TestAbortRemovesTemps|TestPropagateZone|TestZoneStreamRoundTrip|TestMarkOfWebExtracted)$' \
  >"$work/extract-tests.log" 2>&1 || true
other=$(grep -E '^[[:space:]]+[^[:space:]]+\.go:[0-9]+: |^panic|^FAIL[[:space:]]' "$work/extract-tests.log" |
  grep -vE 'testing\.go:[0-9]+: TempDir RemoveAll cleanup: .*Invalid function\.$|^FAIL$|_test\.go:[0-9]+: this file system keeps no .* \(Wine\)' || true)
ran=$(grep -cE -- '^[[:space:]]*--- (PASS|FAIL): ' "$work/extract-tests.log" || true)
if [ -n "$other" ] || [ "$ran" -lt 18 ]; then
  cat "$work/extract-tests.log"
  echo "internal/extract's Windows tests failed under Wine (beyond the TempDir cleanup)" >&2
  exit 1
fi
echo "extract Windows tests under Wine: $ran run, none failed but for Wine's TempDir cleanup"

echo "== windows lane: internal/progress's console test, built for Windows, under Wine"
# The switch of a Windows console to virtual-terminal processing (or to
# plain text); these tests make no temporary directory, so they pass whole.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$work/progress.test.exe" ./internal/progress
wine "$work/progress.test.exe" -test.v -test.count=1 -test.run '^(TestVTMode|TestEscapesWorkOnPipe)$' >"$work/progress-tests.log" 2>&1 ||
  { cat "$work/progress-tests.log"; echo "internal/progress's Windows tests failed under Wine" >&2; exit 1; }

echo "== windows lane: conformance over both corpora (garc.exe under Wine)"
GARC_BINARY="wine $work/garc.exe" \
  GARC_KNOWN_DIFFERENCES="$PWD/$lane/expected-differences.tsv" \
  GARC_STRICT_KNOWN=1 GARC_REQUIRE_ALL=1 \
  go test -count=1 -timeout 20m -run '^TestConformance(More)?$' -v ./internal/conformance |
  grep -vE '^[[:space:]]*(=== (RUN|PAUSE|CONT)|--- PASS)'

echo "== windows lane: done in $((SECONDS - start)) s"
