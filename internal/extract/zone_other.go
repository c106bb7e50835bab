//go:build !windows

package extract

// readZone reads nothing: only Windows has alternate data streams.
func readZone(path string) ([]byte, error) { return nil, nil }

// namedStreams reports false: only Windows has alternate data streams.
func namedStreams(dir string) bool { return false }

// writeZone is never called here (namedStreams is false).
func writeZone(p string, zone []byte) error { return nil }
