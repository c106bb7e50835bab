package zip

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// maxLinkTarget bounds the data of a symlink entry.
const maxLinkTarget = 64 << 10

// eofReader is the content of entries without data.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// errReader returns err.
type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// Extract visits the wanted entries in central directory order and calls
// fn with their contents. Each entry is decoded independently; a failure
// to open one entry is handed to fn as the reader's error and the run
// goes on. An archive cut short before its central directory returns
// Err's error after its complete entries.
func (rd *Reader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rd.extracting = true
	defer func() { rd.extracting = false }()
	for i, e := range rd.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if want != nil && !want(e) {
			continue
		}
		if e.Type == archive.TypeDir {
			if err := fn(e, eofReader{}); err != nil {
				return err
			}
			continue
		}
		er, err := rd.open(ctx, i)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			if err := fn(e, &errReader{err: rd.wrap(e.Name, rd.files[i].headerOff, err)}); err != nil {
				return err
			}
			continue
		}
		if e.Type == archive.TypeSymlink {
			target, err := readLinkTarget(er, e.Size)
			if err != nil {
				if err := fn(e, &errReader{err: err}); err != nil {
					return err
				}
				continue
			}
			e.LinkTarget = target
			if err := fn(e, eofReader{}); err != nil {
				return err
			}
			continue
		}
		if er.encrypted && e.Size <= preverifyMax {
			// An encrypted entry is decoded and checked before the
			// callback sees a byte: the password checks (one byte for
			// ZipCrypto, two for AES) let a wrong password through now
			// and then, and it must be reported before anything is
			// written.
			data, err := io.ReadAll(er)
			var r io.Reader = bytes.NewReader(data)
			if err != nil {
				r = &errReader{err: err}
			}
			if err := fn(e, r); err != nil {
				return err
			}
			continue
		}
		if err := fn(e, er); err != nil {
			return err
		}
	}
	return rd.Err()
}

// preverifyMax bounds the encrypted entries that are verified in memory
// before they are handed out.
const preverifyMax = 4 << 20

// readLinkTarget reads a symlink entry's data, its target.
func readLinkTarget(er *entryReader, size int64) (string, error) {
	if size > maxLinkTarget {
		return "", er.fail(fmt.Errorf("symlink target of %d bytes: %w", size, archive.ErrFormat))
	}
	data, err := io.ReadAll(er)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// open prepares the reader of entry i: the compressed bytes, decrypted
// (after the password was checked) and decompressed, bounded to the
// declared size and checked against the CRC at the end.
func (rd *Reader) open(ctx context.Context, i int) (*entryReader, error) {
	f := &rd.files[i]
	e := rd.entries[i]
	er := &entryReader{rd: rd, name: e.Name, ctx: ctx, remaining: f.usize,
		checkCRC: e.HasCRC32, want: f.crc, f: f}
	if f.flags&flagStrong != 0 || f.flags&flagMasked != 0 {
		return nil, &archive.UnsupportedError{What: "PKWARE strong encryption"}
	}
	er.sec = *io.NewSectionReader(rd.ra, f.dataOff, f.csize)
	var src io.Reader = &er.sec
	dataLen := f.csize
	if f.flags&flagEncrypted != 0 {
		pw, err := rd.password()
		if err != nil {
			return nil, err
		}
		er.encrypted = true
		switch {
		case f.method == methodAES:
			if !f.aes.present {
				return nil, fmt.Errorf("method 99 without the WinZip AES extra field: %w", archive.ErrFormat)
			}
			over := aesOverhead(f.aes.strength)
			if f.aes.strength < 1 || f.aes.strength > 3 {
				return nil, &archive.UnsupportedError{What: fmt.Sprintf("WinZip AES key strength %d", f.aes.strength)}
			}
			if f.csize < over {
				return nil, fmt.Errorf("AES data of %d bytes: %w", f.csize, archive.ErrFormat)
			}
			dataLen = f.csize - over
			ar, err := newAESReader(io.NewSectionReader(rd.ra, f.dataOff, f.csize), dataLen, pw, f.aes.strength)
			if err != nil {
				return nil, err
			}
			er.aes = ar
			src = ar
		default:
			if f.csize < zipCryptoHeaderLen {
				return nil, fmt.Errorf("encrypted data of %d bytes: %w", f.csize, archive.ErrFormat)
			}
			zr, err := newZipCryptoReader(src, pw, f)
			if err != nil {
				return nil, err
			}
			dataLen = f.csize - zipCryptoHeaderLen
			src = zr
		}
	} else if f.method == methodAES {
		return nil, fmt.Errorf("method 99 without the encryption flag: %w", archive.ErrFormat)
	}
	if f.realMethod == methodStore && dataLen != f.usize {
		return nil, fmt.Errorf("stored entry of %d bytes holds %d: %w", f.usize, dataLen, archive.ErrFormat)
	}
	dec, err := rd.newDecoder(f, src, dataLen)
	if err != nil {
		return nil, err
	}
	er.src = dec
	return er, nil
}

// entryReader yields one entry's bytes: exactly its declared size, then
// io.EOF once the decoder has been seen to end there and the CRC (and
// AES authentication code) matched.
type entryReader struct {
	rd        *Reader
	f         *file
	name      string
	ctx       context.Context
	src       io.Reader
	aes       *aesReader
	remaining int64
	crc       uint32
	checkCRC  bool
	want      uint32
	encrypted bool
	err       error
	sec       io.SectionReader // the compressed data
	probe     [1]byte          // finish's read past the end
}

// fail records err, located, as the reader's final error.
func (er *entryReader) fail(err error) error {
	if er.encrypted && !errors.Is(err, archive.ErrWrongPassword) && !errors.Is(err, archive.ErrLimit) &&
		!errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		// Traditional encryption checks one byte of the password and
		// AES two: corrupt output then most likely means a wrong one.
		if errors.Is(err, archive.ErrChecksum) {
			err = fmt.Errorf("%w? %w", archive.ErrWrongPassword, err)
		} else {
			err = fmt.Errorf("%w? %w (%w)", archive.ErrWrongPassword, archive.ErrChecksum, err)
		}
	}
	er.err = er.rd.wrap(er.name, er.f.dataOff, err)
	return er.err
}

