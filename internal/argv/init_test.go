package argv

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

func TestMain(m *testing.M) {
	setTestCommands()
	os.Exit(m.Run())
}

// TestInitAllocatesNothing runs this test binary again, running no test,
// with GODEBUG=inittrace=1, and checks that the initialisation of this
// package allocates nothing: garc runs it in every process, and its switch
// tables are switch statements rather than maps built at start-up.
func TestInitAllocatesNothing(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init github\.com/garc-dev/garc/internal/argv @.*, (\d+) allocs$`).FindSubmatch(out)
	if line == nil {
		// A package with no initialisation work has no inittrace line.
		return
	}
	if string(line[1]) != "0" {
		t.Errorf("package initialisation: %s", line[0])
	}
}
