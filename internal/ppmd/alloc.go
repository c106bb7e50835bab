package ppmd

import "encoding/binary"

// Sub-allocator of the model arena.
//
// The arena m.mem is one byte slice addressed by uint32 offsets. Offset 0
// is the start of the text area, which never holds a unit, so 0 doubles as
// the null reference for successors, suffixes and free lists.
//
// Layout (offsets grow to the right):
//
//	[0, text)             bytes of the input already seen (raw successors point here)
//	[text, unitsStart)    free; units may be taken from the top end when all else fails
//	[unitsStart, loUnit)  state vectors and contexts, allocated upwards
//	[loUnit, hiUnit)      free gap
//	[hiUnit, size)        contexts, allocated downwards; the last unit is the root
//
// Memory is handed out in units of 12 bytes, in 38 size classes from 1 to
// 128 units. Freed blocks go to a singly linked free list per class whose
// link is kept in the first four bytes of the block.

const (
	unitSize   = 12
	numIndexes = 4 + 4 + 4 + 26 // size classes
)

var (
	// indx2Units[i] is the number of units in size class i.
	indx2Units [numIndexes]uint8
	// units2Indx[n-1] is the smallest class holding n units (1..128).
	units2Indx [128]uint8
	// ns2BSIndx maps a suffix context's NumStats-1 to a BinSumm column offset.
	ns2BSIndx [256]uint8
	// ns2Indx maps a number of unmasked symbols - 1 to a SEE row.
	ns2Indx [256]uint8
)

func init() {
	k := 0
	for i := 0; i < numIndexes; i++ {
		step := 4
		if i < 12 {
			step = i/4 + 1
		}
		for ; step > 0; step-- {
			units2Indx[k] = uint8(i)
			k++
		}
		indx2Units[i] = uint8(k)
	}
	ns2BSIndx[0] = 0
	ns2BSIndx[1] = 2
	for i := 2; i < 11; i++ {
		ns2BSIndx[i] = 4
	}
	for i := 11; i < 256; i++ {
		ns2BSIndx[i] = 6
	}
	for i := 0; i < 3; i++ {
		ns2Indx[i] = uint8(i)
	}
	m, step := 3, 1
	for i := 3; i < 256; i++ {
		ns2Indx[i] = uint8(m)
		step--
		if step == 0 {
			m++
			step = m - 2
		}
	}
}

func i2u(indx uint32) uint32 { return uint32(indx2Units[indx]) }

// u2i returns the size class for nu units, 1 <= nu <= 128.
func u2i(nu uint32) uint32 { return uint32(units2Indx[(nu-1)&127]) }

func (m *Model) get16(off uint32) uint32 {
	return uint32(binary.LittleEndian.Uint16(m.mem[off:]))
}

func (m *Model) put16(off, v uint32) {
	binary.LittleEndian.PutUint16(m.mem[off:], uint16(v))
}

func (m *Model) put32(off, v uint32) {
	binary.LittleEndian.PutUint32(m.mem[off:], v)
}

func (m *Model) insertNode(node, indx uint32) {
	binary.LittleEndian.PutUint32(unitAt(m.mem, node)[0:4], m.freeList[indx])
	m.freeList[indx] = node
}

func (m *Model) removeNode(indx uint32) uint32 {
	node := m.freeList[indx]
	m.freeList[indx] = binary.LittleEndian.Uint32(unitAt(m.mem, node)[0:4])
	return node
}

// splitBlock keeps the first i2u(newIndx) units of the block at ptr (of
// class oldIndx) and returns the rest to the free lists.
func (m *Model) splitBlock(ptr, oldIndx, newIndx uint32) {
	nu := i2u(oldIndx) - i2u(newIndx)
	ptr += i2u(newIndx) * unitSize
	i := u2i(nu)
	if i2u(i) != nu {
		i--
		k := i2u(i)
		m.insertNode(ptr+k*unitSize, nu-k-1)
	}
	m.insertNode(ptr, i)
}

// Free-block records used while gluing: a 16-bit stamp (0 = free) at +0,
// which overlays a context's NumStats or a state's Symbol/Freq (never 0 in
// a used block), the block length in units at +2 and the next record at +4.

// glueAhead is how many records ahead glueFreeBlocks' passes prefetch.
const glueAhead = 8

