package main

// damone-bench moves --pgbench: PostgreSQL's own benchmark against the
// database the postgres store uses, in the same rounds as the moves, so
// the store's moves/s can be read as a share of what the database does
// with its simplest transactions at that moment (issue 29).

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The pgbench scripts measured, in the order they run in a round.
const (
	pgbenchTPCB   = "tpcb-like"     // five statements a transaction
	pgbenchSimple = "simple-update" // -N: three, no branch or teller update
)

// pgbenchResult is one script's transactions per second, the mean of its
// rounds, and the store's concurrent moves/s over it.
type pgbenchResult struct {
	Script      string    `json:"script"`
	Clients     int       `json:"clients"`
	Scale       int       `json:"scale"`
	TPS         float64   `json:"tps"`
	RoundTPS    []float64 `json:"round_tps"`
	MovesOverIt float64   `json:"postgres_moves_per_sec_over_tps,omitempty"`
}

var pgbenchTPS = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)

// pgbencher runs one pgbench binary against one database.
type pgbencher struct {
	bin, dsn       string
	clients, scale int
}

// init creates pgbench's tables (pgbench -i) at the bencher's scale.
func (p *pgbencher) init(ctx context.Context) error {
	_, err := p.run(ctx, "-i", "-q", "-s", strconv.Itoa(p.scale), p.dsn)
	return err
}

// pgbenchMin is the shortest run of a script: pgbench's -T counts its
// clients' connecting too, which on a busy machine can take seconds.
const pgbenchMin = 10 * time.Second

// round runs script for window (whole seconds, at least pgbenchMin) with
// prepared statements and returns its tps, excluding connection time.
func (p *pgbencher) round(ctx context.Context, script string, window time.Duration) (float64, error) {
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(p.clients), "-j", "2", "-T", strconv.Itoa(int(max(window, pgbenchMin).Seconds()))}
	if script == pgbenchSimple {
		args = append(args, "-N")
	}
	out, err := p.run(ctx, append(args, p.dsn)...)
	if err != nil {
		return 0, err
	}
	m := pgbenchTPS.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench %s: no \"tps = \" line in its output:\n%s", script, tail(out, 10))
	}
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil || tps <= 0 {
		return 0, fmt.Errorf("pgbench %s: tps %q: no transaction made (output:\n%s)", script, m[1], tail(out, 10))
	}
	return tps, nil
}

func (p *pgbencher) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, p.bin, args...)
	cmd.Env = serverEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w; its output ends:\n%s", p.bin, strings.Join(args[:len(args)-1], " "), err, tail(out.Bytes(), 10))
	}
	return out.Bytes(), nil
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
