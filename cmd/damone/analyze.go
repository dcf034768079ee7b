package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
)

type analyzeArgs struct {
	pos      engine.Position
	limits   search.Limits
	infinite bool
	lines    int
	hashMB   int
	asJSON   bool
	variant  engine.Variant
	egtbDir  string
}

// parseAnalyzeArgs parses analyze's command line; help asked for goes to
// stdout.
func parseAnalyzeArgs(args []string, stdin io.Reader, stdout io.Writer) (*analyzeArgs, error) {
	fs := cli.NewFlags("analyze", stdout, `Usage: damone analyze [flags]

Searches a position and prints one line per completed depth: depth, score
(Pedines for the side to move, or "win in N plies"/"loss in N plies"),
nodes, nodes/s, time and the principal variation; then the best move.
With --egtb-dir, a position the endgame tables hold first gets their
verdict: category, DTC and plies to spare under the no-progress rule.`)
	var pf positionFlags
	fs.StringVar(&pf.setup, "variant", "standard", "starting setup when no position is given: standard or no-damone")
	fs.StringVar(&pf.first, "first", "red", "side to move first in the setup: red or black")
	fs.StringVar(&pf.text, "position", "", "position text (docs/notation.md)")
	fs.StringVar(&pf.jsonText, "position-json", "", "structured position JSON ('-' reads stdin)")
	depth := fs.Int("depth", 0, "stop after this depth")
	nodes := fs.Int64("nodes", 0, "stop after this many nodes (reproducible)")
	movetime := fs.Duration("movetime", 0, "stop after this long (default 1s when no other limit is given)")
	infinite := fs.Bool("infinite", false, "search until interrupted (Ctrl-C prints the best move)")
	lines := fs.Int("lines", 1, fmt.Sprintf("principal variations to report (1..%d)", search.MaxLines))
	hash := fs.Int("hash", 64, "transposition table size in MiB")
	captureAll := fs.Bool("capture-all-damones", false, "win condition: capture all Damones")
	asJSON := fs.Bool("json", false, "print one JSON object per completed depth, then the result")
	egtbDir := fs.String("egtb-dir", "", "endgame tables to report the verdict from (built by damone egtb build)")
	if rest, err := fs.ParseArgs(args); err != nil {
		return nil, err
	} else if len(rest) != 0 {
		return nil, cli.Usagef("unexpected argument %q", rest[0])
	}
	if *depth < 0 || *nodes < 0 || *movetime < 0 {
		return nil, cli.Usagef("--depth, --nodes and --movetime must not be negative")
	}
	if *depth > search.MaxDepth {
		return nil, cli.Usagef("--depth must be at most %d", search.MaxDepth)
	}
	if *hash < 1 || *hash > 4096 {
		return nil, cli.Usagef("--hash must be 1..4096 MiB, got %d", *hash)
	}
	if *lines < 1 || *lines > search.MaxLines {
		return nil, cli.Usagef("--lines must be 1..%d", search.MaxLines)
	}
	if *infinite && (*depth > 0 || *nodes > 0 || *movetime > 0) {
		return nil, cli.Usagef("--infinite takes no other limit")
	}
	p, err := pf.resolve(stdin)
	if err != nil {
		return nil, err
	}
	a := &analyzeArgs{pos: p, limits: search.Limits{Depth: *depth, Nodes: *nodes, MoveTime: *movetime},
		infinite: *infinite, lines: *lines, hashMB: *hash, asJSON: *asJSON, variant: engine.DefaultVariant(), egtbDir: *egtbDir}
	if *captureAll {
		a.variant.WinCondition = engine.CaptureAllDamones
	}
	if !a.infinite && a.limits == (search.Limits{}) {
		a.limits.MoveTime = time.Second
	}
	return a, nil
}

// formatScore writes a score for people: "+1.25" Pedines for the side to
// move, or "win in N plies" / "loss in N plies" for forced results.
func formatScore(s search.Score) string {
	if n, forced := s.Plies(); forced {
		if s > 0 {
			return fmt.Sprintf("win in %d plies", n)
		}
		return fmt.Sprintf("loss in %d plies", n)
	}
	return fmt.Sprintf("%+.2f", float64(s)/100)
}

func pvString(pv []engine.Move) string {
	parts := make([]string, len(pv))
	for i := range pv {
		parts[i] = pv[i].String()
	}
	return strings.Join(parts, " ")
}

type lineJSON struct {
	Score     int      `json:"score"`
	ScoreText string   `json:"score_text"`
	PV        []string `json:"pv"`
}

type infoJSON struct {
	Depth         int        `json:"depth"`
	Nodes         int64      `json:"nodes"`
	NodesPerSec   int64      `json:"nodes_per_second"`
	ElapsedMillis float64    `json:"elapsed_ms"`
	Lines         []lineJSON `json:"lines"`
	Best          string     `json:"best,omitempty"`
	Final         bool       `json:"final,omitempty"`
	Tablebase     *tbJSON    `json:"tablebase,omitempty"`
	// Outcome is set, with Final and nothing searched, when the position
	// is already a finished game (RULES.md, End of the game).
	Outcome string `json:"outcome,omitempty"`
}

