package ppmd

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/garc-dev/garc/internal/archive"
)

// Limits of the model parameters.
const (
	MinOrder   = 2
	MaxOrder   = 64
	MinMemSize = 1 << 11           // smallest arena 7-Zip accepts
	MaxMemSize = 0xFFFFFFFF - 12*3 // largest arena 7-Zip accepts
)

const (
	maxFreq    = 124
	intBits    = 7
	periodBits = 7
	binScale   = 1 << (intBits + periodBits)
	stateSize  = 6
)

var expEscape = [16]uint8{25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2}

var initBinEsc = [8]uint16{0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051}

// see is a secondary-escape-estimation cell: an adaptive estimate of the
// escape frequency for contexts of one class.
type see struct {
	summ  uint16 // scaled escape frequency
	shift uint8  // adaptation speed; smaller shifts adapt faster
	count uint8  // symbols left until the shift grows
}

// Arena records (little endian, offsets into Model.mem):
//
//	state   (6 bytes):  Symbol u8, Freq u8, Successor u32
//	context (12 bytes): NumStats u16, SummFreq u16, Stats u32, Suffix u32
//
// A context with one symbol stores that state inline at offset 2, over
// SummFreq and Stats ("one state").

// Model is a PPMd var.H context model with its sub-allocator memory. It is
// created once and reused: Init restarts it, allocating only when a larger
// arena is needed. A Model is not safe for concurrent use.
type Model struct {
	mem   []byte        // the arena, len(mem) == size
	arena *arenaMapping // owns mem when it is mapped outside the heap
	size  uint32

	text, unitsStart, loUnit, hiUnit uint32
	glueCount                        uint32
	freeList                         [numIndexes]uint32

	minContext, maxContext, foundState uint32

	orderFall, initEsc, prevSuccess, maxOrder, hiBitsFlag uint32
	runLength, initRL                                     int32

	ready     bool // Init succeeded and no inconsistency was detected since
	hugePages bool // adviseHugePages was applied to mem

	ps [MaxOrder]uint32 // createSuccessors' scratch list of states

	dummySee see
	see      [25][16]see
	binSumm  [128][64]uint16
}

// NewModel returns an empty model; call Init before use.
func NewModel() *Model { return &Model{} }

// Init (re)starts the model with the given maximum order (2..64) and arena
// size in bytes (MinMemSize..MaxMemSize). The arena is reallocated only
// when memSize exceeds the capacity already held, so callers must check
// memSize against their memory limits first. Invalid parameters give an
// error wrapping archive.ErrFormat; a size the platform cannot address
// (above math.MaxInt) gives an *archive.LimitError.
//
// RAR 2.9–4.x stores the order as a 5-bit field: the caller derives
// order = field+1 and, when that exceeds 16, order = 16 + (order-16)*3
// (an order of 1 is invalid); the memory size is (MaxMB+1) << 20.
func (m *Model) Init(order int, memSize uint32) error {
	return m.init(order, memSize, true)
}

// init is Init; hugePages asks for the arena to be backed by transparent
// huge pages (see adviseHugePages), which pays only when the stream will
// touch a good part of the arena: every 2 MiB page touched is cleared
// whole.
func (m *Model) init(order int, memSize uint32, hugePages bool) error {
	if order < MinOrder || order > MaxOrder {
		m.ready = false
		return fmt.Errorf("ppmd: model order %d out of range %d..%d: %w", order, MinOrder, MaxOrder, archive.ErrFormat)
	}
	if memSize < MinMemSize || memSize > MaxMemSize {
		m.ready = false
		return fmt.Errorf("ppmd: model memory %d out of range %d..%d: %w", memSize, MinMemSize, uint32(MaxMemSize), archive.ErrFormat)
	}
	if uint64(memSize) > math.MaxInt {
		m.ready = false
		return &archive.LimitError{What: "PPMd memory", Need: int64(memSize), Limit: math.MaxInt}
	}
	if uint64(cap(m.mem)) < uint64(memSize) {
		m.mem, m.arena = nil, nil // let the old arena go before allocating the new one
		m.arena, m.mem = newArena(memSize)
		m.hugePages = false
	}
	if hugePages && !m.hugePages {
		adviseHugePages(m.mem)
		m.hugePages = true
	}
	m.mem = m.mem[:memSize]
	m.size = memSize
	m.maxOrder = uint32(order)
	m.initEsc = 0
	m.hiBitsFlag = 0
	m.restart()
	m.ready = true
	return nil
}