func (er *entryReader) Read(p []byte) (int, error) {
	if er.err != nil {
		return 0, er.err
	}
	if er.remaining == 0 {
		if err := er.finish(); err != nil {
			return 0, er.fail(err)
		}
		er.err = io.EOF
		return 0, io.EOF
	}
	if er.ctx != nil {
		if err := er.ctx.Err(); err != nil {
			er.err = err
			return 0, err
		}
	}
	if int64(len(p)) > er.remaining {
		p = p[:er.remaining]
	}
	n, err := er.src.Read(p)
	er.remaining -= int64(n)
	if er.checkCRC {
		er.crc = crc32.Update(er.crc, crc32.IEEETable, p[:n])
	}
	switch {
	case err == io.EOF && er.remaining > 0:
		return n, er.fail(fmt.Errorf("data ends %d bytes before the declared size: %w", er.remaining, archive.ErrFormat))
	case err != nil && err != io.EOF:
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("compressed data cut short: %w", archive.ErrFormat)
		}
		return n, er.fail(err)
	}
	if n == 0 && er.remaining == 0 {
		return er.Read(p)
	}
	return n, nil
}

// finish runs when the declared size has been produced: the decoder must
// have nothing more to give, the CRC must match and, for AES, the
// authentication code.
func (er *entryReader) finish() error {
	for tries := 0; ; tries++ {
		n, err := er.src.Read(er.probe[:])
		if n > 0 {
			return fmt.Errorf("more data than the declared size %d: %w", er.f.usize, archive.ErrFormat)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("compressed data cut short: %w", archive.ErrFormat)
			}
			return err
		}
		if tries > 100 {
			return fmt.Errorf("decoder makes no progress: %w", archive.ErrFormat)
		}
	}
	if er.aes != nil {
		if err := er.aes.verify(); err != nil {
			return err
		}
	}
	if er.checkCRC && er.crc != er.want {
		return fmt.Errorf("CRC %08x, want %08x: %w", er.crc, er.want, archive.ErrChecksum)
	}
	return er.rd.checkDescriptor(er.f)
}

// checkDescriptor compares the CRC in an entry's data descriptor, when
// it has one, with the central directory's.
func (rd *Reader) checkDescriptor(f *file) error {
	if f.flags&flagDescriptor == 0 || f.aes.present && f.aes.version == 2 {
		return nil
	}
	var b [8]byte
	n, _ := rd.ra.ReadAt(b[:], f.dataOff+f.csize)
	if n < 8 {
		return nil // a missing descriptor is tolerated, as Go and 7-Zip do
	}
	crc := binary.LittleEndian.Uint32(b[:])
	if crc == sigDescriptor {
		crc = binary.LittleEndian.Uint32(b[4:])
	}
	if crc != f.crc && binary.LittleEndian.Uint32(b[:]) != f.crc {
		return fmt.Errorf("data descriptor CRC %08x, central directory %08x: %w", crc, f.crc, archive.ErrChecksum)
	}
	return nil
}
