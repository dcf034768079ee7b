package pdn

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/damone-rules/damone/internal/engine"
)

// The seven tags every exported game carries, in PDN's order, with the
// values that mean "unknown".
var sevenTags = []Tag{
	{"Event", "?"}, {"Site", "?"}, {"Date", "????.??.??"}, {"Round", "?"},
	{"White", "?"}, {"Black", "?"}, {"Result", "*"},
}

// lineWidth is the most characters Write puts on a movetext line.
const lineWidth = 79

// Write writes g as one PDN game record: the seven standard tags first
// (Event, Site, Date, Round, White, Black, Result; "?" and "????.??.??"
// for those g lacks), then g's other tags in order; a blank line; the
// movetext with move numbers ("1. e2-d3 f7-e6 2. ..."; "1... f7-e6" when
// Black moves first, as the tags' variant says, Red if they give none),
// in lines of at most 79 characters; g.Comment, if any, as a final
// {...} comment; and the result token. Every line ends in "\n"; write a
// blank line between games.
//
// The result is g.Result, else the Result tag's, else "*". Errors: a tag
// name that is not a letter then letters, digits and '_', a tag given
// twice, a value with a line break, a result that is not one, a Result tag
// that disagrees with g.Result, a move that is not our notation (as
// checkMove reads it), a comment holding '}'; or the writer's error.
func Write(w io.Writer, g *Game) error {
	res, err := checkGame(g)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, t := range sevenTags {
		v, ok := g.Tag(t.Name)
		switch {
		case t.Name == "Result":
			v = res
		case !ok:
			v = t.Value
		}
		writeTag(bw, t.Name, v)
	}
	for _, t := range g.Tags {
		if !isSevenTag(t.Name) {
			writeTag(bw, t.Name, t.Value)
		}
	}
	bw.WriteByte('\n')

	var units []string
	idx := 0 // plies counted from a Red move, so even indexes are Red's
	if firstMover(g) == engine.Black {
		idx = 1
	}
	for i, m := range g.Moves {
		switch {
		case idx%2 == 0:
			units = append(units, strconv.Itoa(idx/2+1)+". "+m)
		case i == 0:
			units = append(units, strconv.Itoa(idx/2+1)+"... "+m)
		default:
			units = append(units, m)
		}
		idx++
	}
	if words := strings.Fields(g.Comment); len(words) > 0 {
		// Whole if it fits on a line, else broken between words.
		if c := "{" + strings.Join(words, " ") + "}"; utf8.RuneCountInString(c) <= lineWidth {
			units = append(units, c)
		} else {
			words[0] = "{" + words[0]
			words[len(words)-1] += "}"
			units = append(units, words...)
		}
	}
	units = append(units, res)
	width := 0
	for i, u := range units {
		n := utf8.RuneCountInString(u)
		switch {
		case i == 0:
		case width+1+n > lineWidth:
			bw.WriteByte('\n')
			width = 0
		default:
			bw.WriteByte(' ')
			width++
		}
		bw.WriteString(u)
		width += n
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

func isSevenTag(name string) bool {
	for _, t := range sevenTags {
		if t.Name == name {
			return true
		}
	}
	return false
}

func writeTag(w *bufio.Writer, name, value string) {
	w.WriteString("[" + name + ` "`)
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			w.WriteByte('\\')
		}
		w.WriteByte(value[i])
	}
	w.WriteString("\"]\n")
}

// checkGame checks what Write needs of g and returns the result to write.
func checkGame(g *Game) (string, error) {
	seen := map[string]bool{}
	for _, t := range g.Tags {
		if !validTagName(t.Name) {
			return "", fmt.Errorf("tag name %s: want a letter, then letters, digits or '_'", engine.Quote(t.Name))
		}
		if seen[t.Name] {
			return "", fmt.Errorf("tag %s given twice", t.Name)
		}
		seen[t.Name] = true
		if strings.ContainsAny(t.Value, "\r\n") {
			return "", fmt.Errorf("tag %s: the value %s has a line break", t.Name, engine.Quote(t.Value))
		}
	}
	res := ""
	if g.Result != "" {
		r, ok := NormalizeResult(g.Result)
		if !ok {
			return "", fmt.Errorf("result %s: want %s", engine.Quote(g.Result), resultHelp)
		}
		res = r
	}
	if tv, ok := g.Tag("Result"); ok {
		r, valid := NormalizeResult(strings.TrimSpace(tv))
		switch {
		case !valid:
			return "", fmt.Errorf("Result tag %s: want %s", engine.Quote(tv), resultHelp)
		case res != "" && r != res:
			return "", fmt.Errorf("Result tag %s disagrees with the result %s", engine.Quote(tv), res)
		}
		res = r
	}
	if res == "" {
		res = "*"
	}
	for i, m := range g.Moves {
		if err := checkMove(m); err != nil {
			return "", fmt.Errorf("move %d: %v", i+1, err)
		}
	}
	if strings.Contains(g.Comment, "}") {
		return "", fmt.Errorf("comment %s holds '}', which would end it", engine.Quote(g.Comment))
	}
	return res, nil
}

