package corpus_test

import (
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

func TestUnitsAndListings(t *testing.T) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(units) < 400 {
		t.Fatalf("only %d units", len(units))
	}
	listed := 0
	for _, u := range units {
		if len(u.Members) == 0 || u.Members[0] != u.Unit {
			t.Errorf("%s: members %q do not start with the unit", u.Unit, u.Members)
		}
		if u.Expected == "" {
			continue
		}
		l, err := corpus.Listing(root, u.Expected)
		if err != nil {
			t.Errorf("%s: %v", u.Unit, err)
		}
		if len(l) > 0 {
			listed++
		}
	}
	if listed < 300 {
		t.Errorf("only %d units with listings", listed)
	}
}