// glueFreeBlocks merges adjacent free blocks and redistributes them over
// the free lists.
func (m *Model) glueFreeBlocks() {
	m.glueCount = 255
	// A non-free stamp at loUnit stops a merge running into the gap.
	if m.loUnit != m.hiUnit {
		m.put16(m.loUnit, 1)
	}

	// Collect all free blocks into one list of records. The arena holds
	// at most maxNodes blocks; counting them guards against a cycle in a
	// broken model.
	//
	// Each record also gets, at +8 (a free block's unused bytes, as
	// 7-Zip's node keeps a back link there), the offset of the record
	// glueAhead places further down the list: the merge and fill passes
	// below prefetch it, so that their cache misses (the blocks lie all
	// over the arena) overlap instead of following one another. It is
	// only a hint: a prefetch never faults.
	maxNodes := m.size/unitSize + 1
	count := uint32(0)
	var ahead [glueAhead]uint32
	var n uint32
	for i := uint32(0); i < numIndexes; i++ {
		nu := i2u(i)
		next := m.freeList[i]
		m.freeList[i] = 0
		for next != 0 {
			if count++; count > maxNodes {
				panic(errModelInvariant)
			}
			node := next
			r := unitAt(m.mem, node)
			next = binary.LittleEndian.Uint32(r[0:4])
			binary.LittleEndian.PutUint16(r[0:2], 0)
			binary.LittleEndian.PutUint16(r[2:4], uint16(nu))
			binary.LittleEndian.PutUint32(r[4:8], n)
			k := count % glueAhead
			binary.LittleEndian.PutUint32(r[8:12], ahead[k])
			ahead[k] = node
			n = node
		}
	}
	head := n
	base := &m.mem[0]

	// Merge every block with the free blocks that follow it. prev is the
	// offset of the link field to patch, 0 meaning head. Blocks swallowed
	// by an earlier record get length 0; those met later in the walk are
	// unlinked, those met earlier are skipped by the fill pass below,
	// which walks in the same direction.
	var prev uint32
	for steps := uint32(0); n != 0; steps++ {
		if steps > count {
			panic(errModelInvariant)
		}
		node := n
		r := unitAt(m.mem, node)
		prefetch(base, binary.LittleEndian.Uint32(r[8:12]))
		nu := uint32(binary.LittleEndian.Uint16(r[2:4]))
		n = binary.LittleEndian.Uint32(r[4:8])
		if nu == 0 {
			if prev == 0 {
				head = n
			} else {
				m.put32(prev, n)
			}
			continue
		}
		prev = node + 4
		for {
			node2 := node + nu*unitSize
			nu2 := m.get16(node2 + 2)
			nu += nu2
			if m.get16(node2) != 0 || nu >= 0x10000 || nu2 == 0 {
				break
			}
			m.put16(node+2, nu)
			m.put16(node2+2, 0)
		}
	}

	// Refill the free lists.
	n = head
	for steps := uint32(0); n != 0; steps++ {
		if steps > count {
			panic(errModelInvariant)
		}
		node := n
		r := unitAt(m.mem, node)
		prefetch(base, binary.LittleEndian.Uint32(r[8:12]))
		nu := uint32(binary.LittleEndian.Uint16(r[2:4]))
		n = binary.LittleEndian.Uint32(r[4:8])
		if nu == 0 {
			continue
		}
		for ; nu > 128; nu -= 128 {
			m.insertNode(node, numIndexes-1)
			node += 128 * unitSize
		}
		i := u2i(nu)
		if i2u(i) != nu {
			i--
			k := i2u(i)
			m.insertNode(node+k*unitSize, nu-k-1)
		}
		m.insertNode(node, i)
	}
}

// allocUnitsRare is the slow path of allocUnits; it returns 0 when the
// arena is exhausted.
func (m *Model) allocUnitsRare(indx uint32) uint32 {
	if m.glueCount == 0 {
		m.glueFreeBlocks()
		if m.freeList[indx] != 0 {
			return m.removeNode(indx)
		}
	}
	i := indx
	for {
		i++
		if i == numIndexes {
			numBytes := i2u(indx) * unitSize
			m.glueCount--
			if m.unitsStart-m.text > numBytes {
				m.unitsStart -= numBytes
				return m.unitsStart
			}
			return 0
		}
		if m.freeList[i] != 0 {
			break
		}
	}
	block := m.removeNode(i)
	m.splitBlock(block, i, indx)
	return block
}

// allocUnits returns a block of class indx, or 0 when memory is exhausted.
func (m *Model) allocUnits(indx uint32) uint32 {
	if m.freeList[indx] != 0 {
		return m.removeNode(indx)
	}
	numBytes := i2u(indx) * unitSize
	if m.hiUnit-m.loUnit >= numBytes {
		r := m.loUnit
		m.loUnit += numBytes
		return r
	}
	return m.allocUnitsRare(indx)
}

// allocContext returns one unit for a context record, or 0.
func (m *Model) allocContext() uint32 {
	if m.hiUnit != m.loUnit {
		m.hiUnit -= unitSize
		return m.hiUnit
	}
	if m.freeList[0] != 0 {
		return m.removeNode(0)
	}
	return m.allocUnitsRare(0)
}
