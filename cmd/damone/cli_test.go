package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// The counts are ../shared/perft.json's, worked out independently from
// RULES.md.
func TestPerftCommandReproducesReference(t *testing.T) {
	cases := []struct {
		args   []string
		depth5 uint64
		divide map[string]uint64
	}{
		{[]string{"perft", "--json", "--divide", "3"}, 0, map[string]uint64{
			"d1-c2": 78, "e2-d3": 92, "f1-g2": 48, "f3-e4": 85, "g4-f5": 92, "h1-g2": 48, "h3-g2": 48, "h5-g6": 78}},
		{[]string{"perft", "--json", "--first", "black", "--divide", "3"}, 0, map[string]uint64{
			"a4-b3": 78, "a6-b7": 48, "a8-b7": 48, "b5-c4": 92, "c6-d5": 85, "c8-b7": 48, "d7-e6": 92, "e8-f7": 78}},
		{[]string{"perft", "--json", "--variant", "no-damone", "--divide", "3"}, 0, map[string]uint64{
			"e2-d1": 80, "e2-d3": 78, "f1-g2": 48, "f3-e4": 86, "g4-f5": 78, "g4-h5": 80, "h1-g2": 48, "h3-g2": 48}},
		{[]string{"perft", "--json", "--threads", "2", "5"}, 42778, nil},
		{[]string{"perft", "--json", "--variant", "no-damone", "5"}, 39174, nil},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var rep struct {
			Levels []struct {
				Depth int
				Nodes uint64
			}
			Divide map[string]uint64
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if c.depth5 != 0 && rep.Levels[4].Nodes != c.depth5 {
			t.Errorf("%v: depth 5 = %d, want %d", c.args, rep.Levels[4].Nodes, c.depth5)
		}
		if c.divide != nil {
			if len(rep.Divide) != len(c.divide) {
				t.Errorf("%v: divide has %d moves, want %d", c.args, len(rep.Divide), len(c.divide))
			}
			for m, n := range c.divide {
				if rep.Divide[m] != n {
					t.Errorf("%v: divide %s = %d, want %d", c.args, m, rep.Divide[m], n)
				}
			}
		}
	}
}

func TestMovesCommand(t *testing.T) {
	// RULES.md, Promotion: the only legal move is c4xa6xc8.
	out, errOut, code := runCLI(t, "", "moves", "--position", "R:RPc4:BPb5,Pb7:0")
	if code != 0 || out != "c4xa6xc8\n" {
		t.Errorf("moves = %q (exit %d, %s), want c4xa6xc8", out, code, errOut)
	}
	// The duplicate loop, given as API-style JSON on stdin: one move.
	js := `{"side_to_move":"SIDE_RED","pieces":[{"square":"d3","side":"RED","rank":"DAMA"},
	{"square":"e4","side":"black","rank":"pedine"},{"square":"g4","side":"Black","rank":"RANK_PEDINE"},
	{"square":"g2","side":"SIDE_BLACK","rank":"pedine"},{"square":"e2","side":"black","rank":"Pedine"}]}`
	out, errOut, code = runCLI(t, js, "moves", "--position-json", "-")
	lines := strings.Fields(out)
	if code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "d3x") || !strings.HasSuffix(lines[0], "xd3") || len(lines[0]) != 14 {
		t.Errorf("moves of the loop = %q (exit %d, %s), want one four-capture loop from d3 back to d3", out, code, errOut)
	}
	// The standard start has 8 steps for Red (RULES.md setup, directions).
	out, _, _ = runCLI(t, "", "moves", "--json")
	var moves []struct{ Notation, Origin string }
	if err := json.Unmarshal([]byte(out), &moves); err != nil || len(moves) != 8 {
		t.Errorf("moves --json: %v, %d moves, want 8", err, len(moves))
	}
}

func TestCommandErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"perft"}, 2, "DEPTH"},
		{[]string{"perft", "x"}, 2, "DEPTH must be a whole number"},
		{[]string{"perft", "--variant", "chess", "2"}, 2, "unknown setup"},
		{[]string{"perft", "--position", "R:RMd4:BMa8", "2"}, 1, "light square"},
		{[]string{"moves", "--position", "R:RMh1:BMa8", "--position-json", "{}"}, 2, "not both"},
		{[]string{"moves", "--position-json", `{"side_to_move":"green"}`}, 1, "side_to_move"},
		{[]string{"moves", "--position-json", `{"side_to_move":"red","pieces":[{"square":"a1","side":"red","rank":"dama"}]}`}, 1, "pieces[0].square"},
		{[]string{"nonsense"}, 2, "unknown command"},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
