package aes

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// The corpus tests derive keys from real archives' parameters and check
// them against what the archives store, parsing just enough of each
// container by hand.

func corpusFile(t *testing.T, name string) []byte {
	t.Helper()
	root := testenv.CorpusRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "files", name))
	if err != nil {
		t.Fatalf("corpus file missing: %v", err)
	}
	return b
}

// sevenZipNumber decodes 7z's variable-length number.
func sevenZipNumber(b []byte) (uint64, []byte) {
	first := b[0]
	b = b[1:]
	mask := byte(0x80)
	var v uint64
	for i := 0; i < 8; i++ {
		if first&mask == 0 {
			high := uint64(first) & (uint64(mask) - 1)
			return v | high<<(8*i), b
		}
		v |= uint64(b[0]) << (8 * i)
		b = b[1:]
		mask >>= 1
	}
	return v, b
}

// Test7zEncryptedHeaders decrypts the encoded header of 7z archives whose
// header folder is a single 7zAES coder and checks the stored CRC.
func Test7zEncryptedHeaders(t *testing.T) {
	for _, c := range []struct{ file, pw string }{
		{"sevenzip/t2.7z", "password"},
		{"py7zr/data__filename_encryption.7z", "hello"},
		{"libarchive/test_read_format_7zip_encryption_header.7z", "12345678"},
	} {
		t.Run(c.file, func(t *testing.T) {
			d := corpusFile(t, c.file)
			off := binary.LittleEndian.Uint64(d[12:])
			size := binary.LittleEndian.Uint64(d[20:])
			h := d[32+off : 32+off+size]
			// kEncodedHeader, kPackInfo
			if h[0] != 0x17 || h[1] != 0x06 {
				t.Fatalf("unexpected header %x", h[:2])
			}
			packPos, h := sevenZipNumber(h[2:])
			_, h = sevenZipNumber(h) // number of pack streams (1)
			if h[0] != 0x09 {
				t.Fatalf("no pack sizes")
			}
			packSize, h := sevenZipNumber(h[1:])
			// kEnd, kUnpackInfo, kFolder, one folder, not external, one coder
			if !bytes.Equal(h[:6], []byte{0x00, 0x07, 0x0b, 0x01, 0x00, 0x01}) {
				t.Fatalf("unexpected folder layout %x", h[:6])
			}
			if h[6] != 0x24 || !bytes.Equal(h[7:11], []byte{0x06, 0xf1, 0x07, 0x01}) {
				t.Fatalf("coder is not 7zAES: %x", h[6:11])
			}
			propSize := int(h[11])
			props, err := ParseProps7z(h[12 : 12+propSize])
			if err != nil {
				t.Fatal(err)
			}
			h = h[12+propSize:]
			if h[0] != 0x0c {
				t.Fatalf("no unpack size")
			}
			unpackSize, h := sevenZipNumber(h[1:])
			if h[0] != 0x0a || h[1] != 1 {
				t.Fatalf("no CRC")
			}
			wantCRC := binary.LittleEndian.Uint32(h[2:])

			key, err := Key7z(c.pw, props.Salt, props.CyclesPower)
			if err != nil {
				t.Fatal(err)
			}
			ct := d[32+packPos : 32+packPos+packSize]
			r, err := NewDecryptReader(bytes.NewReader(ct), key[:], props.IV[:])
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			plain, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := crc32.ChecksumIEEE(plain[:unpackSize]); got != wantCRC {
				t.Fatalf("decrypted header CRC %08x, stored %08x", got, wantCRC)
			}
			// The wrong password must not match.
			bad, _ := Key7z(c.pw+"x", props.Salt, props.CyclesPower)
			r.Reset(bytes.NewReader(ct), bad[:], props.IV[:])
			plain, _ = io.ReadAll(r)
			if crc32.ChecksumIEEE(plain[:unpackSize]) == wantCRC {
				t.Fatal("wrong password accepted")
			}
		})
	}
}

// rar5Vint decodes RAR 5.0's variable-length integer.
func rar5Vint(b []byte) (uint64, []byte) {
	var v uint64
	for i := 0; ; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, b[i+1:]
		}
	}
}

