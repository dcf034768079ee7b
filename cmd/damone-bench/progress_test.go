package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
)

// startServe runs damone serve with args for the test and stops it after.
func startServe(t *testing.T, args ...string) *serverProc {
	t.Helper()
	needServer(t)
	srv, err := newServerProc(serverBin, filepath.Join(t.TempDir(), "serve.log"), append([]string{"--store", "memory"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.stop() })
	return srv
}

// The watch scenario on one connection, against a server whose stream
// limit the watchers fill exactly: the movers must not queue behind them.
// (Before the watchers had connections of their own it delivered 0
// events and exited 0.)
func TestLoadWatchAtTheStreamLimit(t *testing.T) {
	srv := startServe(t, "--max-streams-per-connection", "8")
	out, errOut, code := runCLI("load", "--grpc-addr", srv.grpcAddr, "--http-addr", srv.httpAddr, "--json",
		"--scenarios", "watch", "--watchers", "8", "--watch-games", "2", "--conns", "1", "--duration", "1s", "--warmup", "200ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if w := rep.Watch; w == nil || w.Events == 0 || w.Moves == 0 || w.EventsPerSec <= 0 || w.Errors != 0 {
		t.Fatalf("watch %+v; want events and moves, no errors", w)
	}
}
