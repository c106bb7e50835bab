package aes

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/checksum"
)

// TestRAR5StoredEncryptedFiles decrypts the stored (method 0) encrypted
// files of RAR 5.0 archives with plain headers and checks their stored
// checksums, MAC'd with the hash key when the encryption record says so.
// It exercises KeyRAR5Limit, DecryptReader, BLAKE2sp and the RAR5 MAC
// conversions on real data.
func TestRAR5StoredEncryptedFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		pws  []string
	}{
		{"rarfile/files__rar5-psw-blake.rar", []string{"password"}},
		{"rarfile/files__rar5-psw.rar", []string{"password"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			d := corpusFile(t, c.file)
			if !bytes.HasPrefix(d, []byte("Rar!\x1a\x07\x01\x00")) {
				t.Fatal("not RAR5")
			}
			p := d[8:]
			verified := 0
			for len(p) > 4 {
				size, rest := rar5Vint(p[4:])
				hdr := rest[:size]
				p = rest[size:]
				htype, h := rar5Vint(hdr)
				flags, h := rar5Vint(h)
				var extraSize, dataSize uint64
				if flags&1 != 0 {
					extraSize, h = rar5Vint(h)
				}
				if flags&2 != 0 {
					dataSize, h = rar5Vint(h)
				}
				data := p[:dataSize]
				p = p[dataSize:]
				if htype == 5 { // end of archive
					break
				}
				if htype != 2 {
					continue
				}
				extra := hdr[len(hdr)-int(extraSize):]
				fflags, h := rar5Vint(h)
				unpSize, h := rar5Vint(h)
				_, h = rar5Vint(h) // attributes
				if fflags&2 != 0 {
					h = h[4:]
				}
				var crc uint32
				hasCRC := fflags&4 != 0
				if hasCRC {
					crc = binary.LittleEndian.Uint32(h)
					h = h[4:]
				}
				comp, _ := rar5Vint(h)
				var enc, blake []byte
				for len(extra) > 0 {
					rsize, r := rar5Vint(extra)
					rec := r[:rsize]
					extra = r[rsize:]
					rtype, body := rar5Vint(rec)
					switch rtype {
					case 1:
						enc = body
					case 2:
						if kind, hv := rar5Vint(body); kind == 0 {
							blake = hv[:32]
						}
					}
				}
				if enc == nil || comp>>7&7 != 0 || fflags&1 != 0 {
					continue // not encrypted, compressed, or a directory
				}
				_, eb := rar5Vint(enc) // version
				eflags, eb := rar5Vint(eb)
				lg2, salt, iv := int(eb[0]), eb[1:17], eb[17:33]
				var check []byte
				if eflags&1 != 0 {
					check = eb[33:41]
				}
				ok := false
				for _, pw := range c.pws {
					key, hashKey, psw, err := KeyRAR5Limit(pw, salt, lg2, 0)
					if err != nil {
						t.Fatal(err)
					}
					if check != nil && !bytes.Equal(psw[:], check) {
						continue
					}
					r, err := NewDecryptReader(bytes.NewReader(data), key[:], iv)
					if err != nil {
						t.Fatal(err)
					}
					plain, err := io.ReadAll(r)
					r.Close()
					if err != nil {
						t.Fatal(err)
					}
					plain = plain[:unpSize]
					useMAC := eflags&2 != 0
					if blake != nil {
						h := checksum.NewBLAKE2sp()
						h.Write(plain)
						sum := [32]byte(h.Sum(nil))
						want := sum
						if useMAC {
							want = checksum.RAR5MACBLAKE2sp(hashKey[:], sum[:])
						}
						if !bytes.Equal(want[:], blake) {
							continue
						}
					}
					if hasCRC {
						want := crc32.ChecksumIEEE(plain)
						if useMAC {
							want = checksum.RAR5MACCRC32(hashKey[:], want)
						}
						if want != crc {
							continue
						}
					}
					if blake == nil && !hasCRC {
						continue
					}
					ok = true
					t.Logf("verified %d bytes: BLAKE2sp %v, CRC32 %v, MAC %v", unpSize, blake != nil, hasCRC, useMAC)
					break
				}
				if !ok {
					t.Errorf("entry %d bytes: no password verifies", unpSize)
					continue
				}
				verified++
			}
			if verified == 0 {
				t.Fatal("no stored encrypted entry verified")
			}
			t.Logf("%d entries verified", verified)
		})
	}
}
