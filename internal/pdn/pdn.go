// Package pdn reads and writes game records in Portable Draughts Notation
// (PDN), the draughts form of chess's PGN, in the dialect for Italian
// Damone that docs/notation.md (PDN) describes: our squares and moves, our
// position text as FEN, and tags of our own for the variant's settings.
//
// Reader reads a stream game by game in bounded memory, each game on its
// own verdict; Parse and ParseGame read a text held in memory. Each gives
// the mainline of each game (moves as written, without move numbers,
// comments, annotations or variations), its tags and its result; Game.Variant reads the rule settings from the tags; Write
// and FromGame produce a record from the engine's side. The parser checks
// only the notation: whether the moves are legal is for the engine (see
// package validation).
package pdn

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
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

// DefaultMaxGameBytes is the default bound on one game's text in a Reader:
// real games take a few kilobytes, comments included, so a megabyte is far
// above any of them and bounds what one game holds in memory.
const DefaultMaxGameBytes = 1 << 20

// LimitError ends a Reader's stream: a game longer than its bound. The
// reader cannot tell where such a game ends without holding it, so the
// rest of the input is not read.
type LimitError struct {
	Line int   // where the game starts
	Max  int64 // the bound, in bytes
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the game from line %d is longer than %d bytes, the limit on one game; the rest of the input is not read", e.Line, e.Max)
}

// Reader reads the games of a PDN stream one at a time, holding only the
// game being read (at most MaxGameBytes of its text) and a small buffer.
//
// Next gives each game on its own verdict: a game that is not PDN of this
// dialect is a *SyntaxError, and the reader goes on at the next game's
// tag section, so one broken game does not hide the others. A game whose
// tags name another game (e.g. GameType 20, international draughts) or
// otherwise give no variant is read for its tags only: its movetext, in
// that game's notation, is skipped, and Game.Variant gives the verdict.
type Reader struct {
	// MaxGameBytes bounds one game's text, from the end of the game
	// before it (blank lines and comments between games included) to its
	// end; <= 0 means DefaultMaxGameBytes. A longer game ends the stream
	// with a *LimitError.
	MaxGameBytes int64

	p   parser
	err error // sticky: the stream's end (io.EOF) or a fatal error
}

// NewReader returns a Reader of r; it reads r through its own buffer.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{}
	rd.p.s = scanner{br: bufio.NewReaderSize(r, 64<<10), line: 1, col: 1, bomFree: true}
	return rd
}

// Next returns the next game. Errors: a *SyntaxError for a game that
// cannot be read (the next call reads on from the next game's tags);
// io.EOF at the end; a *LimitError or the underlying reader's error, which
// end the stream (every later call returns it again).
func (r *Reader) Next() (Game, error) {
	if r.err != nil {
		return Game{}, r.err
	}
	p := &r.p
	p.s.max = r.MaxGameBytes
	if p.s.max <= 0 {
		p.s.max = DefaultMaxGameBytes
	}
	p.s.from, p.s.fromLine = p.s.n, p.s.line
	g, err := p.next()
	if p.s.err != nil {
		// A fatal error overrides whatever it cut short.
		r.err = p.s.err
		return Game{}, r.err
	}
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			p.resync()
			if p.s.err != nil {
				r.err = p.s.err
			}
			return Game{}, se
		}
		r.err = err
		return Game{}, err
	}
	if g == nil {
		r.err = io.EOF
		return Game{}, io.EOF
	}
	return *g, nil
}

// Parse reads every game of a PDN text held in memory, all or nothing:
// the first game that cannot be read is the error. Games are separated by
// their result tokens or by the tag pairs of the next game; blank lines,
// comments ({...} over any number of lines, ; to the end of the line),
// % escape lines, NAGs ($3, !, ?, !!, ??, !?, ?!), move numbers (1. and
// 1...) and variations (nested up to MaxVariationDepth) are skipped. Byte
// order marks and CRLF line ends are accepted. A text with no game gives
// an empty slice. Streams of any size are for Reader.
//
// Errors: a *SyntaxError with the line and column of the first thing that
// is wrong (an unclosed comment, tag or variation, a malformed tag pair, a
// tag given twice in a game, a token that is neither a move of our
// notation, a move number, an annotation nor a result, a result that
// disagrees with the Result tag, nesting beyond MaxVariationDepth...); or
// the reader's error.
func Parse(r io.Reader) ([]Game, error) {
	rd := NewReader(r)
	rd.MaxGameBytes = math.MaxInt64
	games := []Game{}
	for {
		g, err := rd.Next()
		if err == io.EOF {
			return games, nil
		}
		if err != nil {
			return nil, err
		}
		games = append(games, g)
	}
}

