package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
)

func TestFormatScore(t *testing.T) {
	cases := map[search.Score]string{
		125: "+1.25", -40: "-0.40", 0: "+0.00",
		search.Win - 5: "win in 5 plies", -(search.Win - 4): "loss in 4 plies",
	}
	for s, want := range cases {
		if got := formatScore(s); got != want {
			t.Errorf("formatScore(%d) = %q, want %q", s, got, want)
		}
	}
}

func TestAnalyzeArgs(t *testing.T) {
	a, err := parseAnalyzeArgs(nil, strings.NewReader(""), &strings.Builder{})
	if err != nil || a.limits != (search.Limits{MoveTime: time.Second}) || a.lines != 1 {
		t.Fatalf("defaults: %+v %v", a, err)
	}
	a, err = parseAnalyzeArgs([]string{"--nodes", "5000", "--lines", "3", "--position", "R:RDe4:BPb1:0"}, nil, &strings.Builder{})
	if err != nil || a.limits != (search.Limits{Nodes: 5000}) || a.lines != 3 || a.pos.String() != "R:RDe4:BPb1:0" {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range [][]string{{"--lines", "0"}, {"--lines", "9"}, {"--infinite", "--depth", "3"}, {"--depth", "-1"}, {"extra"}} {
		if _, err := parseAnalyzeArgs(bad, nil, &strings.Builder{}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// Red Dama e4 against Black Pedine b1: e4-d3 wins in 3 plies (b1-c2 is
// forced, then d3xb1 takes the last piece).
func TestAnalyzeCommand(t *testing.T) {
	out, errOut, code := runCLI(t, "", "analyze", "--position", "R:RDe4:BPb1:0", "--depth", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "depth  3  score win in 3 plies") || !strings.Contains(out, "pv e4-d3 b1-c2 d3xb1") ||
		!strings.Contains(out, "best e4-d3  (score win in 3 plies at depth 3;") {
		t.Fatalf("output:\n%s", out)
	}
	out, _, code = runCLI(t, "", "analyze", "--position", "R:RDe4:BPb1:0", "--depth", "3", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last infoJSON
	if code != 0 || len(lines) != 4 || json.Unmarshal([]byte(lines[3]), &last) != nil {
		t.Fatalf("exit %d, %d JSON lines:\n%s", code, len(lines), out)
	}
	if !last.Final || last.Best != "e4-d3" || last.Depth != 3 || last.Lines[0].ScoreText != "win in 3 plies" {
		t.Fatalf("final %+v", last)
	}
	// A position without moves (h1's Pedine is blocked by g2): lost, no best move.
	out, _, code = runCLI(t, "", "analyze", "--position", "B:RDg2:BPh1:0", "--depth", "2")
	if code != 0 || !strings.Contains(out, "game over: red wins (stalemate)") || strings.Contains(out, "best ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestMatchArgs(t *testing.T) {
	a, err := parseMatchArgs([]string{"--player1", "engine:nodes=1000", "--player2", "greedy", "--pairs", "3", "--sprt", "0,5", "--seed", "9"}, &strings.Builder{})
	if err != nil || a.cfg.Player1.Nodes != 1000 || a.cfg.Player2.Kind != "greedy" || a.cfg.Pairs != 3 ||
		!a.sprt || a.elo0 != 0 || a.elo1 != 5 || a.cfg.Seed != 9 || a.cfg.Variant.Setup != engine.SetupStandard {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range [][]string{{"--player1", "alphazero"}, {"--pairs", "0"}, {"--sprt", "5"}, {"--sprt", "3,3"},
		{"--concurrency", "0"}, {"--player2", "random:nodes=3"}, {"--variant", "chess"}} {
		if _, err := parseMatchArgs(bad, &strings.Builder{}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// A tiny reproducible match: node-limited engine against random; the
// report has every section, and the same seed prints the same games.
func TestMatchCommand(t *testing.T) {
	args := []string{"match", "--player1", "engine:nodes=2000", "--player2", "random", "--pairs", "2", "--seed", "5", "--sprt", "0,100"}
	out, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"match: engine(nodes=2000) vs random", "games: 4", "pentanomial [0, 0.5, 1, 1.5, 2]: ", "score: ", "elo: ", "sprt: elo0 0 elo1 100"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in:\n%s", want, out)
		}
	}
	j1, _, _ := runCLI(t, "", append(args, "--json")...)
	j2, _, _ := runCLI(t, "", append(args, "--json", "--concurrency", "1")...)
	var r1, r2 struct{ Games []struct{ Moves []string } }
	if json.Unmarshal([]byte(j1), &r1) != nil || json.Unmarshal([]byte(j2), &r2) != nil || len(r1.Games) != 4 {
		t.Fatalf("bad JSON:\n%s", j1)
	}
	for i := range r1.Games {
		if strings.Join(r1.Games[i].Moves, " ") != strings.Join(r2.Games[i].Moves, " ") {
			t.Fatalf("game %d differs between runs", i)
		}
	}
}

// Piped input: a move on a light square and a backward Pedine step are
// explained; then a legal move is played and the engine replies.
func TestPlayWithPipedInput(t *testing.T) {
	in := "e2-e3\ne2-f1\nd1-c2\nquit\n"
	out, errOut, code := runCLI(t, in, "play", "--nodes", "1000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		" 1    .   P   D   M\n", // the start's first rank: b1 empty, d1 Pedine, f1 Dama, h1 Damone
		`illegal move "e2-e3" (malformed): `, "light square",
		`illegal move "e2-f1" (illegal): `, // f1 is occupied by Red's own Dama
		"you play d1-c2", "engine plays ",
		"game over after 2 plies: black wins (resignation) — the engine wins",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in:\n%s", want, out)
		}
	}
}

// The engine moves first when the human takes Black; input ending early
// abandons the game.
func TestPlayAsBlackInputEnds(t *testing.T) {
	out, _, code := runCLI(t, "", "play", "--side", "black", "--depth", "2")
	// The move is printed with the score and depth that proved it: the
	// standard start is not solved at depth 2, so both iterations finish.
	if code != 0 || !strings.Contains(out, "engine plays ") || !strings.Contains(out, " for the engine, depth 2, ") ||
		strings.Contains(out, "score ?") || !strings.Contains(out, "input ended: game abandoned") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, _, code := runCLI(t, "", "play", "--side", "green"); code != 2 {
		t.Fatalf("--side green: exit %d, want 2", code)
	}
}

// The same Dama e4 against Pedine b1 with a ≤ 2-piece set: the first
// ply cannot capture (the pieces are not adjacent) and Black's only
// reply b1-c2 neither captures (a Pedine may not take a Dama, RULES.md)
// nor promotes, so the next conversion is d3xb1 at ply 3: a win with
// DTC 3 and 80 − 0 − 3 = 77 plies to spare; at counter 78 the capture
// comes too late (78 + 3 > 80) and the tables call it a cursed win. A
// position with more pieces than the set holds gets no verdict.
func TestAnalyzeTablebaseVerdict(t *testing.T) {
	dir := t.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 2}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "analyze", "--position", "R:RDe4:BPb1:0", "--depth", "2", "--egtb-dir", dir)
	if code != 0 || !strings.Contains(out, "tablebase win, capture, promotion or end in 3 plies, 77 plies to spare\n") {
		t.Fatalf("exit %d %s:\n%s", code, errOut, out)
	}
	out, _, code = runCLI(t, "", "analyze", "--position", "R:RDe4:BPb1:78", "--depth", "2", "--egtb-dir", dir, "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last infoJSON
	if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Tablebase == nil {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if tb := last.Tablebase; tb.Category != "cursed-win" || tb.DTC != nil || tb.PliesToSpare != nil {
		t.Errorf("counter 78: %+v, want a cursed win without DTC", tb)
	}
	out, _, code = runCLI(t, "", "analyze", "--position", "R:RDe4,Dh1:BPb1:0", "--depth", "2", "--egtb-dir", dir)
	if code != 0 || strings.Contains(out, "tablebase") {
		t.Errorf("3 pieces, ≤ 2-piece set: exit %d:\n%s", code, out)
	}
	if _, _, code = runCLI(t, "", "analyze", "--position", "R:RDe4:BPb1:0", "--depth", "2", "--egtb-dir", t.TempDir()); code == 0 {
		t.Error("a directory without tables: exit 0")
	}
}

// A finished position is answered with its outcome, never searched
// (RULES.md, End of the game): Black to move with no pieces has lost;
// Red to move with no Black piece left (a custom start) has won; the
// no-progress count at the limit of 80 is a draw; under
// capture-all-Damones, Black to move with no Damone has lost.
func TestAnalyzeFinishedGame(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--position", "B:RPa8:B:0"}, "game over: red wins (all pieces captured)"},
		{[]string{"--position", "R:RPa8:B:0"}, "game over: red wins (all pieces captured)"},
		{[]string{"--position", "R:RDe4:BPb1:80"}, "game over: draw (no progress)"},
		{[]string{"--position", "B:RMh1,De4:BDb5:0", "--capture-all-damones"}, "game over: red wins (all damones captured)"},
	} {
		out, errOut, code := runCLI(t, "", append([]string{"analyze"}, c.args...)...)
		if code != 0 || !strings.Contains(out, c.want) || strings.Contains(out, "best ") {
			t.Errorf("analyze %v: exit %d, output:\n%s%s\nwant %q and no move", c.args, code, out, errOut, c.want)
		}
	}
	out, _, code := runCLI(t, "", "analyze", "--position", "R:RDe4:BPb1:80", "--json")
	if code != 0 || !strings.Contains(out, `"final":true`) || !strings.Contains(out, `"outcome":"draw (no progress)"`) || strings.Contains(out, `"best"`) {
		t.Errorf("analyze --json of a finished game: exit %d, output %s", code, out)
	}
	if _, errOut, code := runCLI(t, "", "play", "--movetime", "0"); code != 2 || !strings.Contains(errOut, "--movetime must be positive") {
		t.Errorf("play --movetime 0: exit %d, stderr %s; want a usage error", code, errOut)
	}
}
