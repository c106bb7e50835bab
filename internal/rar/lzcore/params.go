package lzcore

// Params describes the file a RAR decoder's Reset starts: the same
// description for every decoder (unpack5, unpack3, unpack20 and unpack15
// each declare Params as an alias of this type).
type Params struct {
	// DictSize is the dictionary size from the file header, already
	// checked by the caller against the user's limit. RAR 1.5 never
	// reaches back more than 64 KiB, so larger values change nothing
	// there.
	DictSize int64
	// UnpackedSize is the file's size, or -1 when unknown. RAR5 streams
	// then end at their last block and RAR 2.9–4.x streams at their
	// end-of-file marker; RAR 2.0 and 1.5 have no end marker, so they
	// are decoded until the input ends, and the padding bits of the
	// last byte may decode to a few extra bytes.
	UnpackedSize int64
	// Solid continues the window, tables and distance history (and the
	// PPMd model, filters or audio predictors of the formats that have
	// them) of the previous file decoded by the same Decoder.
	Solid bool
	// Version selects the format variant: for unpack5 the compression
	// algorithm (0 for RAR 5.0, 1 for RAR 7's extended distances); for
	// the others the file's unpack version (unpack3: 29, while 36, a
	// RAR 3.6 beta variant, is refused as unsupported as unrar does;
	// unpack20: 20 or 26; unpack15: 15, or 10 to 14 for RAR 1.3/1.4
	// files, which use the same coder).
	Version int
	// MaxMem, when positive, limits the PPMd model memory that a RAR
	// 2.9–4.x block header may ask for (up to 256 MiB): a larger request
	// fails with an *archive.LimitError before anything is allocated. 0
	// sets no limit beyond the format's. The other decoders ignore it.
	MaxMem int64
	// MinWindow, when larger than the window this file needs, is the
	// window a decoder that allocates one takes instead: a caller that
	// knows the sizes of the files it will decode next (the container
	// reads every header first) passes the largest, so that the window
	// is allocated, and its pages faulted in, once rather than regrown
	// file after file. It never raises the file's dictionary (the
	// longest distance). unpack5 uses it; the others ignore it.
	MinWindow int64
	// PackedSize, when positive, is the length of the compressed stream:
	// a small one gets an input buffer of its size rather than 64 KiB.
	// It is a hint only (the stream still ends where its source does).
	PackedSize int64
}