// TestRAR5PasswordCheck reads the archive encryption header of RAR 5.0
// archives with encrypted headers, checks the password check value and its
// checksum, then decrypts the next header and checks its CRC32.
func TestRAR5PasswordCheck(t *testing.T) {
	for _, c := range []struct{ file, pw string }{
		{"rarfile/files__rar5-hpsw.rar", "password"},
		{"junrar/com__github__junrar__password__rar5-encrypted-junrar.rar", "junrar"},
	} {
		t.Run(c.file, func(t *testing.T) {
			d := corpusFile(t, c.file)
			if !bytes.HasPrefix(d, []byte("Rar!\x1a\x07\x01\x00")) {
				t.Fatal("not RAR5")
			}
			p := d[8+4:] // skip signature and header CRC
			hsize, p := rar5Vint(p)
			start := p
			htype, p := rar5Vint(p)
			if htype != 4 {
				t.Fatalf("first header type %d, want 4 (encryption)", htype)
			}
			_, p = rar5Vint(p) // header flags
			ver, p := rar5Vint(p)
			flags, p := rar5Vint(p)
			if ver != 0 || flags&1 == 0 {
				t.Fatalf("version %d flags %d", ver, flags)
			}
			lg2 := int(p[0])
			salt := p[1:17]
			check := p[17:29]
			key, _, psw, err := KeyRAR5Limit(c.pw, salt, lg2, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(psw[:], check[:8]) {
				t.Fatalf("password check %x, stored %x", psw, check[:8])
			}
			if sum := sha256.Sum256(psw[:]); !bytes.Equal(sum[:4], check[8:12]) {
				t.Fatalf("check sum %x, stored %x", sum, check[8:])
			}
			_, _, bad, _ := KeyRAR5Limit(c.pw+"x", salt, lg2, 0)
			if bytes.Equal(bad[:], check[:8]) {
				t.Fatal("wrong password matches")
			}
			// The next header: 16-byte IV, then the encrypted header.
			next := start[hsize:]
			iv, enc := next[:16], next[16:]
			r, err := NewDecryptReader(bytes.NewReader(enc[:len(enc)&^15]), key[:], iv)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			first := make([]byte, 16)
			if _, err := io.ReadFull(r, first); err != nil {
				t.Fatal(err)
			}
			crc := binary.LittleEndian.Uint32(first)
			size, rest := rar5Vint(first[4:])
			vlen := len(first) - 4 - len(rest)
			total := 4 + vlen + int(size)
			hdr := make([]byte, (total+15)&^15)
			copy(hdr, first)
			if _, err := io.ReadFull(r, hdr[16:]); err != nil {
				t.Fatal(err)
			}
			if got := crc32.ChecksumIEEE(hdr[4:total]); got != crc {
				t.Fatalf("decrypted header CRC %08x, stored %08x", got, crc)
			}
		})
	}
}

// TestRAR3EncryptedHeaders decrypts the first encrypted block header of
// RAR 2.9–4.x archives with encrypted headers and checks its CRC16.
func TestRAR3EncryptedHeaders(t *testing.T) {
	for _, c := range []struct{ file, pw string }{
		{"rarfile/files__rar3-comment-hpsw.rar", "password"},
		{"sharpcompress/Archives__Rar.Encrypted.rar", "test"},
		{"junrar/com__github__junrar__password__rar3-nonascii-password.rar", "пароль密码ü"},
		{"libarchive/test_read_format_rar_encryption_header.rar", "12345678"},
	} {
		t.Run(c.file, func(t *testing.T) {
			d := corpusFile(t, c.file)
			if !bytes.HasPrefix(d, []byte("Rar!\x1a\x07\x00")) {
				t.Fatal("not RAR 1.5-4.x")
			}
			mh := d[7:]
			if mh[2] != 0x73 {
				t.Fatalf("no main header")
			}
			mflags := binary.LittleEndian.Uint16(mh[3:])
			if mflags&0x80 == 0 {
				t.Fatalf("headers not encrypted (flags %04x)", mflags)
			}
			msize := int(binary.LittleEndian.Uint16(mh[5:]))
			p := mh[msize:]
			salt, enc := p[:8], p[8:]
			key, iv := KeyRAR3(c.pw, salt)
			r, err := NewDecryptReader(bytes.NewReader(enc[:len(enc)&^15]), key[:], iv[:])
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			first := make([]byte, 16)
			if _, err := io.ReadFull(r, first); err != nil {
				t.Fatal(err)
			}
			size := int(binary.LittleEndian.Uint16(first[5:]))
			if size < 7 {
				t.Fatalf("implausible header size %d (wrong key?)", size)
			}
			hdr := make([]byte, (size+15)&^15)
			copy(hdr, first)
			if len(hdr) > 16 {
				if _, err := io.ReadFull(r, hdr[16:]); err != nil {
					t.Fatal(err)
				}
			}
			want := binary.LittleEndian.Uint16(hdr)
			if got := uint16(crc32.ChecksumIEEE(hdr[2:size])); got != want {
				t.Fatalf("header CRC %04x, stored %04x", got, want)
			}
		})
	}
}
