package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
)

// fanoutDSN is a DSN of an empty schema of the test PostgreSQL
// (scripts/test-postgres), dropped after the test. CI must have one;
// elsewhere the test skips without it.
func fanoutDSN(t *testing.T) string {
	t.Helper()
	needServer(t)
	return pgtest.FreshDSN(t)
}

// checkFanout fails t unless both setups of a fanout report delivered
// events, timed them, lost and duplicated none, and read every replica's
// CPU.
func checkFanout(t *testing.T, out string, replicas int) {
	t.Helper()
	var rep fanoutReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Setups) != 2 || rep.Setups[0].Setup != fanoutReplicas || rep.Setups[1].Setup != fanoutSingle {
		t.Fatalf("setups %+v, want %s then %s", rep.Setups, fanoutReplicas, fanoutSingle)
	}
	for _, st := range rep.Setups {
		w := st.Watch
		if w == nil || w.Events == 0 || w.EventsPerSec <= 0 || w.Moves == 0 || w.Errors != 0 || w.Lost != 0 || w.Duplicated != 0 {
			t.Errorf("%s: %+v; want events and moves, none lost or duplicated, no errors", st.Setup, w)
			continue
		}
		if w.Deliveries == 0 || w.CommitBoundP50us <= 0 || w.MoveP50us <= 0 {
			t.Errorf("%s: %d deliveries timed, event_time p50 %v µs, MakeMove p50 %v µs", st.Setup, w.Deliveries, w.CommitBoundP50us, w.MoveP50us)
		}
		if len(st.Servers) != replicas {
			t.Errorf("%s: %d servers, want %d", st.Setup, len(st.Servers), replicas)
		}
	}
	// The replicas' watchers are on replicas 1 and up, so those spent CPU
	// on them; on its own, replica 0 served every watcher.
	if s := rep.Setups[0].Servers; len(s) == replicas && (s[0].Role != "moves" || s[1].Role != "watchers") {
		t.Errorf("%s roles %q, %q", fanoutReplicas, s[0].Role, s[1].Role)
	}
	if s := rep.Setups[1].Servers; len(s) == replicas && (s[0].Role != "moves and watchers" || s[0].CPUUsPerEvent <= 0) {
		t.Errorf("%s replica 0: %+v", fanoutSingle, s[0])
	}
}

// A replica that exits during the run fails it, exit 1, naming the
// replica, not only the watchers' errors it causes.
func TestFanoutReplicaExitFails(t *testing.T) {
	dsn := fanoutDSN(t)
	// Each replica is ended (SIGTERM) 5 s after it starts.
	wrapper := filepath.Join(t.TempDir(), "damone")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec timeout 5 "+serverBin+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("fanout", "--server-bin", wrapper, "--postgres-dsn", dsn, "--replicas", "2", "--watchers", "4", "--games", "2",
		"--duration", "6s", "--rounds", "1", "--warmup", "0s", "--drain", "1s")
	if code != 1 || !strings.Contains(errOut, "replica 0 (pid ") || !strings.Contains(errOut, "exited") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming replica 0 as exited\n%s", code, errOut, out)
	}
}

// Events lost or duplicated, no events, or errors fail the run.
func TestFanoutFailures(t *testing.T) {
	ok := func() *watchResult { return &watchResult{Events: 100, Moves: 4, Seconds: 1} }
	lost, dup, none, errs := ok(), ok(), ok(), ok()
	lost.Lost = 3
	dup.Duplicated = 1
	none.Events = 0
	errs.Errors, errs.FirstError = 2, "boom"
	for _, c := range []struct {
		watch *watchResult
		want  string
	}{
		{ok(), ""},
		{lost, "single: 3 event(s) lost, 0 duplicated"},
		{dup, "single: 0 event(s) lost, 1 duplicated"},
		{none, "single: no event delivered in 1.00s (4 moves)"},
		{errs, "single: 2 error(s), first: boom"},
	} {
		rep := &fanoutReport{Setups: []*fanoutSetup{{Setup: fanoutReplicas, Watch: ok()}, {Setup: fanoutSingle, Watch: c.watch}}}
		if got := strings.Join(rep.failures(), "; "); got != c.want {
			t.Errorf("failures = %q, want %q", got, c.want)
		}
	}
}

// A --postgres-dsn that does not parse is a usage error (exit 2), and
// one that reaches no database fails the run (exit 1) before any replica
// starts; either way the message names the flag, never the password.
func TestFanoutBadDSN(t *testing.T) {
	needServer(t)
	for _, c := range []struct {
		dsn  string
		code int
		want string
	}{
		{"not a dsn", 2, "--postgres-dsn: "},
		{"postgres://bench:s3cret@127.0.0.1:notaport/db", 2, "--postgres-dsn: "},
		{"postgres://bench:s3cret@127.0.0.1:1/db?sslmode=disable&connect_timeout=3", 1, "--postgres-dsn: cannot reach the database: "},
	} {
		start := time.Now()
		out, errOut, code := runCLI("fanout", "--server-bin", serverBin, "--postgres-dsn", c.dsn, "--replicas", "2", "--watchers", "4", "--games", "2",
			"--duration", "1s", "--rounds", "1", "--warmup", "0s", "--drain", "1s")
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Contains(errOut+out, "s3cret") {
			t.Errorf("--postgres-dsn %q: exit %d, stderr %q; want exit %d, %q, and no password", c.dsn, code, errOut, c.code, c.want)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("--postgres-dsn %q: answered after %v", c.dsn, took)
		}
	}
}
