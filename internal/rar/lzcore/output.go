package lzcore

import "io"

// Source is a decoder's output as Read, WriteTo and Drain see it: Next
// returns the next decoded bytes ready to hand out, decoding more when
// needed (io.EOF at the end of the file, or the decoder's error), and
// Consume marks the first n bytes Next returned as handed out. The bytes
// stay valid until Consume or the next call of Next.
//
// Decoders satisfy it with a defined type over their own struct (for
// example type output Decoder), so that the methods stay unexported from
// the decoder's API and the conversion costs nothing.
type Source interface {
	Next() ([]byte, error)
	Consume(n int)
}

// Read copies the next decoded bytes into p with io.Reader semantics:
// at least one byte unless p is empty or an error (io.EOF at the end)
// ends the stream.
func Read(s Source, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b, err := s.Next()
	if err != nil {
		return 0, err
	}
	n := copy(p, b)
	s.Consume(n)
	return n, nil
}

// WriteTo writes the rest of the decoded bytes to w with io.WriterTo
// semantics: the end of the stream is not an error, a short write is
// io.ErrShortWrite.
func WriteTo(s Source, w io.Writer) (int64, error) {
	var total int64
	for {
		b, err := s.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return total, err
		}
		n, werr := w.Write(b)
		s.Consume(n)
		total += int64(n)
		if werr != nil {
			return total, werr
		}
		if n < len(b) {
			return total, io.ErrShortWrite
		}
	}
}

// Drain decodes and discards the rest of the stream (to reach the next
// file of a solid stream). It returns the decoding error, nil at the end.
func Drain(s Source) error {
	for {
		b, err := s.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return err
		}
		s.Consume(len(b))
	}
}
