// Package pdn reads and writes game records in Portable Draughts Notation
// (PDN), the draughts form of chess's PGN, in the dialect for Italian
// Damone that docs/notation.md (PDN) describes: our squares and moves, our
// position text as FEN, and tags of our own for the variant's settings.
//
// Parse and ParseGame read the mainline of each game (moves as written,
// without move numbers, comments, annotations or variations), its tags and
// its result; Game.Variant reads the rule settings from the tags; Write
// and FromGame produce a record from the engine's side. The parser checks
// only the notation: whether the moves are legal is for the engine (see
// package validation).
package pdn

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/damone-rules/damone/internal/engine"
)

// Tag is one tag pair, [Name "Value"], with the value unescaped.
type Tag struct{ Name, Value string }

// Game is one game record.
type Game struct {
	// Tags are the tag pairs in the order written; names are unique.
	Tags []Tag
	// Moves are the mainline moves exactly as written (e.g. "e2-d3",
	// "f3xd5xb7", "f3xb7"), without move numbers, annotations or
	// variations. Each has the form of our move notation; whether it is
	// legal is not checked here.
	Moves []string
	// Result is the game termination token normalised to "1-0" (Red
	// wins), "0-1" (Black wins), "1/2-1/2" (draw) or "*" (unfinished);
	// the draughts forms 2-0, 0-2 and 1-1 read as 1-0, 0-1 and 1/2-1/2.
	// "" if the movetext has none.
	Result string
	// Comment is the text of the last {...} comment of the mainline after
	// its last move, with runs of white space made single spaces ("" if
	// none). Write puts it just before the result; FromGame puts the
	// ending there.
	Comment string
	// Line is the 1-based line of the input where the game starts (its
	// first tag pair or movetext token).
	Line int
}

