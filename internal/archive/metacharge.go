package archive

// MetadataCharge charges many small allocations — entry records, names,
// header vectors — to a MemoryBudget before they are made, so that the
// number of entries an archive can make a reader hold is bounded by the
// memory limit. It takes at least MetadataChargeAhead bytes from the
// budget at a time and hands them out as credit, so that the budget's
// lock is not taken per entry. The zero value with a nil Budget charges
// nothing. It is not safe for concurrent use.
type MetadataCharge struct {
	// Budget is what the charges are taken from; nil charges nothing.
	Budget  *MemoryBudget
	charged int64 // handed out by Charge
	credit  int64 // taken from Budget ahead and not yet handed out
}

// MetadataChargeAhead is how much MetadataCharge takes from its budget at
// once when a charge needs more credit.
const MetadataChargeAhead = 64 << 10

// Charge takes n bytes. It reports false, taking nothing, when the budget
// cannot give them; the caller then reports a *LimitError naming what it
// was charging, with Need Charged()+n.
func (m *MetadataCharge) Charge(n int64) bool {
	if m.Budget == nil || n <= 0 {
		return true
	}
	if n > m.credit {
		take := max(n-m.credit, MetadataChargeAhead)
		if !m.Budget.TryAcquire(take) {
			if take = n - m.credit; !m.Budget.TryAcquire(take) {
				return false
			}
		}
		m.credit += take
	}
	m.credit -= n
	m.charged += n
	return true
}

// Charged returns the bytes handed out by Charge since the last Release.
func (m *MetadataCharge) Charged() int64 { return m.charged }

// Release gives everything taken from the budget back.
func (m *MetadataCharge) Release() {
	if m.Budget != nil {
		m.Budget.Release(m.charged + m.credit)
	}
	m.charged, m.credit = 0, 0
}
