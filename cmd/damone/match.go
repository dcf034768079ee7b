package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/match"
	"github.com/damone-rules/damone/internal/players"
	"github.com/damone-rules/damone/internal/search"
)

type matchArgs struct {
	cfg        match.Config
	sprt       bool
	elo0, elo1 float64
	asJSON     bool
	progress   bool
	egtbDir    string
	inMemory   bool
}

// parseMatchArgs parses match's command line; help asked for goes to
// stdout.
func parseMatchArgs(args []string, stdout io.Writer) (*matchArgs, error) {
	fs := cli.NewFlags("match", stdout, `Usage: damone match [flags]

Plays --pairs game pairs between two players from a seeded set of openings
(distinct positions after --openings-plies random plies), colours swapped
within each pair, and reports W/D/L, pentanomial counts, score, Elo with a
95 % interval and, with --sprt, the log-likelihood ratio.

Players (KIND[:KEY=VALUE,...]):
  engine:movetime=100ms | engine:nodes=200000 | engine:depth=8 [,hash=MiB][,egtb=on][,contempt=N]
    (egtb=on: the engine searches with the tables of --egtb-dir; contempt: what a
    draw costs it unless clearly behind, in hundredths of a Pedine, 0..10000, default 25)
  random | greedy
  playout:movetime=100ms | playout:playouts=50 [,plies=20]`)
	p1 := fs.String("player1", "engine:movetime=100ms", "player 1 (see below)")
	p2 := fs.String("player2", "random", "player 2 (see below)")
	pairs := fs.Int("pairs", 100, "game pairs (each opening is played twice, colours swapped)")
	plies := fs.Int("openings-plies", 4, "random plies from the start that make an opening")
	pieces := fs.String("openings-pieces", "", "MIN-MAX: endgame openings, played on from each random opening by the engine at depth 3 to the first position with at most MAX pieces, kept with at least MIN and material level within a Pedine (e.g. 6-8)")
	seed := fs.Uint64("seed", 1, "seed of the openings and of the players' random choices")
	conc := fs.Int("concurrency", min(2, runtime.NumCPU()), "games played at once (goroutines)")
	sprt := fs.String("sprt", "", "report the SPRT log-likelihood ratio for H0: Elo=elo0 against H1: Elo=elo1, as ELO0,ELO1")
	maxPlies := fs.Int("max-plies", 1000, "adjudicate a game still going after this many plies as a draw")
	variant := fs.String("variant", "standard", "setup: standard or no-damone")
	asJSON := fs.Bool("json", false, "print the result as JSON (games included)")
	progress := fs.Bool("progress", false, "print a line per finished game to stderr")
	egtbDir := fs.String("egtb-dir", "", "endgame tables (damone egtb build): adjudicate a game at the first position they decide, exactly at its counter, and serve engines with egtb=on")
	inMemory := fs.Bool("egtb-in-memory", false, "with --egtb-dir: hold every table decompressed (a <= 5 set: about 2 GB), so an engine's search probes 5-piece positions as fast as 4-piece ones")
	adjudicate := fs.Bool("egtb-adjudicate", true, "with --egtb-dir: adjudicate by the tables (false: only engines with egtb=on use them)")
	if rest, err := fs.ParseArgs(args); err != nil {
		return nil, err
	} else if len(rest) != 0 {
		return nil, cli.Usagef("unexpected argument %q", rest[0])
	}
	a := &matchArgs{asJSON: *asJSON, progress: *progress, egtbDir: *egtbDir, inMemory: *inMemory}
	if *egtbDir == "" {
		adjSet := false
		fs.Visit(func(f *flag.Flag) { adjSet = adjSet || f.Name == "egtb-adjudicate" })
		if adjSet {
			return nil, cli.Usagef("--egtb-adjudicate needs --egtb-dir (the tables to adjudicate by)")
		}
		if *inMemory {
			return nil, cli.Usagef("--egtb-in-memory needs --egtb-dir (the tables to hold)")
		}
	}
	a.cfg.TablebaseAdjudication = *adjudicate && *egtbDir != ""
	var err error
	if a.cfg.Player1, err = players.ParseSpec(*p1); err != nil {
		return nil, cli.Usagef("--player1: %v", err)
	}
	if a.cfg.Player2, err = players.ParseSpec(*p2); err != nil {
		return nil, cli.Usagef("--player2: %v", err)
	}
	for i, sp := range []players.Spec{a.cfg.Player1, a.cfg.Player2} {
		if sp.Tables && *egtbDir == "" {
			return nil, cli.Usagef("--player%d: egtb=on needs --egtb-dir", i+1)
		}
	}
	if *pairs < 1 {
		return nil, cli.Usagef("--pairs must be at least 1")
	}
	if *plies < 0 {
		return nil, cli.Usagef("--openings-plies must not be negative")
	}
	if *conc < 1 {
		return nil, cli.Usagef("--concurrency must be at least 1")
	}
	if *pieces != "" {
		lo, hi, ok := strings.Cut(*pieces, "-")
		a0, err0 := strconv.Atoi(lo)
		a1, err1 := strconv.Atoi(hi)
		if !ok || err0 != nil || err1 != nil || a0 < 2 || a1 < a0 {
			return nil, cli.Usagef("--openings-pieces: want MIN-MAX with 2 <= MIN <= MAX, got %q", *pieces)
		}
		a.cfg.OpeningPieces = [2]int{a0, a1}
	}
	setup, err := engine.ParseSetup(*variant)
	if err != nil {
		return nil, cli.Usagef("--variant: %v", err)
	}
	v := engine.DefaultVariant()
	v.Setup = setup
	a.cfg.Variant, a.cfg.Pairs, a.cfg.OpeningPlies, a.cfg.Seed, a.cfg.Concurrency, a.cfg.MaxPlies =
		v, *pairs, *plies, *seed, *conc, *maxPlies
	if *sprt != "" {
		e0, e1, ok := strings.Cut(*sprt, ",")
		var err0, err1 error
		a.elo0, err0 = strconv.ParseFloat(strings.TrimSpace(e0), 64)
		a.elo1, err1 = strconv.ParseFloat(strings.TrimSpace(e1), 64)
		if !ok || err0 != nil || err1 != nil || a.elo0 == a.elo1 {
			return nil, cli.Usagef("--sprt: want ELO0,ELO1 with two different numbers, got %q", *sprt)
		}
		a.sprt = true
	}
	return a, nil
}

