package extract

import (
	"bytes"
	"strconv"
)

// maxZoneIdentifier bounds the Zone.Identifier stream read from an
// archive: Windows writes a few lines ([ZoneTransfer], ZoneId,
// ReferrerUrl, HostUrl); a longer one is not copied whole.
const maxZoneIdentifier = 64 << 10

// internetZone is the Zone.Identifier written for an archive whose own
// stream is too long to copy: the Internet zone, what the mark says for
// downloaded files.
var internetZone = []byte("[ZoneTransfer]\r\nZoneId=3\r\n")

// ArchiveZone returns the Mark of the Web that the files extracted from
// the archive file path are to carry (Options.ZoneIdentifier): its own
// Zone.Identifier alternate data stream, as Windows browsers and mail
// programs write it for downloaded files, when propagateZone keeps it;
// nil otherwise, and always on systems without alternate data streams.
// This is what 7-Zip's -snz (since 22.00) and WinRAR do.
func ArchiveZone(path string) []byte {
	b, err := readZone(path)
	if err != nil {
		return nil
	}
	return propagateZone(b)
}

// propagateZone decides what the Zone.Identifier stream b of an archive
// gives its extracted files:
//
//   - nothing for an empty stream, or one whose ZoneId (in
//     [ZoneTransfer]) is below 3: the local machine (0), the intranet (1)
//     and trusted sites (2) are not the Internet, and Windows applies no
//     mark for them;
//   - the stream itself, byte for byte, for ZoneId 3 (Internet) and 4
//     (restricted sites), and for a stream that cannot be parsed (no
//     ZoneId line, a value that is not a number), which 7-Zip copies too:
//     a mark that cannot be read is still a mark;
//   - a plain Internet-zone stream for one longer than 64 KiB.
func propagateZone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if len(b) > maxZoneIdentifier {
		return internetZone
	}
	if id, ok := zoneID(b); ok && id < 3 {
		return nil
	}
	return b
}

// zoneID returns the ZoneId of a Zone.Identifier stream: the value of the
// first "ZoneId=" line of its [ZoneTransfer] section (or of a stream
// without sections), key and section names in any case, around spaces
// and a UTF-8 byte order mark. ok is false when there is none or it is
// not a number.
func zoneID(b []byte) (id int, ok bool) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	inTransfer := true // lines before any section count
	for line := range bytes.Lines(b) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] == '[' {
			inTransfer = bytes.EqualFold(line, []byte("[ZoneTransfer]"))
			continue
		}
		key, value, found := bytes.Cut(line, []byte("="))
		if !found || !inTransfer || !bytes.EqualFold(bytes.TrimSpace(key), []byte("ZoneId")) {
			continue
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		return n, err == nil
	}
	return 0, false
}
