package testenv

import "testing"

func TestRequireAll(t *testing.T) {
	t.Setenv("GARC_REQUIRE_ALL", "1")
	if !RequireAll() {
		t.Fatal("GARC_REQUIRE_ALL=1 not honoured")
	}
	t.Setenv("GARC_REQUIRE_ALL", "")
	if RequireAll() {
		t.Fatal("RequireAll without the variable")
	}
}
