package rar

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// unix st_mode bits the RAR 1.5–4.x reader tests (archive.Entry.SetMode
// decodes the rest).
const (
	sIFMT  = 0o170000
	sIFLNK = 0o120000
)

// dosTime converts an MS-DOS date/time (local time) to time.
func dosTime(v uint32) time.Time {
	if v == 0 {
		return time.Time{}
	}
	sec := int(v&0x1f) * 2
	min := int(v>>5) & 0x3f
	hour := int(v>>11) & 0x1f
	day := int(v>>16) & 0x1f
	mon := int(v>>21) & 0x0f
	year := int(v>>25)&0x7f + 1980
	return time.Date(year, time.Month(mon), day, hour, min, sec, 0, time.Local)
}

// sizeString formats a dictionary size for Method strings.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprintf("%d", n)
}

// cp437 maps bytes 0x80–0xff of code page 437 to Unicode.
var cp437 = [128]rune{
	'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å',
	'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ',
	'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»',
	'░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐',
	'└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧',
	'╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀',
	'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩',
	'≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u00a0',
}

// legacyText decodes OEM/ANSI bytes: as UTF-8 when valid, else as CP437.
func legacyText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, 0, len(b))
	for _, c := range b {
		if c < 0x80 {
			r = append(r, rune(c))
		} else {
			r = append(r, cp437[c-0x80])
		}
	}
	return string(r)
}

// cp1252 maps bytes 0x80–0x9f of Windows-1252 to Unicode (0xa0–0xff are
// Latin-1).
var cp1252 = [32]rune{
	'€', '\u0081', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u008d', 'Ž', '\u008f',
	'\u0090', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u009d', 'ž', 'Ÿ',
}

// legacyName decodes a non-Unicode file name: UTF-8 when valid, else
// Windows-1252 (ansi) or CP437.
func legacyName(b []byte, ansi bool) string {
	if !ansi || utf8.Valid(b) {
		return legacyText(b)
	}
	r := make([]rune, 0, len(b))
	for _, c := range b {
		switch {
		case c < 0x80 || c >= 0xa0:
			r = append(r, rune(c))
		default:
			r = append(r, cp1252[c-0x80])
		}
	}
	return string(r)
}