// tbJSON is the tables' verdict; dtc and plies_to_spare only when exact.
type tbJSON struct {
	Category     string `json:"category"`
	DTC          *int   `json:"dtc,omitempty"`
	PliesToSpare *int   `json:"plies_to_spare,omitempty"`
}

// tablebaseVerdict opens the set in dir and answers for the position; nil
// (no error) when the set does not hold it.
func tablebaseVerdict(dir string, p *engine.Position, v engine.Variant) (*tbJSON, error) {
	set, err := egtb.Open(dir)
	if err != nil {
		return nil, err
	}
	if !set.Has(v.WinCondition) || len(p.Pieces()) > set.Pieces() {
		return nil, nil
	}
	r, err := set.Report(p, v.WinCondition, v.NoProgressLimit)
	if errors.Is(err, egtb.ErrNotInTables) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	out := &tbJSON{Category: r.Answer.Category.String()}
	if r.Answer.HasDTC {
		d := r.Answer.DTC
		out.DTC = &d
	}
	if r.Spare >= 0 {
		sp := r.Spare
		out.PliesToSpare = &sp
	}
	return out, nil
}

func (t *tbJSON) String() string {
	s := "tablebase " + t.Category
	if t.DTC != nil {
		s += fmt.Sprintf(", capture, promotion or end in %d plies", *t.DTC)
	}
	if t.PliesToSpare != nil {
		s += fmt.Sprintf(", %d plies to spare", *t.PliesToSpare)
	}
	return s
}

func toInfoJSON(info search.Info) infoJSON {
	out := infoJSON{Depth: info.Depth, Nodes: info.Nodes, NodesPerSec: int64(info.NodesPerSecond()),
		ElapsedMillis: float64(info.Elapsed.Microseconds()) / 1000}
	for _, l := range info.Lines {
		pv := make([]string, len(l.PV))
		for i := range l.PV {
			pv[i] = l.PV[i].String()
		}
		out.Lines = append(out.Lines, lineJSON{int(l.Score), formatScore(l.Score), pv})
	}
	return out
}

func writeInfo(w io.Writer, info search.Info) {
	for k, l := range info.Lines {
		prefix := fmt.Sprintf("depth %2d", info.Depth)
		if len(info.Lines) > 1 {
			prefix += fmt.Sprintf(" line %d", k+1)
		}
		fmt.Fprintf(w, "%s  score %-16s nodes %10d  nps %9.0f  time %8s  pv %s\n", prefix, formatScore(l.Score),
			info.Nodes, info.NodesPerSecond(), info.Elapsed.Round(time.Millisecond), pvString(l.PV))
	}
}

func runAnalyze(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a, err := parseAnalyzeArgs(args, stdin, stdout)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return analyze(ctx, a, stdout)
}

func analyze(ctx context.Context, a *analyzeArgs, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	var tb *tbJSON
	if a.egtbDir != "" {
		var err error
		if tb, err = tablebaseVerdict(a.egtbDir, &a.pos, a.variant); err != nil {
			return err
		}
	}
	if !a.asJSON {
		fmt.Fprintf(stdout, "position %s\n", a.pos)
		if tb != nil {
			fmt.Fprintln(stdout, tb)
		}
	}
	// A finished game has no move to search (RULES.md, End of the game):
	// the same answer AnalyzePosition gives.
	if o := a.variant.PositionOutcome(&a.pos); o.Over() {
		if a.asJSON {
			return enc.Encode(infoJSON{Lines: []lineJSON{}, Final: true, Tablebase: tb, Outcome: o.String()})
		}
		_, err := fmt.Fprintf(stdout, "game over: %s\n", o)
		return err
	}
	s := search.NewSearcher(a.hashMB)
	// Touch the fresh table once: otherwise the first search pays a page
	// fault for nearly every probe of the lazily mapped memory.
	s.Clear()
	res := s.Search(ctx, a.pos, search.Options{Lines: a.lines, Variant: a.variant}, a.limits, func(info search.Info) {
		if a.asJSON {
			enc.Encode(toInfoJSON(info))
		} else {
			writeInfo(stdout, info)
		}
	})
	if a.asJSON {
		out := toInfoJSON(res.Info)
		out.Final = true
		out.Tablebase = tb
		if res.HasBest {
			out.Best = res.Best.String()
		}
		return enc.Encode(out)
	}
	// A position without a legal move ended above (Stalemate), so the
	// search has a best move here.
	sc := "?"
	if res.BestDepth > 0 {
		sc = formatScore(res.BestLine.Score)
	}
	_, err := fmt.Fprintf(stdout, "best %s  (score %s at depth %d; %d nodes, %s, %.0f nodes/s)\n", res.Best, sc, res.BestDepth,
		res.Info.Nodes, res.Info.Elapsed.Round(time.Millisecond), res.Info.NodesPerSecond())
	return err
}