// MemSize returns the arena size set by the last Init (0 before).
func (m *Model) MemSize() uint32 { return m.size }

// Order returns the maximum order set by the last Init (0 before).
func (m *Model) Order() int { return int(m.maxOrder) }

// restart empties the arena and builds the initial model: one order-0
// context holding all 256 symbols with frequency 1.
func (m *Model) restart() {
	m.freeList = [numIndexes]uint32{}
	m.text = 0
	m.hiUnit = m.size
	m.unitsStart = m.hiUnit - m.size/8/unitSize*7*unitSize
	m.loUnit = m.unitsStart
	m.glueCount = 0

	m.orderFall = m.maxOrder
	rl := m.maxOrder
	if rl > 12 {
		rl = 12
	}
	m.initRL = -int32(rl) - 1
	m.runLength = m.initRL
	m.prevSuccess = 0

	m.hiUnit -= unitSize
	mc := m.hiUnit
	s := m.loUnit
	m.loUnit += 256 / 2 * unitSize
	m.minContext, m.maxContext = mc, mc
	m.foundState = s
	m.put16(mc, 256)
	m.put16(mc+2, 256+1)
	m.put32(mc+4, s)
	m.put32(mc+8, 0)
	st := statesAt(m.mem, s, 256)
	for i := 0; i < 256; i++ {
		e := st[i*stateSize : i*stateSize+stateSize]
		e[0] = byte(i)
		e[1] = 1
		e[2], e[3], e[4], e[5] = 0, 0, 0, 0
	}

	for i := range m.binSumm {
		for k := 0; k < 8; k++ {
			v := uint16(binScale - uint32(initBinEsc[k])/uint32(i+2))
			for j := k; j < 64; j += 8 {
				m.binSumm[i][j] = v
			}
		}
	}
	for i := range m.see {
		summ := uint16((5*i + 10) << (periodBits - 4))
		for k := range m.see[i] {
			m.see[i][k] = see{summ: summ, shift: periodBits - 4, count: 4}
		}
	}
	m.dummySee = see{summ: 0, shift: periodBits, count: 64}
}

// Record accessors.

func (m *Model) successor(s uint32) uint32 { return binary.LittleEndian.Uint32(stateAt(m.mem, s)[2:6]) }
func (m *Model) setSuccessor(s, v uint32)  { binary.LittleEndian.PutUint32(stateAt(m.mem, s)[2:6], v) }
func (m *Model) numStats(c uint32) uint32 {
	return uint32(binary.LittleEndian.Uint16(unitAt(m.mem, c)[0:2]))
}
func (m *Model) summFreq(c uint32) uint32 {
	return uint32(binary.LittleEndian.Uint16(unitAt(m.mem, c)[2:4]))
}
func (m *Model) stats(c uint32) uint32     { return binary.LittleEndian.Uint32(unitAt(m.mem, c)[4:8]) }
func (m *Model) suffix(c uint32) uint32    { return binary.LittleEndian.Uint32(unitAt(m.mem, c)[8:12]) }
func (m *Model) setStats(c, v uint32)      { m.put32(c+4, v) }
func (m *Model) setSummFreq(c, v uint32)   { m.put16(c+2, v) }
func (m *Model) copyState(dst, src uint32) { copy(m.mem[dst:dst+stateSize], m.mem[src:src+stateSize]) }

