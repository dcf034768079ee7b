// Package boardsvg draws a position as a standalone SVG image: the 8x8
// board in the Italian orientation (RULES.md, Board: a1 light, h1 and a8
// dark, Red at the bottom), coordinates along the edges, the pieces with a
// mark per rank that needs no colour to read, and optionally the last move
// with its captures. The image has no scripts and no external references,
// so it can be embedded anywhere (chat bots, documentation).
//
// Every square, piece and highlight carries data-square (and the pieces
// data-side and data-rank) so that tools and tests can read the image
// without reckoning coordinates.
package boardsvg

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/damone-rules/damone/internal/engine"
)

// Image sizes, in pixels (width = height).
const (
	MinSize     = 120
	MaxSize     = 1200
	DefaultSize = 400
)

// Options says how to draw a position.
type Options struct {
	// Flip draws the board from Black's side: h8 at the bottom left.
	Flip bool
	// Size is the image's width and height in pixels, MinSize..MaxSize;
	// 0 means DefaultSize.
	Size int
	// LastMove, if set, is the move that led to the position: its origin
	// and landing squares are highlighted, and the squares it captured
	// are crossed. See ParseMove.
	LastMove *engine.Move
}

// ParseMove reads a move written in full notation (docs/notation.md,
// Moves: "e2-d3", "f3xd5xb7"), without a position: each square must be a
// dark square, a step one square diagonally and each capture a two-square
// diagonal leap. The move's rank is not known and not used for drawing.
// It returns an error saying what is wrong.
func ParseMove(text string) (engine.Move, error) {
	squares, capture, err := engine.ParseMoveSquares(text)
	if err != nil {
		return engine.Move{}, err
	}
	from, landings := squares[0], squares[1:]
	if !capture {
		df, dr := landings[0].File()-from.File(), landings[0].Row()-from.Row()
		if abs(df) != 1 || abs(dr) != 1 {
			return engine.Move{}, fmt.Errorf("move %s: %s to %s is not a one-square diagonal step", engine.Quote(text), from, landings[0])
		}
	} else {
		prev := from
		for _, l := range landings {
			df, dr := l.File()-prev.File(), l.Row()-prev.Row()
			if abs(df) != 2 || abs(dr) != 2 {
				return engine.Move{}, fmt.Errorf("move %s: %s to %s is not a two-square diagonal leap", engine.Quote(text), prev, l)
			}
			prev = l
		}
	}
	m, err := engine.MoveFromPath(engine.Pedine, from, landings, false)
	if err != nil {
		return engine.Move{}, fmt.Errorf("move %s: %v", engine.Quote(text), err)
	}
	return m, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Drawing units: the viewBox is 440x440, a 20-unit margin around a board
// of 50-unit squares.
const (
	margin = 20
	cell   = 50
	extent = 2*margin + 8*cell
)

// Colours. The sides differ in lightness as well as hue (red on light,
// near-black), and the ranks by their mark, so none needs colour.
const (
	lightFill     = "#f0d9b5"
	darkFill      = "#8a5a3b"
	coordFill     = "#333333"
	redFill       = "#c8102e"
	redStroke     = "#5a0010"
	blackFill     = "#1a1a1a"
	blackStroke   = "#e8e8e8"
	markOnRed     = "#ffffff"
	markOnBlack   = "#ffffff"
	moveFill      = "#f2d024"
	captureStroke = "#1565c0"
)

var sideName = [2]string{"Red", "Black"}

var rankName = [engine.NumRanks]string{"Pedine", "Dama", "Damone"}

// Render writes pos as a standalone SVG document to w. It returns an error
// for a Size out of MinSize..MaxSize, or the writer's error.
func Render(w io.Writer, pos engine.Position, opts Options) error {
	size := opts.Size
	if size == 0 {
		size = DefaultSize
	}
	if size < MinSize || size > MaxSize {
		return fmt.Errorf("size %d is out of range (%d to %d pixels)", opts.Size, MinSize, MaxSize)
	}
	b := bufio.NewWriter(w)
	stm := pos.SideToMove()
	title := fmt.Sprintf("Italian Damone position, %s to move", sideName[stm])
	if opts.Flip {
		title += ", seen from Black"
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="title desc">`+"\n",
		extent, extent, size, size)
	fmt.Fprintf(b, "<title id=\"title\">%s</title>\n", esc(title))
	fmt.Fprintf(b, "<desc id=\"desc\">%s</desc>\n", esc(describe(&pos)))
	fmt.Fprintf(b, `<rect class="frame" x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", extent, extent)

	// Squares, a1..h8.
	b.WriteString(`<g class="squares">` + "\n")
	for row := range 8 {
		for file := range 8 {
			sq := engine.NewSquare(file, row)
			x, y := corner(sq, opts.Flip)
			kind, fill := "light", lightFill
			if sq.Valid() {
				kind, fill = "dark", darkFill
			}
			fmt.Fprintf(b, `<rect class="square %s" data-square="%s" x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n",
				kind, sq, x, y, cell, cell, fill)
		}
	}
	b.WriteString("</g>\n")

	// Coordinates: files under the board, ranks left of it, in the order
	// they are drawn.
	b.WriteString(`<g class="coordinates" font-family="sans-serif" font-size="13" fill="` + coordFill + `" text-anchor="middle" aria-hidden="true">` + "\n")
	for col := range 8 {
		file := col
		if opts.Flip {
			file = 7 - col
		}
		fmt.Fprintf(b, `<text class="coord file" x="%d" y="%d">%c</text>`+"\n", margin+col*cell+cell/2, extent-5, 'a'+file)
	}
	for line := range 8 {
		row := 7 - line
		if opts.Flip {
			row = line
		}
		fmt.Fprintf(b, `<text class="coord rank" x="%d" y="%d">%c</text>`+"\n", margin/2, margin+line*cell+cell/2+5, '1'+row)
	}
	b.WriteString("</g>\n")

	// The last move: origin and landings filled, captured squares crossed
	// (a shape, so it reads without colour).
	if m := opts.LastMove; m != nil {
		b.WriteString(`<g class="last-move">` + "\n")
		squares := append([]engine.Square{m.From()}, m.Landings()...)
		for i, sq := range squares {
			kind := "landing"
			if i == 0 {
				kind = "origin"
			}
			x, y := corner(sq, opts.Flip)
			fmt.Fprintf(b, `<rect class="highlight %s" data-square="%s" x="%d" y="%d" width="%d" height="%d" fill="%s" fill-opacity="0.55"/>`+"\n",
				kind, sq, x, y, cell, cell, moveFill)
		}
		for _, sq := range m.Captured() {
			x, y := corner(sq, opts.Flip)
			fmt.Fprintf(b, `<g class="highlight captured" data-square="%s" stroke="%s" stroke-width="5" stroke-linecap="round">`+
				`<line x1="%d" y1="%d" x2="%d" y2="%d"/><line x1="%d" y1="%d" x2="%d" y2="%d"/></g>`+"\n",
				sq, captureStroke, x+10, y+10, x+cell-10, y+cell-10, x+cell-10, y+10, x+10, y+cell-10)
		}
		b.WriteString("</g>\n")
	}

	// Pieces: a disc in the side's colour; a Dama carries a D, a Damone an
	// M inside a second ring, a Pedine nothing.
	b.WriteString(`<g class="pieces" font-family="sans-serif" font-weight="bold" text-anchor="middle">` + "\n")
	for _, p := range pos.Pieces() {
		x, y := corner(p.Square, opts.Flip)
		cx, cy := x+cell/2, y+cell/2
		fill, stroke, mark := redFill, redStroke, markOnRed
		if p.Side == engine.Black {
			fill, stroke, mark = blackFill, blackStroke, markOnBlack
		}
		label := fmt.Sprintf("%s %s on %s", sideName[p.Side], rankName[p.Rank], p.Square)
		fmt.Fprintf(b, `<g class="piece" data-square="%s" data-side="%s" data-rank="%s" role="img" aria-label="%s">`,
			p.Square, p.Side, p.Rank, label)
		fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="20" fill="%s" stroke="%s" stroke-width="2"/>`, cx, cy, fill, stroke)
		switch p.Rank {
		case engine.Dama:
			fmt.Fprintf(b, `<text x="%d" y="%d" font-size="22" fill="%s">D</text>`, cx, cy+8, mark)
		case engine.Damone:
			fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="15" fill="none" stroke="%s" stroke-width="2"/>`, cx, cy, mark)
			fmt.Fprintf(b, `<text x="%d" y="%d" font-size="18" fill="%s">M</text>`, cx, cy+6, mark)
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n")

	// The side to move: a disc of its colour in the right margin, level
	// with the edge it plays from.
	toMoveY := margin + 8*cell - 8
	if (stm == engine.Black) != opts.Flip {
		toMoveY = margin + 8
	}
	fill, stroke := redFill, redStroke
	if stm == engine.Black {
		fill, stroke = blackFill, blackStroke
	}
	fmt.Fprintf(b, `<circle class="to-move" data-side="%s" cx="%d" cy="%d" r="6" fill="%s" stroke="%s" stroke-width="1.5" role="img" aria-label="%s to move"/>`+"\n",
		stm, extent-margin/2, toMoveY, fill, stroke, sideName[stm])
	b.WriteString("</svg>\n")
	return b.Flush()
}

// corner returns the top-left corner of sq's square in drawing units.
func corner(sq engine.Square, flip bool) (x, y int) {
	col, line := sq.File(), 7-sq.Row()
	if flip {
		col, line = 7-sq.File(), sq.Row()
	}
	return margin + col*cell, margin + line*cell
}

// describe is the image's long description: the pieces of each side.
func describe(p *engine.Position) string {
	var parts [2][]string
	for _, pc := range p.Pieces() {
		parts[pc.Side] = append(parts[pc.Side], rankName[pc.Rank]+" "+pc.Square.String())
	}
	var d strings.Builder
	for s := range 2 {
		if s > 0 {
			d.WriteString("; ")
		}
		d.WriteString(sideName[s] + ": ")
		if len(parts[s]) == 0 {
			d.WriteString("no pieces")
		}
		d.WriteString(strings.Join(parts[s], ", "))
	}
	d.WriteString(". Position " + p.String())
	return d.String()
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a strings.Builder does not fail
	return b.String()
}
