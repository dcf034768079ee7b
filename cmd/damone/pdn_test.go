package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pdnSample holds five games, each judged by hand from RULES.md:
//  1. Black's b5xd3 takes Red's last piece: valid, over at ply 1.
//  2. e2-d3 b5-c4 d3xb5: legal steps and a capture, going on.
//  3. After e2-d3 b5-c4 Red must capture (d3xb5), so f3-e4 at ply 3 is
//     refused.
//  4. The game of 1 is over after b5xd3, so c4-b5 at ply 2 comes after
//     the end (and Red has no piece left anyway).
//  5. GameType 22 is Italian draughts: its rules are not ours.
var pdnSample = strings.Join([]string{
	`[Event "valid, over"]`, // line 1
	`[SetUp "1"]`,
	`[FEN "B:RPc4:BPb5:0"]`,
	`[Result "0-1"]`,
	``,
	`1... b5xd3 0-1`,
	``,
	`[Event "valid, going on"]`, // line 8
	`1. e2-d3 b5-c4 2. d3xb5 *`,
	``,
	`[Event "illegal"]`, // line 11
	`1. e2-d3 b5-c4 2. f3-e4 *`,
	``,
	`[Event "after the end"]`, // line 14
	`[FEN "B:RPc4:BPb5:0"]`,
	`1... b5xd3 2. c4-b5 0-1`,
	``,
	`[GameType "22"]`, // line 18
	`1. e2-d3 *`,
	``,
}, "\n")

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPdnValidateText(t *testing.T) {
	a := writeTemp(t, "a.pdn", pdnSample)
	bad := writeTemp(t, "b.pdn", "[Event \"x\"]\n1. e2-d3 {oops\n")
	missing := filepath.Join(t.TempDir(), "missing.pdn")
	out, errOut, code := runCLI(t, "", "pdn", "validate", a, bad, missing)
	if code != 1 || !strings.Contains(errOut, "2 invalid, 2 unreadable, 1 unreadable files") {
		t.Errorf("exit %d, stderr %q; want 1 and the counts", code, errOut)
	}
	want := []string{
		a + ":1: game 1: valid, 1 ply, black wins (all pieces captured) at ply 1",
		a + ":8: game 2: valid, 3 plies, not over",
		a + ":11: game 3: invalid at ply 3: move \"f3-e4\": a capture is compulsory (RULES.md, Captures); legal moves: d3xb5",
		a + ":14: game 4: invalid at ply 2: move \"c4-b5\": the game was already over (black wins (all pieces captured) at ply 1)",
		a + ":18: game 5: unreadable: tag GameType \"22\": GameType 22 is Italian draughts, another game; Italian Damone is GameType 90",
		bad + ":2:10: game 1: unreadable: comment opened here is never closed with '}'",
		missing + ": unreadable: open " + missing + ": no such file or directory",
		"3 files (1 unreadable), 6 games: 2 valid, 2 invalid, 2 unreadable",
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPdnValidateJSONAndStdin(t *testing.T) {
	a := writeTemp(t, "a.pdn", pdnSample)
	out, _, code := runCLI(t, "", "pdn", "validate", "--json", a)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		objs = append(objs, m)
	}
	if len(objs) != 6 {
		t.Fatalf("%d objects, want 5 games and a summary:\n%s", len(objs), out)
	}
	g1, g3, sum := objs[0], objs[2], objs[5]
	if g1["kind"] != "game" || g1["verdict"] != "valid" || g1["plies"] != 1.0 || g1["result"] != "0-1" {
		t.Errorf("game 1: %v", g1)
	}
	if e, _ := g1["ending"].(map[string]any); e["result"] != "black wins" || e["reason"] != "all pieces captured" || e["ply"] != 1.0 {
		t.Errorf("game 1 ending: %v", g1["ending"])
	}
	if g3["verdict"] != "invalid" || g3["illegal_ply"] != 3.0 || g3["illegal_move"] != "f3-e4" || g3["plies"] != 2.0 || g3["line"] != 11.0 {
		t.Errorf("game 3: %v", g3)
	}
	if sum["kind"] != "summary" || sum["games"] != 5.0 || sum["valid"] != 2.0 || sum["invalid"] != 2.0 || sum["unreadable"] != 1.0 ||
		sum["files"] != 1.0 || sum["unreadable_files"] != 0.0 {
		t.Errorf("summary: %v", sum)
	}

	// A syntax error as JSON, from stdin.
	out, _, code = runCLI(t, "1. e2-d3 zz *", "pdn", "validate", "--json", "-")
	var f map[string]any
	if err := json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &f); err != nil || code != 1 {
		t.Fatalf("%q: exit %d, %v", out, code, err)
	}
	if f["kind"] != "game" || f["game"] != 1.0 || f["verdict"] != "unreadable" || f["file"] != "stdin" || f["line"] != 1.0 || f["col"] != 10.0 || !strings.Contains(f["error"].(string), `"zz" is not a move`) {
		t.Errorf("syntax error object: %v", f)
	}

	// Every game valid: exit 0.
	out, errOut, code := runCLI(t, "1. e2-d3 b5-c4 2. d3xb5 *\n", "pdn", "validate", "-")
	if code != 0 || errOut != "" || out != "stdin:1: game 1: valid, 3 plies, not over\n1 file (0 unreadable), 1 game: 1 valid, 0 invalid, 0 unreadable\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestPdnUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pdn"}, 2, "want a subcommand"},
		{[]string{"pdn", "frob"}, 2, "unknown subcommand"},
		{[]string{"pdn", "--help"}, 0, "damone pdn validate"},
		{[]string{"pdn", "validate"}, 2, "at least one FILE"},
		{[]string{"pdn", "validate", "--nope", "x"}, 2, "flag provided but not defined"},
		{[]string{"pdn", "validate", "-", "-"}, 2, "given 2 times"},
		{[]string{"pdn", "validate", "--help"}, 0, "Exit status"},
		{[]string{"pdn", "validate", "--max-game-bytes", "0", "-"}, 2, "--max-game-bytes must be at least 1"},
		{[]string{"pdn", "export"}, 2, "want one game name"},
		{[]string{"pdn", "export", "k3v9"}, 2, "want games/ID"},
		{[]string{"pdn", "export", "--addr", "nope", "games/x"}, 2, "want host:port"},
		{[]string{"pdn", "export", "--help"}, 0, "ExportPdn"},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, "", c.args...)
		// Help asked for (exit 0) is on stdout, a usage mistake on stderr.
		got := errOut
		if c.code == 0 {
			got = out
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
}