// unitAt, stateAt and statesAt return the context record (one unit), the
// state or the n states at offset off of the arena. The offset is widened
// to int before the end is computed: the bounds check is then a single
// comparison, where uint32 arithmetic, which may wrap, took a second one
// and a computed capacity.
func unitAt(mem []byte, off uint32) []byte {
	o := int(off)
	return mem[o : o+unitSize : o+unitSize]
}

func stateAt(mem []byte, off uint32) []byte {
	o := int(off)
	return mem[o : o+stateSize : o+stateSize]
}

func statesAt(mem []byte, off, n uint32) []byte {
	o := int(off)
	return mem[o : o+int(n)*stateSize]
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// swapWithPrevious swaps the state at offset s of mem with the state
// before it, as two loads and two stores of the 12 bytes: small enough to
// inline where a symbol moves up its list.
func swapWithPrevious(mem []byte, s uint32) {
	o := int(s) - stateSize
	b := mem[o : o+2*stateSize : o+2*stateSize]
	lo := binary.LittleEndian.Uint64(b[0:8])  // the previous state and 2 bytes of s's
	hi := binary.LittleEndian.Uint32(b[8:12]) // the rest of s's state
	binary.LittleEndian.PutUint64(b[0:8], lo>>48|uint64(hi)<<16|lo<<48)
	binary.LittleEndian.PutUint32(b[8:12], uint32(lo>>16))
}

// createSuccessors turns the raw successor of foundState (a pointer into
// the text) into real contexts: one new single-symbol context per suffix
// level whose state still points at the same text position. It returns
// the context following the current one, or 0 when memory ran out.
func (m *Model) createSuccessors() uint32 {
	mem := m.mem
	c := m.minContext
	fs := m.foundState
	upBranch := binary.LittleEndian.Uint32(stateAt(mem, fs)[2:6])
	fsym := mem[fs]
	ps := &m.ps // a field: a local array would be cleared on every call
	numPs := 0
	if m.orderFall != 0 {
		ps[numPs] = fs
		numPs++
	}
	ctx := unitAt(mem, c)
	for {
		suf := binary.LittleEndian.Uint32(ctx[8:12])
		if suf == 0 {
			break
		}
		c = suf
		ctx = unitAt(mem, c)
		var s uint32
		if binary.LittleEndian.Uint16(ctx[0:2]) != 1 {
			s = findState(mem, binary.LittleEndian.Uint32(ctx[4:8]), fsym)
		} else {
			s = c + 2
		}
		succ := binary.LittleEndian.Uint32(stateAt(mem, s)[2:6])
		if succ != upBranch {
			c = succ
			if numPs == 0 {
				return c
			}
			ctx = unitAt(mem, c)
			break
		}
		if numPs >= len(ps) {
			panic(errModelInvariant)
		}
		ps[numPs] = s
		numPs++
	}

	newSym := mem[upBranch]
	upBranch++
	var newFreq uint32
	if ns := uint32(binary.LittleEndian.Uint16(ctx[0:2])); ns == 1 {
		newFreq = uint32(ctx[3])
	} else {
		s := findState(mem, binary.LittleEndian.Uint32(ctx[4:8]), newSym)
		cf := uint32(mem[s+1]) - 1
		s0 := uint32(binary.LittleEndian.Uint16(ctx[2:4])) - ns - cf
		if 2*cf <= s0 {
			newFreq = 1 + b2u(5*cf > s0)
		} else {
			newFreq = 1 + (2*cf+s0-1)/(2*s0) + 1
		}
	}

	for numPs > 0 {
		c1 := m.allocContext()
		if c1 == 0 {
			return 0
		}
		r := unitAt(mem, c1)
		binary.LittleEndian.PutUint16(r[0:2], 1)
		r[2] = newSym
		r[3] = byte(newFreq)
		binary.LittleEndian.PutUint32(r[4:8], upBranch)
		binary.LittleEndian.PutUint32(r[8:12], c)
		numPs--
		p := ps[numPs]
		binary.LittleEndian.PutUint32(stateAt(mem, p)[2:6], c1)
		c = c1
	}
	return c
}

// findState returns the offset of the state for sym in the state list
// starting at s, which holds it in a consistent model (a broken one ends
// at the arena's bounds check).
func findState(mem []byte, s uint32, sym byte) uint32 {
	for mem[s] != sym {
		s += stateSize
	}
	return s
}

// updateModel adds the symbol just coded (foundState) to the contexts that
// escaped to it, creates successor contexts and moves to the next context.
func (m *Model) updateModel() {
	mem := m.mem
	fs := m.foundState
	fsym := mem[fs]
	ffreq := uint32(mem[fs+1])
	// The successor, the next symbol's context when it is one already,
	// or the text that createSuccessors reads: its cache miss starts
	// now, while the contexts before it are updated.
	succ := binary.LittleEndian.Uint32(stateAt(mem, fs)[2:6])
	prefetch(&mem[0], succ)

	if ffreq < maxFreq/4 {
		// Also credit the symbol in the next shorter context.
		//
		// createSuccessors, when it follows (at the maximum order, or
		// for a raw successor), starts from the symbol's state in this
		// same context, and the successor there is most often the
		// context it then reads (returns, or searches for the next
		// symbol): its record's miss starts here, the state being at
		// hand, instead of after the walk reached it.
		create := m.orderFall == 0 || succ <= m.text+1
		mc := m.minContext
		if c := binary.LittleEndian.Uint32(unitAt(mem, mc)[8:12]); c != 0 {
			ctx := unitAt(mem, c)
			if binary.LittleEndian.Uint16(ctx[0:2]) == 1 {
				if create {
					prefetch(&mem[0], binary.LittleEndian.Uint32(ctx[4:8]))
				}
				if ctx[3] < 32 {
					ctx[3]++
				}
			} else {
				s := binary.LittleEndian.Uint32(ctx[4:8])
				if mem[s] != fsym {
					s = findState(mem, s+stateSize, fsym)
					if mem[s+1] >= mem[s+1-stateSize] {
						swapWithPrevious(mem, s)
						s -= stateSize
					}
				}
				if create {
					prefetch(&mem[0], binary.LittleEndian.Uint32(stateAt(mem, s)[2:6]))
				}
				if mem[s+1] < maxFreq-9 {
					mem[s+1] += 2
					binary.LittleEndian.PutUint16(ctx[2:4], binary.LittleEndian.Uint16(ctx[2:4])+2)
				}
			}
		}
	}

	if m.orderFall == 0 {
		// At maximum order: the successor is raw; make it a real context.
		c := m.createSuccessors()
		m.minContext, m.maxContext = c, c
		if c == 0 {
			m.restart()
			return
		}
		m.setSuccessor(m.foundState, c)
		return
	}

	m.mem[m.text] = fsym
	m.text++
	if m.text >= m.unitsStart {
		m.restart()
		return
	}
	maxSuccessor := m.text

	minSuccessor := m.successor(fs)
	if minSuccessor != 0 {
		if minSuccessor <= maxSuccessor {
			// Raw successor: create the real context records.
			cs := m.createSuccessors()
			if cs == 0 {
				m.restart()
				return
			}
			minSuccessor = cs
		}
		m.orderFall--
		if m.orderFall == 0 {
			maxSuccessor = minSuccessor
			if m.maxContext != m.minContext {
				m.text--
			}
		}
	} else {
		// Only the root holds null successors: point it at the text.
		m.setSuccessor(fs, maxSuccessor)
		minSuccessor = m.minContext
	}

	mc := m.minContext
	c := m.maxContext
	m.minContext, m.maxContext = minSuccessor, minSuccessor
	if m.orderFall != 0 {
		// The next symbol ends in updateModel too, which reads the
		// suffix's states: their miss starts here, where few values are
		// live across the prefetch's call, not at the top of the coding
		// loop, where the call cost a spill and reload of its registers
		// for every symbol.
		m.touchStates(unitAt(mem, binary.LittleEndian.Uint32(unitAt(mem, minSuccessor)[8:12])))
	}
	if c == mc {
		return
	}

	mcCtx := unitAt(mem, mc)
	ns := uint32(binary.LittleEndian.Uint16(mcCtx[0:2]))
	fsFreq := uint32(mem[fs+1])
	s0 := uint32(binary.LittleEndian.Uint16(mcCtx[2:4])) - ns - (fsFreq - 1)

	// Add the symbol to every context between the longest one and the one
	// where it was found.
	for steps := 0; c != mc; steps++ {
		if c == 0 || steps > MaxOrder {
			panic(errModelInvariant)
		}
		ctx := unitAt(mem, c)
		ns1 := uint32(binary.LittleEndian.Uint16(ctx[0:2]))
		var sum uint32
		if ns1 != 1 {
			if ns1&1 == 0 {
				// The state vector is full: grow it by one unit.
				oldNU := ns1 >> 1
				i := u2i(oldNU)
				if i != u2i(oldNU+1) {
					ptr := m.allocUnits(i + 1)
					if ptr == 0 {
						m.restart()
						return
					}
					old := binary.LittleEndian.Uint32(ctx[4:8])
					copy(mem[ptr:ptr+oldNU*unitSize], mem[old:old+oldNU*unitSize])
					m.insertNode(old, i)
					binary.LittleEndian.PutUint32(ctx[4:8], ptr)
				}
			}
			sum = uint32(binary.LittleEndian.Uint16(ctx[2:4]))
			sum += b2u(2*ns1 < ns) + 2*(b2u(4*ns1 <= ns)&b2u(sum <= 8*ns1))
		} else {
			// Turn the one-state context into a two-state one.
			s := m.allocUnits(0)
			if s == 0 {
				m.restart()
				return
			}
			st := stateAt(mem, s)
			freq := uint32(ctx[3])
			st[0] = ctx[2]
			copy(st[2:6], ctx[4:8])
			binary.LittleEndian.PutUint32(ctx[4:8], s)
			if freq < maxFreq/4-1 {
				freq <<= 1
			} else {
				freq = maxFreq - 4
			}
			st[1] = byte(freq)
			sum = freq + m.initEsc + b2u(ns > 3)
		}

		s := binary.LittleEndian.Uint32(ctx[4:8]) + ns1*stateSize
		st := stateAt(mem, s)
		cf := 2 * (sum + 6) * fsFreq
		sf := s0 + sum
		st[0] = fsym
		binary.LittleEndian.PutUint16(ctx[0:2], uint16(ns1+1))
		binary.LittleEndian.PutUint32(st[2:6], maxSuccessor)
		if cf < 6*sf {
			cf = 1 + b2u(cf > sf) + b2u(cf >= 4*sf)
			sum += 3
		} else {
			cf = 4 + b2u(cf >= 9*sf) + b2u(cf >= 12*sf) + b2u(cf >= 15*sf)
			sum += cf
		}
		binary.LittleEndian.PutUint16(ctx[2:4], uint16(sum))
		st[1] = byte(cf)
		c = binary.LittleEndian.Uint32(ctx[8:12])
	}
}

// rescale halves the frequencies of minContext (keeping them sorted) and,
// in a maximum-order context, drops symbols whose frequency reaches 0.
func (m *Model) rescale() {
	mc := m.minContext
	stats := m.stats(mc)
	s := m.foundState

	// Move the found state to the front.
	if s != stats {
		var tmp [stateSize]byte
		copy(tmp[:], m.mem[s:s+stateSize])
		copy(m.mem[stats+stateSize:s+stateSize], m.mem[stats:s])
		copy(m.mem[stats:stats+stateSize], tmp[:])
		s = stats
	}

	sumFreq := uint32(m.mem[s+1])
	escFreq := m.summFreq(mc) - sumFreq
	adder := b2u(m.orderFall != 0)
	sumFreq = (sumFreq + 4 + adder) >> 1
	m.mem[s+1] = byte(sumFreq)

	n := m.numStats(mc)
	for i := uint32(1); i < n; i++ {
		s += stateSize
		freq := uint32(m.mem[s+1])
		escFreq -= freq
		freq = (freq + adder) >> 1
		sumFreq += freq
		m.mem[s+1] = byte(freq)
		if freq > uint32(m.mem[s+1-stateSize]) {
			// Insertion step: move the state up to keep the order.
			var tmp [stateSize]byte
			copy(tmp[:], m.mem[s:s+stateSize])
			s1 := s
			for {
				s1 -= stateSize
				if s1 == stats || freq <= uint32(m.mem[s1+1-stateSize]) {
					break
				}
			}
			copy(m.mem[s1+stateSize:s+stateSize], m.mem[s1:s])
			copy(m.mem[s1:s1+stateSize], tmp[:])
		}
	}

	if m.mem[s+1] == 0 {
		i := uint32(0)
		for {
			i++
			s -= stateSize
			if m.mem[s+1] != 0 {
				break
			}
		}
		escFreq += i
		numStats := n
		newNS := numStats - i
		m.put16(mc, newNS)
		n0 := (numStats + 1) >> 1
		if newNS == 1 {
			freq := uint32(m.mem[stats+1])
			for {
				escFreq >>= 1
				freq = (freq + 1) >> 1
				if escFreq <= 1 {
					break
				}
			}
			one := mc + 2
			m.copyState(one, stats)
			m.mem[one+1] = byte(freq)
			m.foundState = one
			m.insertNode(stats, u2i(n0))
			return
		}
		n1 := (newNS + 1) >> 1
		if n0 != n1 {
			i0, i1 := u2i(n0), u2i(n1)
			if i0 != i1 {
				if m.freeList[i1] != 0 {
					ptr := m.removeNode(i1)
					m.setStats(mc, ptr)
					copy(m.mem[ptr:ptr+n1*unitSize], m.mem[stats:stats+n1*unitSize])
					m.insertNode(stats, i0)
				} else {
					m.splitBlock(stats, i0, i1)
				}
			}
		}
	}
	m.setSummFreq(mc, sumFreq+escFreq-(escFreq>>1))
	m.foundState = m.stats(mc)
}

// makeEscFreq picks the SEE cell for minContext after numMasked symbols
// were excluded and returns it with the escape frequency to code with.
func (m *Model) makeEscFreq(numMasked uint32) (*see, uint32) {
	mc := m.minContext
	numStats := m.numStats(mc)
	if numStats == 256 {
		return &m.dummySee, 1
	}
	nonMasked := numStats - numMasked
	idx := b2u(nonMasked < m.numStats(m.suffix(mc))-numStats) +
		2*b2u(m.summFreq(mc) < 11*numStats) +
		4*b2u(numMasked > nonMasked) +
		m.hiBitsFlag
	sc := &m.see[ns2Indx[(nonMasked-1)&255]][idx&15]
	r := uint32(sc.summ >> sc.shift)
	sc.summ -= uint16(r)
	return sc, r + b2u(r == 0)
}

// seeUpdate is applied to the SEE cell after a symbol was found in the
// context it estimated.
func (sc *see) update() {
	if sc.shift < periodBits {
		sc.count--
		if sc.count == 0 {
			sc.summ <<= 1
			sc.count = uint8(3 << sc.shift)
			sc.shift++
		}
	}
}

// nextContext moves to the successor of foundState when it is a real
// context at maximum order, and updates the model otherwise.
func (m *Model) nextContext() {
	c := m.successor(m.foundState)
	if m.orderFall == 0 && c > m.text {
		m.minContext, m.maxContext = c, c
	} else {
		m.updateModel()
	}
}
