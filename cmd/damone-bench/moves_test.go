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
	// The target is for 64 games: at 4 it is reported, never met.
	if len(rep.Targets) != 1 || rep.Targets[0].Met || !strings.Contains(rep.Targets[0].Measured, "at 4 concurrent games") {
		t.Errorf("targets %+v", rep.Targets)
	}
}
