//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package zstd

import "math/bits"

func leU64(v uint64) uint64 { return bits.ReverseBytes64(v) }
func leU32(v uint32) uint32 { return bits.ReverseBytes32(v) }
