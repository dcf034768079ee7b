package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/engine"
)

func runPerft(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("perft", stdout, `Usage: damone perft [flags] DEPTH

Counts the leaf nodes of the legal-move tree at depths 1..DEPTH (distinct
moves, no game-over rule but 'no legal move'), with time and nodes/s.`)
	var pf positionFlags
	fs.StringVar(&pf.setup, "variant", "standard", "starting setup: standard or no-damone")
	fs.StringVar(&pf.first, "first", "red", "side to move first in the setup: red or black")
	fs.StringVar(&pf.text, "position", "", "start from this position text (docs/notation.md) instead of a setup")
	fs.StringVar(&pf.jsonText, "position-json", "", "start from this structured position JSON ('-' reads stdin)")
	divide := fs.Bool("divide", false, "print the count under each first move at DEPTH")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	threads := fs.Int("threads", 1, "split the first moves over this many goroutines (0 = one per CPU)")
	pos, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("want exactly one DEPTH argument, got %d", len(pos))
	}
	depth, err := strconv.Atoi(pos[0])
	if err != nil || depth < 1 || depth > 30 {
		return cli.Usagef("DEPTH must be a whole number 1..30, got %q", pos[0])
	}
	if *threads < 0 {
		return cli.Usagef("--threads must be 0 or more, got %d", *threads)
	}
	if *threads == 0 {
		*threads = runtime.NumCPU()
	}
	start, err := pf.resolve(stdin)
	if err != nil {
		return err
	}

	type level struct {
		Depth          int     `json:"depth"`
		Nodes          uint64  `json:"nodes"`
		Seconds        float64 `json:"seconds"`
		NodesPerSecond float64 `json:"nodes_per_second"`
	}
	type report struct {
		Position string            `json:"position"`
		Levels   []level           `json:"levels"`
		Divide   map[string]uint64 `json:"divide,omitempty"`
	}
	rep := report{Position: start.String()}
	for d := 1; d <= depth; d++ {
		t0 := time.Now()
		entries := parallelDivide(&start, d, *threads)
		var n uint64
		for _, e := range entries {
			n += e.Nodes
		}
		el := time.Since(t0).Seconds()
		rep.Levels = append(rep.Levels, level{d, n, el, float64(n) / max(el, 1e-9)})
		if d == depth && *divide {
			rep.Divide = make(map[string]uint64, len(entries))
			for _, e := range entries {
				rep.Divide[e.Move.String()] = e.Nodes
			}
		}
		if !*asJSON {
			fmt.Fprintf(stdout, "depth %2d  nodes %14d  time %9.3fs  %12.0f nodes/s\n", d, n, el, float64(n)/max(el, 1e-9))
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if *divide {
		keys := make([]string, 0, len(rep.Divide))
		for k := range rep.Divide {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(stdout, "\ndivide at depth %d:\n", depth)
		for _, k := range keys {
			fmt.Fprintf(stdout, "%-12s %d\n", k, rep.Divide[k])
		}
		fmt.Fprintf(stdout, "%d moves\n", len(keys))
	}
	return nil
}

// parallelDivide runs Divide with the first moves shared among workers.
func parallelDivide(p *engine.Position, depth, threads int) []engine.DivideEntry {
	if threads <= 1 {
		return engine.Divide(p, depth)
	}
	moves := p.LegalMoves()
	out := make([]engine.DivideEntry, len(moves))
	var wg sync.WaitGroup
	next := make(chan int)
	for range threads {
		wg.Go(func() {
			for i := range next {
				child := p.After(&moves[i])
				out[i] = engine.DivideEntry{Move: moves[i], Nodes: engine.Perft(&child, depth-1)}
			}
		})
	}
	for i := range moves {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
