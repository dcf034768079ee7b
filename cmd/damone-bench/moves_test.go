package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// serverBin is a damone binary built for the end-to-end tests, once.
var serverBin, serverBuildErr = "", error(nil)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "damone-bench-test-")
	if err == nil {
		serverBin = filepath.Join(dir, "damone")
		if out, err := exec.Command("go", "build", "-o", serverBin, "github.com/damone-rules/damone/cmd/damone").CombinedOutput(); err != nil {
			serverBuildErr = fmt.Errorf("go build ./cmd/damone: %v\n%s", err, out)
		}
	} else {
		serverBuildErr = err
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func needServer(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts damone serve; skipped with -short")
	}
	if serverBuildErr != nil {
		t.Fatal(serverBuildErr)
	}
}

// damone-bench moves runs against servers it starts (memory and
// embedded), plays legal moves only, and reports every scenario on every
// store: a functional test, the figures are not checked.
func TestMovesScenarios(t *testing.T) {
	needServer(t)
	out, errOut, code := runCLI("moves", "--server-bin", serverBin, "--json", "--games", "4",
		"--duration", "600ms", "--rounds", "2", "--warmup", "100ms", "--long-plies", "10,50", "--long-moves", "8")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep movesReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !slices.Equal(rep.Stores, []string{"memory", "embedded"}) {
		t.Errorf("stores %v, want memory and embedded", rep.Stores)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Scenario+"/"+r.Store)
		if r.Errors != 0 || r.Moves == 0 || r.CPUError != "" || r.ServerUsMove <= 0 {
			t.Errorf("%s on %s: %d moves, %d errors (%s), server %.1f µs/move (%s)", r.Scenario, r.Store, r.Moves, r.Errors, r.FirstError, r.ServerUsMove, r.CPUError)
		}
		if want := map[string]int{movesConcurrent: 4, movesAlone: 1}[r.Scenario]; r.Games != want {
			t.Errorf("%s on %s: %d games, want %d", r.Scenario, r.Store, r.Games, want)
		}
		if (r.Store == "embedded") != (r.RatioToMemory > 0) {
			t.Errorf("%s on %s: ratio to memory %v", r.Scenario, r.Store, r.RatioToMemory)
		}
	}
	if want := []string{"concurrent/memory", "concurrent/embedded", "alone/memory", "alone/embedded"}; !slices.Equal(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
	// The long game reached each ply exactly: 10, then 50 (after the 8
	// moves timed at 10).
	var plies []string
	for _, r := range rep.LongGame {
		plies = append(plies, fmt.Sprintf("%s@%d", r.Store, r.Ply))
		if r.Moves != 8 || r.P50us <= 0 {
			t.Errorf("long game on %s at %d: %d moves, p50 %v µs", r.Store, r.Ply, r.Moves, r.P50us)
		}
	}
	if want := []string{"memory@10", "memory@50", "embedded@10", "embedded@50"}; !slices.Equal(plies, want) {
		t.Errorf("long game %v, want %v", plies, want)
	}
	// The 64-game target at 4 games is reported, never met; the lone
	// game's is judged whatever the machine.
	if len(rep.Targets) != 2 || rep.Targets[0].Met || !strings.Contains(rep.Targets[0].Measured, "at 4 concurrent games") ||
		!strings.Contains(rep.Targets[1].Target, "one game alone") {
		t.Errorf("targets %+v", rep.Targets)
	}
}

// Issue 29's targets, judged at their thresholds.
func TestMovesTargets(t *testing.T) {
	res := func(sc, store string, ratio, usMove float64) *movesResult {
		return &movesResult{Scenario: sc, Store: store, Moves: 1000, RatioToMemory: ratio, ServerUsMove: usMove}
	}
	for _, c := range []struct {
		name  string
		games int
		r     *movesResult
		met   bool
	}{
		{"embedded 75.0 % at 64", 64, res(movesConcurrent, "embedded", 0.75, 150), true},
		{"embedded 74.9 % at 64", 64, res(movesConcurrent, "embedded", 0.749, 150), false},
		{"embedded 80 % at 32", 32, res(movesConcurrent, "embedded", 0.80, 150), false},
		{"embedded alone 50 %", 64, res(movesAlone, "embedded", 0.50, 900), true},
		{"embedded alone 49.9 %", 64, res(movesAlone, "embedded", 0.499, 900), false},
		{"postgres 200 µs/move at 64", 64, res(movesConcurrent, "postgres", 0.4, 200), true},
		{"postgres 201 µs/move at 64", 64, res(movesConcurrent, "postgres", 0.4, 201), false},
	} {
		got := checkMovesTargets(c.games, []*movesResult{res(movesConcurrent, "memory", 0, 100), c.r}, nil)
		if len(got) != 1 || got[0].Issue != 29 || got[0].Met != c.met {
			t.Errorf("%s: %+v, want one issue 29 check, met %v", c.name, got, c.met)
		}
	}
	// An embedded run with errors meets nothing.
	r := res(movesAlone, "embedded", 0.9, 900)
	r.Errors = 1
	if got := checkMovesTargets(64, []*movesResult{r}, nil); len(got) != 1 || got[0].Met {
		t.Errorf("with errors: %+v", got)
	}
}
