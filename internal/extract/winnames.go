package extract

import "strings"

// isReservedWindowsName reports whether stem, a name up to its first dot
// with trailing spaces removed, is a device name Windows reserves in every
// directory ("CON.txt" and "con .log" open the console): CON, PRN, AUX,
// NUL, COM1–COM9 and LPT1–LPT9, COM and LPT with the superscript digits
// ¹, ² and ³ (which Windows reads as 1, 2 and 3), and CONIN$, CONOUT$ and
// CLOCK$, in any case. COM0 and LPT0, which Microsoft's naming rules
// list too, open no device and stay as they are.
func isReservedWindowsName(stem string) bool {
	u := strings.ToUpper(stem)
	switch u {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(u) < 4 || u[:3] != "COM" && u[:3] != "LPT" {
		return false
	}
	switch u[3:] {
	case "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}
