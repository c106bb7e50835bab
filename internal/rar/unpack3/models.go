package unpack3

import (
	"sync"

	"github.com/garc-dev/garc/internal/ppmd"
)

// models pools PPMd models with their arenas (up to 256 MiB, mapped outside
// the Go heap and cleared by the system page by page as they are first
// touched), so that a new Decoder per archive does not pay for a fresh
// arena. Model.Init rebuilds a model whatever it held.
var models sync.Pool

// getModel returns a pooled PPMd model or a new one.
func getModel() *ppmd.Model {
	if m, ok := models.Get().(*ppmd.Model); ok {
		return m
	}
	return ppmd.NewModel()
}

// putModel returns m to the pool.
func putModel(m *ppmd.Model) {
	if m != nil {
		models.Put(m)
	}
}
