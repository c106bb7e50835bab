package opener

import (
	"github.com/garc-dev/garc/internal/rar"
	"github.com/garc-dev/garc/internal/sevenzip"
)

// The format readers the opener dispatches to.
var (
	newSevenZip = sevenzip.NewReader
	openRAR     = rar.OpenFile
	newRAR      = rar.NewReader
	streamRAR   = rar.NewStream
)
