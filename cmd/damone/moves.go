package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/engine"
)

func runMoves(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("moves", stdout, `Usage: damone moves [flags]

Prints the legal moves of a position, one per line, in notation, sorted by
notation as the API's ListLegalMoves lists them.`)
	var pf positionFlags
	fs.StringVar(&pf.setup, "variant", "standard", "starting setup when no position is given: standard or no-damone")
	fs.StringVar(&pf.first, "first", "red", "side to move first in the setup: red or black")
	fs.StringVar(&pf.text, "position", "", "position text (docs/notation.md)")
	fs.StringVar(&pf.jsonText, "position-json", "", "structured position JSON ('-' reads stdin)")
	asJSON := fs.Bool("json", false, "print a JSON array of moves with their details")
	if pos, err := fs.ParseArgs(args); err != nil {
		return err
	} else if len(pos) != 0 {
		return cli.Usagef("unexpected argument %q", pos[0])
	}
	p, err := pf.resolve(stdin)
	if err != nil {
		return err
	}
	moves := p.LegalMoves()
	// In the API's order (RulesService.ListLegalMoves): by notation.
	slices.SortFunc(moves, func(a, b engine.Move) int { return strings.Compare(a.String(), b.String()) })
	if !*asJSON {
		for _, m := range moves {
			fmt.Fprintln(stdout, m.String())
		}
		return nil
	}
	type captured struct {
		Square string `json:"square"`
		Rank   string `json:"rank"`
	}
	type moveJSON struct {
		Notation  string     `json:"notation"`
		Origin    string     `json:"origin"`
		Landings  []string   `json:"landings"`
		Captured  []captured `json:"captured"`
		Rank      string     `json:"rank"`
		Promotion string     `json:"promotion,omitempty"`
	}
	out := make([]moveJSON, 0, len(moves))
	for _, m := range moves {
		mj := moveJSON{Notation: m.String(), Origin: m.From().String(), Rank: m.Rank().String(), Captured: []captured{}}
		for _, s := range m.Landings() {
			mj.Landings = append(mj.Landings, s.String())
		}
		for _, s := range m.Captured() {
			pc, _ := p.PieceAt(s)
			mj.Captured = append(mj.Captured, captured{s.String(), pc.Rank.String()})
		}
		if r, ok := m.Promotion(); ok {
			mj.Promotion = r.String()
		}
		out = append(out, mj)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
