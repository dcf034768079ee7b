package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakePgbench writes a script that prints out as pgbench would, and
// records its arguments.
func fakePgbench(t *testing.T, out string) (bin, argsFile string) {
	dir := t.TempDir()
	bin, argsFile = filepath.Join(dir, "pgbench"), filepath.Join(dir, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" > " + argsFile + "\ncat <<'END'\n" + out + "\nEND\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, argsFile
}

func TestPgbenchRoundReadsTPS(t *testing.T) {
	bin, argsFile := fakePgbench(t, "transaction type: <builtin: simple update>\nnumber of transactions actually processed: 12345\ntps = 1234.567890 (without initial connection time)")
	p := &pgbencher{bin: bin, dsn: "postgres://x/db", clients: 64, scale: 10}
	tps, err := p.round(context.Background(), pgbenchSimple, 2*time.Second)
	if err != nil || tps != 1234.56789 {
		t.Fatalf("round = %v, %v; want 1234.56789", tps, err)
	}
	args, _ := os.ReadFile(argsFile)
	if got, want := strings.TrimSpace(string(args)), "-n -M prepared -c 64 -j 2 -T 10 -N postgres://x/db"; got != want {
		t.Errorf("pgbench run as %q, want %q", got, want)
	}
}

// A run that made no transaction prints no tps line: an error quoting
// pgbench's output, never a rate of 0.
func TestPgbenchRoundWithoutTransactionsFails(t *testing.T) {
	bin, _ := fakePgbench(t, "number of transactions actually processed: 0\nnumber of failed transactions: 0 (NaN%)")
	p := &pgbencher{bin: bin, dsn: "postgres://x/db", clients: 64, scale: 10}
	if tps, err := p.round(context.Background(), pgbenchTPCB, 20*time.Second); err == nil || !strings.Contains(err.Error(), "actually processed: 0") {
		t.Fatalf("round = %v, %v; want an error quoting the output", tps, err)
	}
}