// Files written by other programs (internal/pdn/testdata/README.md): each
// game gets its own verdict and the next one is read. The expected lines
// are read off the files by hand: where each game starts, and why it is
// not ours (its GameType, PDN's own FEN form, numbered squares).
func TestPdnValidateOtherPrograms(t *testing.T) {
	dir := filepath.Join("..", "..", "internal", "pdn", "testdata")
	intl := `tag GameType "20": GameType 20 is international draughts, another game; Italian Damone is GameType 90`
	cases := []struct {
		file string
		want []string
	}{
		{"fmjd-nk2003-amsterdam.pdn", []string{
			":1: game 1: unreadable: " + intl,
			":24: game 2: unreadable: " + intl,
			":47: game 3: unreadable: " + intl,
			"1 file (0 unreadable), 3 games: 0 valid, 0 invalid, 3 unreadable",
		}},
		{"lidraughts-export.pdn", []string{
			":1: game 1: unreadable: " + intl,
			"1 file (0 unreadable), 1 game: 0 valid, 0 invalid, 1 unreadable",
		}},
		{"russian-ussr1947.pdn", []string{
			`:1: game 1: unreadable: tag FEN "W:W29,30`, // PDN's FEN, not our position text
			`:17: game 2: unreadable: tag FEN "W:W29,30`,
			"1 file (0 unreadable), 2 games: 0 valid, 0 invalid, 2 unreadable",
		}},
		{"italian-campionato-2005.pdn", []string{
			`:8:4: game 1: unreadable: "21-17" is neither a result`,
			`:26:4: game 2: unreadable: "21-17" is neither a result`, // game 2 starts on line 19
			"1 file (0 unreadable), 2 games: 0 valid, 0 invalid, 2 unreadable",
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			out, _, code := runCLI(t, "", "pdn", "validate", path)
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if code != 1 || len(got) != len(c.want) {
				t.Fatalf("exit %d, output:\n%s\nwant exit 1 and %d lines", code, out, len(c.want))
			}
			for i, w := range c.want {
				if i < len(c.want)-1 {
					w = path + w
				}
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("line %d: %q\nwant it to start %q", i+1, got[i], w)
				}
			}
		})
	}
}

// One bad game spoils no other: a Result tag against the result token, a
// tag given twice, and a stray byte order mark where two files were
// joined. The verdicts are worked out by hand: the broken games are
// unreadable with their line and column, the others are judged.
func TestPdnValidateOneBadGame(t *testing.T) {
	src := strings.Join([]string{
		`[Event "disagrees"]`, // 1
		`[Result "1-0"]`,
		`1. e2-d3 0-1`, // 3: result 0-1 at col 10
		``,
		`[Event "fine"]`, // 5
		`1. e2-d3 b5-c4 2. d3xb5 *`,
		``,
		`[Event "twice"]`, // 8
		`[Event "again"]`, // 9: the second Event
		`[Round "1"]`,
		`1. e2-d3 *`,
		"\uFEFF[Event \"after a BOM\"]", // 12
		`1. e2-d3 b5-c4 *`,
		``,
	}, "\n")
	out, _, code := runCLI(t, src, "pdn", "validate", "-")
	want := strings.Join([]string{
		`stdin:3:10: game 1: unreadable: result 0-1 disagrees with the Result tag "1-0" (line 2)`,
		`stdin:5: game 2: valid, 3 plies, not over`,
		`stdin:9:1: game 3: unreadable: tag Event given twice in one game (first on line 8); end each game with its result (1-0, 0-1, 1/2-1/2 or *)`,
		`stdin:12: game 4: valid, 2 plies, not over`,
		`1 file (0 unreadable), 4 games: 2 valid, 0 invalid, 2 unreadable`,
	}, "\n") + "\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, output:\n%s\nwant exit 1 and:\n%s", code, out, want)
	}
	out, _, _ = runCLI(t, src, "pdn", "validate", "--json", "-")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum pdnCounts
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Games != 4 || sum.Valid != 2 || sum.Unreadable != 2 || sum.Invalid != 0 {
		t.Errorf("JSON summary %+v (%v), want 4 games, 2 valid, 2 unreadable", sum, err)
	}
}
