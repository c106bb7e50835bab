package tar

import (
	"context"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
)

// maxMemberHeaders bounds the header blocks of one member that
// CopyMembers holds while it decides whether to copy them: the extended
// headers' limit and a few blocks around them.
const maxMemberHeaders = maxSpecialSize + 8*blockSize

// CopyMembers reads the tar archive in src (size bytes, compressed with
// kind; 0 for a plain tar) once, front to back, and writes to tw, byte for
// byte, each member that keep accepts: its header blocks (with the pax,
// GNU long-name and other extended headers before it, so that nothing an
// archiver stored is lost) and its data with its padding. This is how an
// existing tar is updated: the members that stay are copied, the new ones
// written after them, and Close ends the archive. A pax global header at
// the start of a member that keep rejects is still copied, since it
// applies to the members after it. The archive's end blocks and anything
// after them are not copied. Errors name the archive (opts.Name), the
// member and the offset in the (decompressed) tar.
func (tw *Writer) CopyMembers(ctx context.Context, src io.ReaderAt, size int64, kind stream.Kind, opts *archive.Options, keep func(*archive.Entry) bool) error {
	if err := tw.endEntry(); err != nil {
		return err
	}
	r := &Reader{src: src, size: size, kind: kind, trailing: -1}
	if opts != nil {
		r.opts = *opts
	}
	r.mem = r.opts.Memory
	if r.mem == nil {
		r.mem = archive.NewMemoryBudget(r.opts.Limit())
	}
	p, err := r.newPass()
	if err != nil {
		return err
	}
	defer p.close()
	p.in.sec = nil // read every byte through in, so that raw sees the headers
	var raw []byte
	out := rawWriter{tw}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw = raw[:0]
		p.in.raw = &raw
		h, at, err := p.next()
		p.in.raw = nil
		if err == io.EOF {
			if err := p.end(); err != nil {
				return r.wrap("", -1, err)
			}
			return nil
		}
		if err != nil {
			return r.wrap("", at, headerError(err))
		}
		if len(raw) > maxMemberHeaders {
			return r.wrap(h.name, at, &archive.LimitError{What: "tar headers of one member", Need: int64(len(raw)), Limit: maxMemberHeaders, Fixed: true})
		}
		body := p.remaining + p.pad
		p.remaining, p.pad = 0, 0
		if !keep(entryOf(h)) {
			if err := tw.write(leadingGlobals(raw)); err != nil {
				return err
			}
			if err := p.in.skip(body); err != nil {
				return r.wrap(h.name, at, truncated(err))
			}
			continue
		}
		if err := tw.write(raw); err != nil {
			return err
		}
		if _, err := io.CopyN(out, &p.in, body); err != nil {
			if tw.err == nil {
				err = r.wrap(h.name, at, truncated(err))
			}
			return err
		}
	}
}

// leadingGlobals returns the pax global headers at the start of a
// member's header blocks (none: an empty slice).
func leadingGlobals(raw []byte) []byte {
	end := 0
	for end+blockSize <= len(raw) {
		blk := raw[end : end+blockSize]
		if blk[156] != typePAXGlobal || !checksumOK(blk) {
			break
		}
		var h header
		if err := parseBlock(blk, &h, nil); err != nil || h.size < 0 {
			break
		}
		next := int64(end) + blockSize + h.size + padding(h.size)
		if next > int64(len(raw)) {
			break
		}
		end = int(next)
	}
	return raw[:end]
}

// rawWriter writes copied bytes to a Writer outside any entry.
type rawWriter struct{ tw *Writer }

func (w rawWriter) Write(p []byte) (int, error) {
	if err := w.tw.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}
