package rar

import (
	"io"
)

// legacyCipher returns the piece wrapper for the RAR 1.3/1.5/2.0 ciphers.
// Passwords are used as their UTF-8 bytes (identical to the OEM bytes old
// RAR versions used for ASCII passwords).
func (r *reader) legacyCipher(f *fileInfo) (func(*part, io.Reader) (io.Reader, io.Closer, error), error) {
	pw, err := r.password()
	if err != nil {
		return nil, err
	}
	b := []byte(pw)
	switch f.enc {
	case encRAR20:
		return func(_ *part, src io.Reader) (io.Reader, io.Closer, error) {
			d := newReader20(src, b)
			return d, d, nil
		}, nil
	case encRAR15:
		return func(_ *part, src io.Reader) (io.Reader, io.Closer, error) {
			d := &reader15{src: src}
			d.c.setPassword(b)
			return d, d, nil
		}, nil
	default:
		return func(_ *part, src io.Reader) (io.Reader, io.Closer, error) {
			d := &reader13{src: src}
			d.c.setPassword(b)
			return d, d, nil
		}, nil
	}
}