// Tag returns the value of the tag pair with that name (names are case
// sensitive) and whether the game has it.
func (g *Game) Tag(name string) (string, bool) {
	for _, t := range g.Tags {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// SyntaxError is a place where the input is not PDN of this dialect.
// Line and Col are 1-based; Col counts characters (UTF-8 runes), and a
// byte order mark at the start does not count.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d, col %d: %s", e.Line, e.Col, e.Msg) }

// MaxVariationDepth bounds how deeply variations may nest; deeper input is
// refused rather than tracked without limit.
const MaxVariationDepth = 64

// Parse reads every game of a PDN file. Games are separated by their
// result tokens or by the tag pairs of the next game; blank lines,
// comments ({...} over any number of lines, ; to the end of the line),
// % escape lines, NAGs ($3, !, ?, !!, ??, !?, ?!), move numbers (1. and
// 1...) and variations (nested up to MaxVariationDepth) are skipped. A
// byte order mark at the start and CRLF line ends are accepted. A file
// with no game gives an empty slice.
//
// Errors: a *SyntaxError with the line and column of the first thing that
// is wrong (an unclosed comment, tag or variation, a malformed tag pair, a
// tag given twice in a game, a token that is neither a move of our
// notation, a move number, an annotation nor a result, a result that
// disagrees with the Result tag, nesting beyond MaxVariationDepth...); or
// the reader's error.
func Parse(r io.Reader) ([]Game, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return parse(string(src))
}

// ParseGame reads a text holding exactly one game (see Parse). No game,
// or more than one, is an error.
func ParseGame(text string) (Game, error) {
	gs, err := parse(text)
	if err != nil {
		return Game{}, err
	}
	switch len(gs) {
	case 1:
		return gs[0], nil
	case 0:
		return Game{}, fmt.Errorf("no game in the text (want one: tag pairs, then moves and a result)")
	}
	return Game{}, fmt.Errorf("%d games in the text, want exactly one (the second starts on line %d)", len(gs), gs[1].Line)
}

// resultForms maps each termination token accepted to its normal form.
var resultForms = map[string]string{
	"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "*": "*",
	"2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2",
}

// NormalizeResult returns the normal form of a termination token ("2-0"
// gives "1-0") and whether it is one.
func NormalizeResult(token string) (string, bool) {
	r, ok := resultForms[token]
	return r, ok
}

const resultHelp = "1-0, 0-1, 1/2-1/2 or *"

// pos is a place in the input.
type pos struct{ line, col int }

// scanner walks the input a rune at a time, keeping line and column.
type scanner struct {
	src       string
	i         int // byte offset of the next rune
	line, col int // of the next rune
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

func (s *scanner) here() pos { return pos{s.line, s.col} }

// peek returns the next rune without consuming it (utf8.RuneError for a
// byte that is not UTF-8, which counts as one column).
func (s *scanner) peek() rune {
	r, _ := utf8.DecodeRuneInString(s.src[s.i:])
	return r
}

// next consumes one rune. "\r\n" is one line end; a lone "\r" is one too.
func (s *scanner) next() rune {
	r, size := utf8.DecodeRuneInString(s.src[s.i:])
	s.i += size
	switch {
	case r == '\n', r == '\r' && (s.eof() || s.src[s.i] != '\n'):
		s.line++
		s.col = 1
	default:
		s.col++
	}
	return r
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

func isLineEnd(r rune) bool { return r == '\n' || r == '\r' }

// isDelimiter reports the runes that end a word of movetext.
func isDelimiter(r rune) bool {
	switch r {
	case '{', '}', '(', ')', '[', ']', ';', '"', '$', '!', '?':
		return true
	}
	return isSpace(r)
}

func syntaxErr(at pos, format string, args ...any) *SyntaxError {
	return &SyntaxError{at.line, at.col, fmt.Sprintf(format, args...)}
}

// parser holds the game being read.
type parser struct {
	s     scanner
	games []Game

	cur       *Game
	movetext  bool           // cur has a movetext token, so a tag pair starts the next game
	tagAt     map[string]pos // where each tag of cur was given
	comment   string         // the last mainline comment after the last move
	variation []pos          // where each open variation began, innermost last
}

func parse(src string) ([]Game, error) {
	p := &parser{s: scanner{src: strings.TrimPrefix(src, "\uFEFF"), line: 1, col: 1}}
	for {
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.s.eof() {
			break
		}
		at := p.s.here()
		var err error
		switch r := p.s.peek(); r {
		case '[':
			err = p.tagPair(at)
		case '{':
			err = p.braceComment(at)
		case ';':
			for !p.s.eof() && !isLineEnd(p.s.peek()) {
				p.s.next()
			}
		case '(':
			err = p.openVariation(at)
		case ')':
			p.s.next()
			if len(p.variation) == 0 {
				err = syntaxErr(at, "')' without an open variation")
			} else {
				p.variation = p.variation[:len(p.variation)-1]
			}
		case '$':
			err = p.nag(at)
		case '!', '?':
			err = p.suffixAnnotation(at)
		case '"':
			err = syntaxErr(at, `unexpected '"' outside a tag pair`)
		case ']':
			err = syntaxErr(at, "unexpected ']' (no tag pair is open)")
		case '}':
			err = syntaxErr(at, "unexpected '}' (no comment is open)")
		default:
			err = p.word(at)
		}
		if err != nil {
			return nil, err
		}
	}
	if n := len(p.variation); n > 0 {
		return nil, syntaxErr(p.variation[n-1], "variation opened here is never closed with ')'")
	}
	if err := p.finish("", pos{}); err != nil {
		return nil, err
	}
	if p.games == nil {
		p.games = []Game{}
	}
	return p.games, nil
}

// skipSpace skips white space and % escape lines (a line whose first
// character is %).
func (p *parser) skipSpace() error {
	for !p.s.eof() {
		r := p.s.peek()
		switch {
		case r == '%' && p.s.col == 1:
			for !p.s.eof() && !isLineEnd(p.s.peek()) {
				p.s.next()
			}
		case isSpace(r):
			p.s.next()
		default:
			return nil
		}
	}
	return nil
}

// begin starts a game at a token unless one is in progress.
func (p *parser) begin(at pos) {
	if p.cur == nil {
		p.cur = &Game{Line: at.line}
		p.tagAt = map[string]pos{}
		p.movetext, p.comment = false, ""
	}
}

// movetextToken marks the start of movetext in the current game.
func (p *parser) movetextToken(at pos) {
	p.begin(at)
	p.movetext = true
}

// finish ends the current game with its termination token (normal form,
// "" if none; at is where it stands) and checks it against the Result tag.
func (p *parser) finish(result string, at pos) error {
	g := p.cur
	if g == nil {
		return nil
	}
	if tv, ok := g.Tag("Result"); ok {
		tagAt := p.tagAt["Result"]
		norm, valid := NormalizeResult(strings.TrimSpace(tv))
		if !valid {
			return syntaxErr(tagAt, "Result tag %s is not a result (want %s)", engine.Quote(tv), resultHelp)
		}
		if result != "" && norm != result {
			return syntaxErr(at, "result %s disagrees with the Result tag %s (line %d)", result, engine.Quote(tv), tagAt.line)
		}
	}
	g.Result, g.Comment = result, p.comment
	p.games = append(p.games, *g)
	p.cur, p.tagAt = nil, nil
	return nil
}

// tagPair reads [Name "value"], on one line.
func (p *parser) tagPair(at pos) error {
	if len(p.variation) > 0 {
		v := p.variation[len(p.variation)-1]
		return syntaxErr(at, "tag pair inside a variation (opened on line %d, col %d)", v.line, v.col)
	}
	if p.cur != nil && p.movetext {
		// No result token closed the game before the next one's tags.
		if err := p.finish("", pos{}); err != nil {
			return err
		}
	}
	p.begin(at)
	s := &p.s
	s.next() // '['
	blanks := func() {
		for !s.eof() && (s.peek() == ' ' || s.peek() == '\t') {
			s.next()
		}
	}
	blanks()
	nameAt := s.here()
	start := s.i
	for !s.eof() {
		r := s.peek()
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			break
		}
		s.next()
	}
	name := s.src[start:s.i]
	if name == "" || !(name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		return syntaxErr(nameAt, "want a tag name (a letter, then letters, digits or '_') after '['")
	}
	blanks()
	if s.eof() || s.peek() != '"' {
		return syntaxErr(s.here(), "tag %s: want its value in double quotes", name)
	}
	s.next()
	var b strings.Builder
	for {
		if s.eof() || isLineEnd(s.peek()) {
			return syntaxErr(s.here(), "tag %s: value not closed with '\"' before the end of the line", name)
		}
		escAt, before := s.here(), s.i
		r := s.next()
		if r == '"' {
			break
		}
		if r == '\\' {
			if s.eof() || (s.peek() != '"' && s.peek() != '\\') {
				return syntaxErr(escAt, "tag %s: unknown escape in the value (only \\\" and \\\\; write a backslash as \\\\)", name)
			}
			before = s.i
			s.next()
		}
		// The bytes as written: text that is not UTF-8 stays as it was.
		b.WriteString(s.src[before:s.i])
	}
	blanks()
	if s.eof() || s.peek() != ']' {
		return syntaxErr(s.here(), "tag %s: want ']' after the value, on the same line", name)
	}
	s.next()
	if first, dup := p.tagAt[name]; dup {
		return syntaxErr(at, "tag %s given twice in one game (first on line %d); end each game with its result (%s)",
			name, first.line, resultHelp)
	}
	p.tagAt[name] = at
	p.cur.Tags = append(p.cur.Tags, Tag{name, b.String()})
	return nil
}

// braceComment reads {...}, which may span lines.
func (p *parser) braceComment(at pos) error {
	s := &p.s
	s.next() // '{'
	start := s.i
	for !s.eof() && s.peek() != '}' {
		s.next()
	}
	if s.eof() {
		return syntaxErr(at, "comment opened here is never closed with '}'")
	}
	text := s.src[start:s.i]
	s.next() // '}'
	if p.cur != nil && len(p.variation) == 0 {
		p.comment = strings.Join(strings.Fields(text), " ")
	}
	return nil
}

func (p *parser) openVariation(at pos) error {
	p.s.next()
	if len(p.variation) == 0 && (p.cur == nil || len(p.cur.Moves) == 0) {
		return syntaxErr(at, "a variation must follow the move it replaces; no move comes before it")
	}
	if len(p.variation) == MaxVariationDepth {
		return syntaxErr(at, "variations nested more than %d deep", MaxVariationDepth)
	}
	p.variation = append(p.variation, at)
	p.movetextToken(at)
	return nil
}

// nag reads $ and a number 0..255.
func (p *parser) nag(at pos) error {
	s := &p.s
	s.next()
	n, digits := 0, 0
	for !s.eof() && s.peek() >= '0' && s.peek() <= '9' {
		n = min(n*10+int(s.next()-'0'), 1000)
		digits++
	}
	if digits == 0 {
		return syntaxErr(at, "a NAG is '$' and a number, e.g. $1")
	}
	if n > 255 {
		return syntaxErr(at, "NAG number above 255")
	}
	p.movetextToken(at)
	return nil
}

// suffixAnnotation reads !, ?, !!, ??, !? or ?!.
func (p *parser) suffixAnnotation(at pos) error {
	s := &p.s
	start := s.i
	for !s.eof() && (s.peek() == '!' || s.peek() == '?') {
		s.next()
	}
	switch a := s.src[start:s.i]; a {
	case "!", "?", "!!", "??", "!?", "?!":
	default:
		return syntaxErr(at, "unknown annotation %s (want !, ?, !!, ??, !? or ?!)", engine.Quote(a))
	}
	p.movetextToken(at)
	return nil
}

// word reads a run of movetext up to a delimiter: a move number, a result
// or a move, or a move number glued to what follows it ("1.e2-d3").
func (p *parser) word(at pos) error {
	s := &p.s
	start := s.i
	for !s.eof() && !isDelimiter(s.peek()) {
		s.next()
	}
	w := s.src[start:s.i]
	for w != "" {
		rest, err := p.token(w, at)
		if err != nil {
			return err
		}
		at.col += utf8.RuneCountInString(w[:len(w)-len(rest)]) // only what was read: linear in the word
		w = rest
	}
	return nil
}

// token reads one token at the start of w and returns what follows it.
func (p *parser) token(w string, at pos) (string, error) {
	if res, ok := NormalizeResult(w); ok {
		if n := len(p.variation); n > 0 {
			v := p.variation[n-1]
			return "", syntaxErr(at, "result %s inside a variation (opened on line %d, col %d)", w, v.line, v.col)
		}
		p.movetextToken(at)
		return "", p.finish(res, at)
	}
	if w[0] >= '0' && w[0] <= '9' {
		d := 0
		for d < len(w) && w[d] >= '0' && w[d] <= '9' {
			d++
		}
		dots := 0
		for d+dots < len(w) && w[d+dots] == '.' {
			dots++
		}
		switch {
		case dots == 1 || dots == 3:
			p.movetextToken(at)
			return w[d+dots:], nil
		case dots > 0:
			return "", syntaxErr(at, "move number %s: want one dot (1.) or three (1...)", engine.Quote(w[:d+dots]))
		case strings.ContainsAny(w, "-x/"):
			return "", syntaxErr(at, "%s is neither a result (%s) nor a move: moves are written with squares, like e2-d3 or f3xd5xb7 (docs/notation.md); numbered squares are not read",
				engine.Quote(w), resultHelp)
		}
		return "", syntaxErr(at, "%s: a move number needs a '.' after it (1. or 1...)", engine.Quote(w))
	}
	if c := w[0] | 0x20; c >= 'a' && c <= 'z' {
		if err := checkMove(w); err != nil {
			return "", syntaxErr(at, "%s", err.Error())
		}
		if len(p.variation) == 0 {
			p.movetextToken(at)
			p.cur.Moves = append(p.cur.Moves, w)
			p.comment = ""
		}
		return "", nil
	}
	r, _ := utf8.DecodeRuneInString(w)
	return "", syntaxErr(at, "unexpected %s (want a move like e2-d3, a move number, a comment or a result: %s)", engine.Quote(string(r)), resultHelp)
}

// checkMove reports whether text is one move in our notation, written as
// one word of movetext.
func checkMove(text string) error {
	for _, r := range text {
		if isDelimiter(r) {
			return fmt.Errorf("%s is not a move: it holds %s", engine.Quote(text), engine.Quote(string(r)))
		}
	}
	if text == "" || !(text[0]|0x20 >= 'a' && text[0]|0x20 <= 'z') {
		return fmt.Errorf("%s is not a move (moves start with a square, like e2-d3)", engine.Quote(text))
	}
	if _, _, err := engine.ParseMoveSquares(text); err != nil {
		reason := err.Error()
		if me, ok := err.(*engine.MoveError); ok {
			reason = me.Reason
		}
		return fmt.Errorf("%s is not a move: %s", engine.Quote(text), reason)
	}
	return nil
}
