package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// damone match --egtb-dir: an engine asking for the tables needs the flag;
// a missing set is an error naming the flag; with a set the report counts
// the games the tables adjudicated and names the engine that uses them.
func TestMatchEgtbFlags(t *testing.T) {
	base := []string{"match", "--player2", "random", "--pairs", "1", "--seed", "5"}
	_, errOut, code := runCLI(t, "", append(base, "--player1", "engine:nodes=500,egtb=on")...)
	if code != 2 || !strings.Contains(errOut, "--player1: egtb=on needs --egtb-dir") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// A path to no set is a runtime failure (exit 1), as with damone serve
	// and analyze; the message names the flag, the directory and the fault.
	none := filepath.Join(t.TempDir(), "none")
	_, errOut, code = runCLI(t, "", append(base, "--player1", "engine:nodes=500", "--egtb-dir", none)...)
	if code != 1 || !strings.Contains(errOut, "--egtb-dir "+none+": ") || !strings.Contains(errOut, "missing") {
		t.Fatalf("missing set: exit %d: %s; want 1 naming --egtb-dir %s and what is missing", code, errOut, none)
	}
	// --egtb-adjudicate (either value) has nothing to act on without the
	// tables: a usage error naming both flags, not silently ignored.
	for _, v := range []string{"--egtb-adjudicate", "--egtb-adjudicate=false", "--egtb-adjudicate=true"} {
		_, errOut, code = runCLI(t, "", append(base, "--player1", "engine:nodes=500", v)...)
		if code != 2 || !strings.Contains(errOut, "--egtb-adjudicate") || !strings.Contains(errOut, "--egtb-dir") {
			t.Errorf("%s without --egtb-dir: exit %d: %s; want 2 naming both flags", v, code, errOut)
		}
	}
	_, errOut, code = runCLI(t, "", append(base, "--player1", "engine:nodes=500", "--egtb-in-memory")...)
	if code != 2 || !strings.Contains(errOut, "--egtb-in-memory needs --egtb-dir") {
		t.Errorf("--egtb-in-memory without --egtb-dir: exit %d: %s; want 2 naming both flags", code, errOut)
	}
	dir := t.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 2, Win: []engine.WinCondition{engine.CaptureAllPieces}}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "", append(base, "--player1", "engine:nodes=500,egtb=on", "--egtb-dir", dir, "--egtb-in-memory")...); code != 0 {
		t.Fatalf("--egtb-in-memory: exit %d: %s", code, errOut)
	}
	out, errOut, code := runCLI(t, "", append(base, "--player1", "engine:nodes=500,egtb=on", "--egtb-dir", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"match: engine(nodes=500,egtb) vs random", "adjudicated by the tables (" + dir + ", up to 2 pieces): "} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
