package rar

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"hash/crc32"
)

// rar5Builder writes RAR5 archives header by header for tests: each
// header gets its size and CRC32, so a test states only the fields it is
// about.
type rar5Builder struct {
	buf []byte
	// hdrKey encrypts the headers after an encryption header
	// (encryptedHeaders); ivs numbers their IVs.
	hdrKey []byte
	ivs    byte
	// windows makes the file headers' host OS Windows (else Unix).
	windows bool
}

func newRAR5Builder() *rar5Builder {
	return &rar5Builder{buf: append([]byte(nil), sigRAR5...)}
}

// appendVint appends v as a RAR5 variable-length integer.
func appendVint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// header appends a header of type typ whose fields after the header
// flags are body, with data appended as its data area.
func (w *rar5Builder) header(typ uint64, body, data []byte) *rar5Builder {
	var h []byte
	h = appendVint(h, typ)
	flags := uint64(0)
	if data != nil {
		flags |= 2
	}
	h = appendVint(h, flags)
	if data != nil {
		h = appendVint(h, uint64(len(data)))
	}
	h = append(h, body...)
	w.emit(append(appendVint(nil, uint64(len(h))), h...), data)
	return w
}

// emit appends a header, sized (its size and the fields after it),
// preceded by its CRC32 and encrypted when headers are, then data as its
// data area.
func (w *rar5Builder) emit(sized, data []byte) {
	plain := binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(sized))
	plain = append(plain, sized...)
	if w.hdrKey != nil {
		for len(plain)%aes.BlockSize != 0 {
			plain = append(plain, 0)
		}
		w.ivs++
		iv := bytes.Repeat([]byte{w.ivs}, aes.BlockSize)
		b, err := aes.NewCipher(w.hdrKey)
		if err != nil {
			panic(err)
		}
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(plain, plain)
		w.buf = append(w.buf, iv...)
	}
	w.buf = append(w.buf, plain...)
	w.buf = append(w.buf, data...)
}

// encryptedHeaders appends an archive encryption header (see crypt) and
// encrypts the headers after it with the key derived from password.
func (w *rar5Builder) encryptedHeaders(password string, lg2 byte) *rar5Builder {
	w.crypt(lg2)
	key, _, _, err := sharedKeys.KeyRAR5(password, make([]byte, 16), int(lg2), defaultMaxKDF)
	if err != nil {
		panic(err)
	}
	w.hdrKey = key[:]
	return w
}

// main appends a main archive header with archive flags fl.
func (w *rar5Builder) main(fl uint64) *rar5Builder {
	return w.header(head5Main, appendVint(nil, fl), nil)
}

// crypt appends an archive encryption header (headers encrypted from here
// on) with the given log2 iteration count.
func (w *rar5Builder) crypt(lg2 byte) *rar5Builder {
	var b []byte
	b = appendVint(b, 0) // version
	b = appendVint(b, 0) // flags: no check value
	b = append(b, lg2)
	b = append(b, make([]byte, 16)...) // salt
	return w.header(head5Crypt, b, nil)
}

// file appends a stored file header for name with content data; extra
// is its extra area (records already encoded).
func (w *rar5Builder) file(name string, data, extra []byte) *rar5Builder {
	return w.stored(head5File, name, data, extra)
}

// service appends a stored service header (name "CMT" is the comment).
func (w *rar5Builder) service(name string, data []byte) *rar5Builder {
	return w.stored(head5Service, name, data, nil)
}

func (w *rar5Builder) stored(typ uint64, name string, data, extra []byte) *rar5Builder {
	var b []byte
	b = appendVint(b, 0x4) // file flags: CRC32 present
	b = appendVint(b, uint64(len(data)))
	b = appendVint(b, 0) // attributes
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
	b = appendVint(b, 0) // compression: version 0, stored, dictionary 128 KiB
	host := uint64(1)    // host OS: unix
	if w.windows {
		host = 0
	}
	b = appendVint(b, host)
	b = appendVint(b, uint64(len(name)))
	b = append(b, name...)
	var h []byte
	h = appendVint(h, typ)
	flags := uint64(2)
	if len(extra) > 0 {
		flags |= 1
	}
	h = appendVint(h, flags)
	if len(extra) > 0 {
		h = appendVint(h, uint64(len(extra)))
	}
	h = appendVint(h, uint64(len(data)))
	h = append(h, b...)
	h = append(h, extra...)
	w.emit(append(appendVint(nil, uint64(len(h))), h...), data)
	return w
}

// end appends the end-of-archive header; more says another volume follows.
func (w *rar5Builder) end(more bool) *rar5Builder {
	fl := uint64(0)
	if more {
		fl = 1
	}
	return w.header(head5End, appendVint(nil, fl), nil)
}

// bytes returns the archive.
func (w *rar5Builder) bytes() []byte { return w.buf }
