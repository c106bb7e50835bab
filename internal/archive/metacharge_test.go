package archive

import "testing"

// TestMetadataCharge: charges are taken from the budget ahead in
// MetadataChargeAhead steps, a charge the budget cannot give takes
// nothing, and Release gives back all that was taken.
func TestMetadataCharge(t *testing.T) {
	b := NewMemoryBudget(200 << 10)
	m := MetadataCharge{Budget: b}
	if !m.Charge(100) {
		t.Fatal("100 bytes refused")
	}
	if got := b.InUse(); got != MetadataChargeAhead {
		t.Fatalf("in use %d after the first small charge, want %d taken ahead", got, MetadataChargeAhead)
	}
	for range 1000 {
		if !m.Charge(10) {
			t.Fatal("small charge refused")
		}
	}
	if got := b.InUse(); got != MetadataChargeAhead {
		t.Fatalf("in use %d, want the credit to serve 10,100 bytes", got)
	}
	// More than the credit and the step: the rest of the need is taken.
	if !m.Charge(100 << 10) {
		t.Fatal("100 KiB refused")
	}
	if m.Charged() != 100+10*1000+100<<10 {
		t.Fatalf("charged %d", m.Charged())
	}
	before := b.InUse()
	if m.Charge(200 << 10) {
		t.Fatal("a charge above the limit accepted")
	}
	if b.InUse() != before || m.Charged() != 100+10*1000+100<<10 {
		t.Fatalf("a refused charge took memory: in use %d -> %d", before, b.InUse())
	}
	m.Release()
	if b.InUse() != 0 || m.Charged() != 0 {
		t.Fatalf("in use %d, charged %d after Release", b.InUse(), m.Charged())
	}
	var none MetadataCharge
	if !none.Charge(1 << 40) {
		t.Fatal("a charge without a budget refused")
	}
	none.Release()
}
