// Package sevenzip reads 7z archives (and will later write them).
//
// # Container (7-Zip DOC/7zFormat.txt)
//
// A 7z archive starts with a 32-byte signature header: the six signature
// bytes, a two-byte version, the CRC of the following 20 bytes, and the
// offset, size and CRC of the "next header", which sits at the end of the
// archive. Everything between the signature header and the next header is
// packed streams.
//
// The next header is either a plain Header (kHeader) or an encoded header
// (kEncodedHeader): a StreamsInfo describing folders whose decoded output is
// the real header, which may in turn be encoded again. Encoded headers are
// usually LZMA-compressed and, with -mhe, AES-encrypted.
//
// A Header holds archive properties, the MainStreamsInfo and the FilesInfo.
// StreamsInfo has three parts: PackInfo (position and sizes of packed
// streams), UnpackInfo (folders: small graphs of coders joined by bind pairs,
// with the unpacked size of every coder output) and SubStreamsInfo (how a
// folder's output is cut into files, with their CRCs). FilesInfo lists every
// entry with a set of optional property vectors: names (UTF-16LE), empty
// streams (directories and empty files), empty files, anti-items, times
// (Windows FILETIME), attributes (Windows bits, plus a unix mode in the high
// 16 bits when bit 0x8000 is set) and a few rarely used ones.
//
// Files with data are assigned to the folders' substreams in order, so a
// folder's files are contiguous. A folder with more than one file is a solid
// block: reading a file means decoding every byte in front of it.
//
// # Decoding
//
// Each coder has one output and one or more inputs. The folder's main output
// is the coder output that no bind pair consumes; every coder input is either
// bound to another coder's output or fed by a packed stream. Decoders are
// built recursively from the main output and are looked up by method ID in a
// registry (coders.go). Every coder output is bounded by its declared unpack
// size, and a coder that ends early is reported as corrupt data.
//
// The format-neutral view (archive.Entry, archive.Reader) is in
// internal/archive; reader.go maps the parsed header onto it.
package sevenzip