// ParseGame reads a text holding exactly one game (see Parse). No game,
// or more than one, is an error.
func ParseGame(text string) (Game, error) {
	gs, err := Parse(strings.NewReader(text))
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

// scanner walks a stream a rune at a time, keeping line and column, the
// bytes of the current game, and what is being captured.
type scanner struct {
	br        *bufio.Reader
	line, col int // of the next rune
	n         int64
	err       error // fatal: a read error or the game size limit

	max      int64 // bound on one game's bytes
	from     int64 // n where the current game's text began
	fromLine int   // and its line

	bomFree   bool // no rune read yet: a byte order mark here does not count
	lineFirst rune // first non-blank rune of the current line (0 if none yet)

	capturing bool
	capture   []byte

	// the next rune, decoded (valid while have)
	have bool
	r    rune
	raw  []byte
}

func (s *scanner) fill() {
	if s.have || s.err != nil {
		return
	}
	b, err := s.br.Peek(utf8.UTFMax)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		s.err = err
		return
	}
	if len(b) == 0 {
		return
	}
	r, size := utf8.DecodeRune(b)
	s.have, s.r, s.raw = true, r, b[:size]
}

func (s *scanner) eof() bool {
	s.fill()
	return !s.have
}

func (s *scanner) here() pos { return pos{s.line, s.col} }

// peek returns the next rune without consuming it (utf8.RuneError for a
// byte that is not UTF-8, which counts as one column; 0 at the end).
func (s *scanner) peek() rune {
	s.fill()
	if !s.have {
		return 0
	}
	return s.r
}

// next consumes one rune. "\r\n" is one line end; a lone "\r" is one too.
func (s *scanner) next() rune {
	s.fill()
	if !s.have {
		return 0
	}
	r, size := s.r, len(s.raw)
	if s.capturing {
		s.capture = append(s.capture, s.raw...)
	}
	s.have = false
	s.br.Discard(size)
	s.n += int64(size)
	if s.n-s.from > s.max {
		s.err = &LimitError{Line: s.fromLine, Max: s.max}
	}
	if r == '\uFEFF' && s.bomFree {
		s.bomFree = false
		return r // not counted
	}
	s.bomFree = false
	switch {
	case r == '\n', r == '\r' && s.peek() != '\n':
		s.line++
		s.col = 1
		s.lineFirst = 0
	default:
		s.col++
		if s.lineFirst == 0 && r != ' ' && r != '\t' && r != '\uFEFF' && r != '\r' {
			s.lineFirst = r
		}
	}
	return r
}

// startCapture begins keeping the bytes consumed; taken ends it.
func (s *scanner) startCapture() {
	s.capturing, s.capture = true, s.capture[:0]
}

func (s *scanner) taken() string {
	s.capturing = false
	return string(s.capture)
}

// isSpace reports white space; a byte order mark (U+FEFF) anywhere, as
// left where files were joined, is white space too.
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\uFEFF'
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
	s    scanner
	done *Game // the game finished by the last token

	cur       *Game
	movetext  bool           // cur has a movetext token, so a tag pair starts the next game
	tagAt     map[string]pos // where each tag of cur was given
	comment   string         // the last mainline comment after the last move
	variation []pos          // where each open variation began, innermost last
}