func validTagName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return name != ""
}

// firstMover is the side the game's tags say moves first; Red when they
// give no valid variant.
func firstMover(g *Game) engine.Side {
	v, err := g.Variant()
	if err != nil {
		return engine.Red
	}
	p, err := v.InitialPosition()
	if err != nil {
		return engine.Red
	}
	return p.SideToMove()
}

// Result returns the termination token of an outcome: "1-0" Red wins,
// "0-1" Black wins, "1/2-1/2" a draw, "*" a game going on.
func Result(o engine.Outcome) string {
	switch o.Result {
	case engine.RedWins:
		return "1-0"
	case engine.BlackWins:
		return "0-1"
	case engine.Draw:
		return "1/2-1/2"
	}
	return "*"
}

// FromGame builds the record of a game played from the variant v: the
// seven standard tags ("?" for unknown, Result from the outcome), then
// GameType, SetUp "1" and FEN for a custom start or Setup and FirstPlayer
// otherwise, WinCondition, RepetitionDraw and NoProgressLimit, every one
// written out even at its default; moves in full notation (Move.String);
// the outcome as the result and, for a game that is over, its ending as
// the final comment (e.g. "red wins (stalemate)").
//
// tags replace the standard tags of the same name (Result excepted) and
// the rest are added after the variant's (a later one replacing an
// earlier one of the same name); a tag named like one of the variant's is
// dropped, since v decides those. Line is 0: the game has no input. FromGame does not check
// that the moves are legal; v should be valid (see
// engine.Variant.InitialPosition), and if it is not, Red is taken to move
// first.
func FromGame(v engine.Variant, moves []engine.Move, outcome engine.Outcome, tags ...Tag) *Game {
	g := &Game{Result: Result(outcome)}
	g.Tags = append(g.Tags, sevenTags...)
	var extra []Tag
	for _, t := range tags {
		switch {
		case t.Name == "Result", isVariantTag(t.Name):
		case isSevenTag(t.Name):
			for i := range g.Tags {
				if g.Tags[i].Name == t.Name {
					g.Tags[i].Value = t.Value
				}
			}
		default:
			if i := slices.IndexFunc(extra, func(e Tag) bool { return e.Name == t.Name }); i >= 0 {
				extra[i].Value = t.Value
			} else {
				extra = append(extra, t)
			}
		}
	}
	g.Tags[6].Value = g.Result

	first := v.FirstPlayer
	if p, err := v.InitialPosition(); err == nil {
		first = p.SideToMove()
	}
	g.Tags = append(g.Tags, Tag{TagGameType, GameType(first)})
	if v.Setup == engine.SetupCustom {
		g.Tags = append(g.Tags, Tag{TagSetUp, "1"}, Tag{TagFEN, v.Start.String()})
	} else {
		g.Tags = append(g.Tags, Tag{TagSetup, v.Setup.String()}, Tag{TagFirstPlayer, first.String()})
	}
	win := engine.CaptureAllPieces
	if v.WinCondition == engine.CaptureAllDamones {
		win = engine.CaptureAllDamones
	}
	rep := "off"
	if v.RepetitionDraw {
		rep = "on"
	}
	g.Tags = append(g.Tags, Tag{TagWinCondition, win.String()}, Tag{TagRepetitionDraw, rep},
		Tag{TagNoProgressLimit, strconv.Itoa(v.NoProgressLimit)})
	g.Tags = append(g.Tags, extra...)

	g.Moves = make([]string, len(moves))
	for i := range moves {
		g.Moves[i] = moves[i].String()
	}
	if outcome.Over() {
		g.Comment = outcome.String()
	}
	return g
}

func isVariantTag(name string) bool {
	switch name {
	case TagGameType, TagSetUp, TagFEN, TagSetup, TagFirstPlayer, TagWinCondition, TagRepetitionDraw, TagNoProgressLimit:
		return true
	}
	return false
}