func runMatch(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	a, err := parseMatchArgs(args, stdout)
	if err != nil {
		return err
	}
	if a.egtbDir != "" {
		open := egtb.Open
		if a.inMemory {
			open = egtb.OpenInMemory
		}
		set, err := open(a.egtbDir)
		if err != nil {
			// A well-formed path to an unusable set is a failure (exit 1),
			// as for damone serve and analyze, not a usage error.
			return fmt.Errorf("--egtb-dir %s: %w", a.egtbDir, err)
		}
		a.cfg.Tables = set
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if a.progress {
		a.cfg.Progress = func(done, total int, g match.GameResult) {
			fmt.Fprintf(stderr, "game %d/%d: pair %d, player1 %s: %s in %d plies -> %.1f\n",
				done, total, g.Pair, g.P1Side, describeOutcome(g), g.Plies, g.Points)
		}
	}
	start := time.Now()
	res, runErr := match.Run(ctx, a.cfg)
	if res == nil {
		return runErr
	}
	elapsed := time.Since(start)
	if a.asJSON {
		out := struct {
			*match.Result
			Seed         uint64
			OpeningPlies int
			Elapsed      string
			LLR          *float64 `json:",omitempty"`
			Stats        jsonStats
		}{Result: res, Seed: a.cfg.Seed, OpeningPlies: a.cfg.OpeningPlies, Elapsed: elapsed.Round(time.Millisecond).String(),
			Stats: jsonStats{res.Stats.Score, res.Stats.ScoreLow, res.Stats.ScoreHigh, finite(res.Stats.Elo),
				finite(res.Stats.EloLow), finite(res.Stats.EloHigh), res.Stats.Degenerate}}
		if a.sprt {
			l := match.LLR(res.Penta, a.elo0, a.elo1)
			out.LLR = &l
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return runErr
	}
	writeMatchReport(stdout, a, res, elapsed)
	return runErr
}

// jsonStats writes infinite Elo values as ±1e9 (JSON has no infinity).
type jsonStats struct {
	Score, ScoreLow, ScoreHigh float64
	Elo, EloLow, EloHigh       float64
	Degenerate                 bool
}

func finite(x float64) float64 {
	switch {
	case math.IsInf(x, 1):
		return 1e9
	case math.IsInf(x, -1):
		return -1e9
	}
	return x
}

func describeOutcome(g match.GameResult) string {
	if g.Adjudicated {
		return "draw (max plies)"
	}
	if g.Tablebase {
		return g.Outcome.Result.String() + " (tablebase: " + g.TablebaseCategory + " for the side to move)"
	}
	return g.Outcome.String()
}

func fmtElo(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.1f", x)
}

func writeMatchReport(w io.Writer, a *matchArgs, res *match.Result, elapsed time.Duration) {
	st := res.Stats
	games := res.Wins + res.Draws + res.Losses
	name := func(sp players.Spec) string {
		if a.cfg.Tables != nil {
			return sp.NewWithTables(search.Tables(a.cfg.Tables)).Name()
		}
		return sp.New().Name()
	}
	fmt.Fprintf(w, "match: %s vs %s\n", name(a.cfg.Player1), name(a.cfg.Player2))
	endgame := ""
	if op := a.cfg.OpeningPieces; op != [2]int{} {
		endgame = fmt.Sprintf(", played on to %d-%d pieces", op[0], op[1])
	}
	fmt.Fprintf(w, "openings: %d distinct after %d random plies%s, seed %d; %d pairs, colours swapped; concurrency %d; %s\n",
		res.Openings, a.cfg.OpeningPlies, endgame, a.cfg.Seed, a.cfg.Pairs, a.cfg.Concurrency, elapsed.Round(time.Second))
	fmt.Fprintf(w, "games: %d  W/D/L (player1): %d/%d/%d  draw rate %.1f%%  avg plies %.1f\n",
		games, res.Wins, res.Draws, res.Losses, 100*float64(res.Draws)/float64(max(games, 1)), res.AvgPlies)
	if res.Draws > 0 {
		var parts []string
		for _, k := range []string{"repetition", "no progress", "max plies", "tablebase"} {
			if n := res.DrawReasons[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
		}
		fmt.Fprintf(w, "draws by: %s\n", strings.Join(parts, ", "))
	}
	if a.cfg.TablebaseAdjudication {
		fmt.Fprintf(w, "adjudicated by the tables (%s, up to %d pieces): %d games\n", a.egtbDir, a.cfg.Tables.Pieces(), res.Tablebase)
	}
	fmt.Fprintf(w, "pentanomial [0, 0.5, 1, 1.5, 2]: %v\n", res.Penta)
	fmt.Fprintf(w, "score: %.2f%% (95%% CI %.2f%% .. %.2f%%)\n", 100*st.Score, 100*st.ScoreLow, 100*st.ScoreHigh)
	fmt.Fprintf(w, "elo: %s (95%% CI %s .. %s)", fmtElo(st.Elo), fmtElo(st.EloLow), fmtElo(st.EloHigh))
	if st.Degenerate {
		fmt.Fprint(w, "  [every pair scored the same: exact bound, see docs/engine.md]")
	}
	fmt.Fprintln(w)
	if a.sprt {
		l := match.LLR(res.Penta, a.elo0, a.elo1)
		verdict := "continue"
		switch {
		case l >= match.SPRTUpper:
			verdict = "H1 accepted"
		case l <= match.SPRTLower:
			verdict = "H0 accepted"
		}
		fmt.Fprintf(w, "sprt: elo0 %g elo1 %g (alpha = beta = 0.05): LLR %.3f (bounds %.3f, %.3f): %s\n",
			a.elo0, a.elo1, l, match.SPRTLower, match.SPRTUpper, verdict)
	}
}
