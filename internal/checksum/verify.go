package checksum

import (
	"bytes"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// maxDigest bounds the stored expected digest so VerifyingReader can keep
// it in an array rather than an allocation.
const maxDigest = 64

// VerifyingReader passes bytes through from an underlying reader while
// hashing them, and when the underlying reader reports io.EOF compares the
// digest with the expected one. A mismatch is reported instead of io.EOF
// as an error wrapping archive.ErrChecksum; it is sticky.
//
// A VerifyingReader is reused for the next entry with Reset; neither Read
// nor Reset allocates (as long as the hash does not).
type VerifyingReader struct {
	r      io.Reader
	h      hash.Hash
	want   [maxDigest]byte
	nwant  int   // 0: nothing to verify
	err    error // sticky terminal error (io.EOF or the mismatch)
	sum    [maxDigest]byte
	mac    bool // compare RAR5MACBLAKE2sp(macKey, digest) instead
	macKey [32]byte
}

// NewVerifyingReader returns a reader over r that verifies h(r) == want at
// EOF. h is reset first. An empty want disables verification (the bytes
// are still hashed, see Sum). want longer than 64 bytes is an error at
// EOF, as it can never match.
func NewVerifyingReader(r io.Reader, h hash.Hash, want []byte) *VerifyingReader {
	v := &VerifyingReader{h: h}
	v.Reset(r, want)
	return v
}

// Reset prepares v for a new stream with the same hash function.
func (v *VerifyingReader) Reset(r io.Reader, want []byte) {
	v.mac = false
	v.reset(r, want)
}

// ResetRAR5MAC prepares v for a RAR 5.0 encrypted entry whose stored
// digest is MAC'd: at EOF the computed digest is converted with
// RAR5MACBLAKE2sp(hashKey, digest) before the comparison. hashKey is
// copied (32 bytes).
func (v *VerifyingReader) ResetRAR5MAC(r io.Reader, want, hashKey []byte) {
	v.mac = true
	copy(v.macKey[:], hashKey)
	v.reset(r, want)
}

func (v *VerifyingReader) reset(r io.Reader, want []byte) {
	v.r = r
	v.h.Reset()
	v.err = nil
	if len(want) > maxDigest {
		// Cannot match any supported digest; keep a marker that fails.
		v.nwant = -1
		return
	}
	v.nwant = copy(v.want[:], want)
}

// Read implements io.Reader.
func (v *VerifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	if n > 0 {
		v.h.Write(p[:n])
	}
	if err == io.EOF {
		err = v.check()
		v.err = err
	} else if err != nil {
		v.err = err
	}
	return n, err
}

// check compares the digest with the expected one.
func (v *VerifyingReader) check() error {
	if v.nwant == 0 {
		return io.EOF
	}
	got := v.h.Sum(v.sum[:0])
	if v.mac {
		m := RAR5MACBLAKE2sp(v.macKey[:], got)
		got = append(got[:0], m[:]...)
	}
	if v.nwant < 0 || !bytes.Equal(got, v.want[:v.nwant]) {
		return fmt.Errorf("%w: computed %x, stored %x", archive.ErrChecksum, got, v.want[:max(v.nwant, 0)])
	}
	return io.EOF
}

// Sum appends the digest of the bytes read so far to b.
func (v *VerifyingReader) Sum(b []byte) []byte { return v.h.Sum(b) }

// CRC32Reader is a VerifyingReader specialised to CRC-32 (IEEE), the
// checksum of 7z and of most RAR entries. It does not allocate.
type CRC32Reader struct {
	r       io.Reader
	crc     uint32
	want    uint32
	enabled bool
	err     error
	mac     bool
	macKey  [32]byte
}

// NewCRC32Reader returns a reader over r that reports an error wrapping
// archive.ErrChecksum instead of io.EOF if the CRC-32 of the bytes differs
// from want.
func NewCRC32Reader(r io.Reader, want uint32) *CRC32Reader {
	c := new(CRC32Reader)
	c.Reset(r, want)
	return c
}

// Reset prepares c for a new stream that must have CRC-32 want.
func (c *CRC32Reader) Reset(r io.Reader, want uint32) {
	*c = CRC32Reader{r: r, want: want, enabled: true}
}

// ResetRAR5MAC prepares c for a RAR 5.0 encrypted entry whose stored
// CRC-32 is MAC'd: at EOF the computed CRC is converted with
// RAR5MACCRC32(hashKey, crc) before the comparison with want.
func (c *CRC32Reader) ResetRAR5MAC(r io.Reader, want uint32, hashKey []byte) {
	*c = CRC32Reader{r: r, want: want, enabled: true, mac: true}
	copy(c.macKey[:], hashKey)
}

// ResetUnchecked prepares c for a new stream without a stored CRC: the
// CRC is computed (see Sum32) but never compared.
func (c *CRC32Reader) ResetUnchecked(r io.Reader) {
	*c = CRC32Reader{r: r}
}

// Read implements io.Reader.
func (c *CRC32Reader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if n > 0 {
		c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	}
	if err == io.EOF && c.enabled {
		got := c.crc
		if c.mac {
			got = RAR5MACCRC32(c.macKey[:], got)
		}
		if got != c.want {
			err = fmt.Errorf("%w: computed crc32 %08x, stored %08x", archive.ErrChecksum, got, c.want)
		}
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// Sum32 returns the CRC-32 of the bytes read so far.
func (c *CRC32Reader) Sum32() uint32 { return c.crc }
