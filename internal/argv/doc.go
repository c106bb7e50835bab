// Package argv rewrites garc's command line before cobra parses it, so
// that the spellings of 7-Zip and unrar work as they do there.
//
// Before cobra parses the arguments, Normalize rewrites 7-Zip and
// unrar spellings to canonical long flags and moves the command word to
// the front, so `garc -y x -ofoo a.7z` works:
//
//	-oDIR, -o DIR       --output=DIR
//	-pSECRET            --password=SECRET     (-p alone: prompt)
//	-y                  --yes (overwrite all)
//	-r, -r-, -r0        --recursive[=false]
//	-aoa -aos -aou -aot --overwrite=all|skip|rename|rename-existing
//	-o+ -o- -or (unrar) --overwrite=all|skip|rename
//	-kb (unrar)         --keep-broken
//	-ep (unrar)         --flat
//	-slt                --format=slt
//	-bd                 --progress=never
//	-x!P -xr!P -xr-!P  --exclude=P / --exclude=**/P / --exclude=./P
//	-xr0!P              --exclude=**/P when P holds a wildcard, else --exclude=./P
//	-x@F -xr@F -xr-@F   --exclude=@F / --exclude=**/@F / --exclude=./@F (for each line)
//	-i!P -ir!P -ir-!P   --include=P / --include=**/P / --include=./P (and -i@F …)
//	-xPAT -nPAT (unrar) --exclude=**/PAT / --include=**/PAT (PAT without a '/')
//	-mx9 -mx=9          --level=9
//	-m0=lzma2 -m0=BCJ   --method=lzma2 / --filter=BCJ
//	-m0=LZMA2:d=64m:fb=64  --method=LZMA2:d=64m:fb=64 (7-Zip's method parameters)
//	-mfb=64 -mmf=bt4 -mo=8 -mmem=256m  --method-param=fb=64 … (parameters of the main method)
//	-mhe=on -mhc=off    --encrypt-headers=true / --header-compression=false
//	-ms=on|off|SIZE     --solid=…
//	-mtc=on -mta=on     --store-ctime / --store-atime (-mtm=off: --store-mtime=false)
//	-mmt4 -mmt=off      --threads=4 / --threads=1
//	-md=64m -mf=off     --dict=64m / --filter=off
//	-v100m              --volume-size=100m
//	-snl                --symlinks=store
//	-snz                --mark-of-web=on
//	-si, -siNAME        --stdin, --stdin-name=NAME
//	-hpSECRET (unrar)   --password=SECRET --encrypt-headers
//	-t7z                --type=7z
//	-so                 --stdout (x, e)
//	-bsp0               --progress=never
//	-idq (unrar)        -q
//
// Switches that only change 7-Zip's or unrar's console output, or ask for
// what garc does anyway, are accepted and ignored: -bb[0-3], -bso/-bse/
// -bsp with 0–2 (other than -bsp0), -bt, -scc{CHARSET} (garc writes
// UTF-8), -scsUTF-8, -snh (hard links are always extracted as links),
// -sni, -snt, -ssw, -ssc (matching is case-sensitive) and unrar's
// -id[c,d,n,p]. Switches that would change the result and that garc does
// not implement are refused with exit 7 and the reason: -spf/-spf2
// (absolute paths: garc keeps every entry inside the destination), -spe,
// -ssc- (case-insensitive matching), -scs with a charset other than UTF-8,
// -sdel, -stl, -sns and -xr0@LIST. Any other unknown switch is a usage error too.
//
// Arguments after "--" are never rewritten.
package argv