// next reads up to the end of the next game; nil at the end of the input.
func (p *parser) next() (*Game, error) {
	p.done = nil
	for p.done == nil {
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.s.eof() {
			if n := len(p.variation); n > 0 {
				return nil, syntaxErr(p.variation[n-1], "variation opened here is never closed with ')'")
			}
			if err := p.finish("", pos{}); err != nil {
				return nil, err
			}
			return p.done, nil
		}
		at := p.s.here()
		if p.cur == nil {
			p.s.fromLine = at.line // where a game too long to read starts
		}
		var err error
		switch r := p.s.peek(); r {
		case '[':
			if p.cur != nil && p.movetext && len(p.variation) == 0 {
				// No result token closed the game before the next one's tags.
				err = p.finish("", pos{})
				break
			}
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
			p.s.next()
			err = syntaxErr(at, `unexpected '"' outside a tag pair`)
		case ']':
			p.s.next()
			err = syntaxErr(at, "unexpected ']' (no tag pair is open)")
		case '}':
			p.s.next()
			err = syntaxErr(at, "unexpected '}' (no comment is open)")
		default:
			err = p.word(at)
		}
		if err != nil {
			return nil, err
		}
	}
	return p.done, nil
}

// resync drops the game in progress after an error and skips to the next
// game's tag section: a line whose first character is '[' coming after a
// line whose first is not (a blank line or movetext), so that the rest of
// a broken game's own tag section is skipped with it.
func (p *parser) resync() {
	p.cur, p.tagAt, p.variation, p.movetext, p.comment = nil, nil, nil, false, ""
	s := &p.s
	s.capturing = false
	prevTag := s.lineFirst == '['
	for !s.eof() && !isLineEnd(s.peek()) {
		s.next()
	}
	for !s.eof() {
		s.next() // the line end
		for !s.eof() && (s.peek() == ' ' || s.peek() == '\t' || s.peek() == '\uFEFF') {
			s.next()
		}
		if s.eof() {
			return
		}
		r := s.peek()
		if r == '[' && !prevTag {
			return
		}
		prevTag = r == '['
		for !s.eof() && !isLineEnd(s.peek()) {
			s.next()
		}
	}
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

// movetextToken marks the start of movetext in the current game. It
// reports whether the game's movetext is to be read: a game whose tags
// give no variant of ours (another game's GameType, say) has its movetext,
// in that game's notation, skipped up to the next tag section, and is
// finished. Its Result tag is still checked.
func (p *parser) movetextToken(at pos) (bool, error) {
	p.begin(at)
	if p.movetext {
		return true, nil
	}
	p.movetext = true
	if len(p.cur.Tags) == 0 {
		return true, nil
	}
	if _, err := p.cur.Variant(); err == nil {
		return true, nil
	}
	if tv, ok := p.cur.Tag("Result"); ok {
		if _, valid := NormalizeResult(strings.TrimSpace(tv)); !valid {
			return false, syntaxErr(p.tagAt["Result"], "Result tag %s is not a result (want %s)", engine.Quote(tv), resultHelp)
		}
	}
	g := p.cur
	g.Comment = p.comment // a comment before the skipped movetext, as Write puts it
	p.resync()
	p.done = g
	return false, nil
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
	p.done = g
	p.cur, p.tagAt = nil, nil
	return nil
}

// tagPair reads [Name "value"], on one line.
func (p *parser) tagPair(at pos) error {
	if len(p.variation) > 0 {
		v := p.variation[len(p.variation)-1]
		p.s.next()
		return syntaxErr(at, "tag pair inside a variation (opened on line %d, col %d)", v.line, v.col)
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
	s.startCapture()
	for !s.eof() {
		r := s.peek()
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			break
		}
		s.next()
	}
	name := s.taken()
	if name == "" || !(name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		return syntaxErr(nameAt, "want a tag name (a letter, then letters, digits or '_') after '['")
	}
	blanks()
	if s.eof() || s.peek() != '"' {
		return syntaxErr(s.here(), "tag %s: want its value in double quotes", name)
	}
	s.next()
	var b []byte
	for {
		if s.eof() || isLineEnd(s.peek()) {
			return syntaxErr(s.here(), "tag %s: value not closed with '\"' before the end of the line", name)
		}
		escAt := s.here()
		// The bytes as written: text that is not UTF-8 stays as it was.
		s.startCapture()
		r := s.next()
		if r == '"' {
			s.taken()
			break
		}
		if r == '\\' {
			if s.eof() || (s.peek() != '"' && s.peek() != '\\') {
				s.taken()
				return syntaxErr(escAt, "tag %s: unknown escape in the value (only \\\" and \\\\; write a backslash as \\\\)", name)
			}
			s.startCapture()
			s.next()
		}
		b = append(b, s.taken()...)
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
	p.cur.Tags = append(p.cur.Tags, Tag{name, string(b)})
	return nil
}

// braceComment reads {...}, which may span lines.
func (p *parser) braceComment(at pos) error {
	s := &p.s
	s.next() // '{'
	keep := p.cur != nil && len(p.variation) == 0
	if keep {
		s.startCapture()
	}
	for !s.eof() && s.peek() != '}' {
		s.next()
	}
	text := ""
	if keep {
		text = s.taken()
	}
	if s.eof() {
		return syntaxErr(at, "comment opened here is never closed with '}'")
	}
	s.next() // '}'
	if keep {
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
	_, err := p.movetextToken(at)
	return err
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
	_, err := p.movetextToken(at)
	return err
}

// suffixAnnotation reads !, ?, !!, ??, !? or ?!.
func (p *parser) suffixAnnotation(at pos) error {
	s := &p.s
	s.startCapture()
	for !s.eof() && (s.peek() == '!' || s.peek() == '?') && len(s.capture) < 3 {
		s.next()
	}
	switch a := s.taken(); a {
	case "!", "?", "!!", "??", "!?", "?!":
	default:
		return syntaxErr(at, "unknown annotation %s (want !, ?, !!, ??, !? or ?!)", engine.Quote(a))
	}
	_, err := p.movetextToken(at)
	return err
}

// word reads a run of movetext up to a delimiter: a move number, a result
// or a move, or a move number glued to what follows it ("1.e2-d3").
func (p *parser) word(at pos) error {
	s := &p.s
	s.startCapture()
	for !s.eof() && !isDelimiter(s.peek()) {
		s.next()
	}
	w := s.taken()
	for w != "" {
		rest, more, err := p.token(w, at)
		if err != nil || !more {
			return err
		}
		at.col += utf8.RuneCountInString(w[:len(w)-len(rest)]) // only what was read: linear in the word
		w = rest
	}
	return nil
}

// token reads one token at the start of w and returns what follows it,
// and whether the game's movetext goes on being read.
func (p *parser) token(w string, at pos) (string, bool, error) {
	if res, ok := NormalizeResult(w); ok {
		if n := len(p.variation); n > 0 {
			v := p.variation[n-1]
			return "", false, syntaxErr(at, "result %s inside a variation (opened on line %d, col %d)", w, v.line, v.col)
		}
		if more, err := p.movetextToken(at); !more || err != nil {
			return "", false, err
		}
		return "", false, p.finish(res, at)
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
			more, err := p.movetextToken(at)
			return w[d+dots:], more, err
		case dots > 0:
			return "", false, syntaxErr(at, "move number %s: want one dot (1.) or three (1...)", engine.Quote(w[:d+dots]))
		case strings.ContainsAny(w, "-x/"):
			return "", false, syntaxErr(at, "%s is neither a result (%s) nor a move: moves are written with squares, like e2-d3 or f3xd5xb7 (docs/notation.md); numbered squares are not read",
				engine.Quote(w), resultHelp)
		}
		return "", false, syntaxErr(at, "%s: a move number needs a '.' after it (1. or 1...)", engine.Quote(w))
	}
	if c := w[0] | 0x20; c >= 'a' && c <= 'z' {
		if more, err := p.movetextToken(at); !more || err != nil {
			return "", false, err
		}
		if err := checkMove(w); err != nil {
			return "", false, syntaxErr(at, "%s", err.Error())
		}
		if len(p.variation) == 0 {
			p.cur.Moves = append(p.cur.Moves, w)
			p.comment = ""
		}
		return "", true, nil
	}
	r, _ := utf8.DecodeRuneInString(w)
	return "", false, syntaxErr(at, "unexpected %s (want a move like e2-d3, a move number, a comment or a result: %s)", engine.Quote(string(r)), resultHelp)
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
