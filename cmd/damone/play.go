package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/players"
	"github.com/damone-rules/damone/internal/search"
)

type playArgs struct {
	human   engine.Side
	limits  search.Limits
	variant engine.Variant
}

// parsePlayArgs parses play's command line; help asked for goes to
// stdout.
func parsePlayArgs(args []string, stdout io.Writer) (*playArgs, error) {
	fs := cli.NewFlags("play", stdout, `Usage: damone play [flags]

A game against the engine in the terminal. Type moves in notation (e2-d3,
f3xd5xb7, or the short form f3xb7); "moves" lists the legal moves, "board"
redraws the board, "quit" resigns. Input can be piped.`)
	side := fs.String("side", "red", "your side: red or black")
	movetime := fs.Duration("movetime", time.Second, "the engine's time a move")
	nodes := fs.Int64("nodes", 0, "the engine's node budget a move instead of --movetime (reproducible)")
	depth := fs.Int("depth", 0, "the engine's depth a move instead of --movetime")
	setup := fs.String("variant", "standard", "setup: standard or no-damone")
	first := fs.String("first", "red", "side that moves first: red or black")
	if rest, err := fs.ParseArgs(args); err != nil {
		return nil, err
	} else if len(rest) != 0 {
		return nil, cli.Usagef("unexpected argument %q", rest[0])
	}
	a := &playArgs{variant: engine.DefaultVariant()}
	var err error
	if a.human, err = engine.ParseSide(*side); err != nil {
		return nil, cli.Usagef("--side: %v", err)
	}
	if a.variant.Setup, err = engine.ParseSetup(*setup); err != nil {
		return nil, cli.Usagef("--variant: %v", err)
	}
	if a.variant.FirstPlayer, err = engine.ParseSide(*first); err != nil {
		return nil, cli.Usagef("--first: %v", err)
	}
	if *depth > search.MaxDepth {
		return nil, cli.Usagef("--depth must be at most %d", search.MaxDepth)
	}
	if *nodes < 0 || *depth < 0 || *movetime < 0 {
		return nil, cli.Usagef("--movetime, --nodes and --depth must not be negative")
	}
	a.limits = search.Limits{Nodes: *nodes, Depth: *depth}
	if *nodes == 0 && *depth == 0 {
		if *movetime == 0 { // no limit at all: the engine's move would never come
			return nil, cli.Usagef("--movetime must be positive unless --nodes or --depth is given")
		}
		a.limits.MoveTime = *movetime
	}
	return a, nil
}

// drawBoard writes the board from Red's side: ranks 8 to 1, files a to h.
// Red pieces are upper case, Black lower case: M/m Damone, D/d Dama,
// P/p Pedine; '.' is an empty dark square, ' ' a light one.
func drawBoard(w io.Writer, p *engine.Position) {
	var b strings.Builder
	for row := 7; row >= 0; row-- {
		fmt.Fprintf(&b, " %d ", row+1)
		for file := 0; file < 8; file++ {
			sq := engine.NewSquare(file, row)
			c := byte(' ')
			if sq.Valid() {
				c = '.'
				if pc, ok := p.PieceAt(sq); ok {
					c = pc.Rank.Letter()
					if pc.Side == engine.Black {
						c += 'a' - 'A'
					}
				}
			}
			b.WriteByte(' ')
			b.WriteByte(c)
		}
		b.WriteByte('\n')
	}
	b.WriteString("    a b c d e f g h\n")
	fmt.Fprintf(&b, "%s to move; no-progress plies %d   (Red: M D P, Black: m d p)\n", p.SideToMove(), p.NoProgress())
	io.WriteString(w, b.String())
}

func runPlay(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a, err := parsePlayArgs(args, stdout)
	if err != nil {
		return err
	}
	return play(context.Background(), a, stdin, stdout)
}

func play(ctx context.Context, a *playArgs, stdin io.Reader, out io.Writer) error {
	g, err := engine.NewGame(a.variant)
	if err != nil {
		return err
	}
	eng := players.NewEngine(a.limits, 64)
	eng.NewGame(0)
	in := bufio.NewScanner(stdin)
	fmt.Fprintf(out, "You play %s; the engine plays %s (%s).\n", a.human, a.human^1, eng.Name())
	cur := g.Position()
	drawBoard(out, &cur)
	for !g.Outcome().Over() {
		cur := g.Position()
		if cur.SideToMove() != a.human {
			m, err := eng.Move(ctx, players.StateOf(g))
			if err != nil {
				return err
			}
			if err := g.Play(m); err != nil {
				return fmt.Errorf("engine move %s refused: %w", m, err)
			}
			last := &eng.Last
			sc := "?"
			if last.BestDepth > 0 {
				sc = formatScore(last.BestLine.Score)
			}
			fmt.Fprintf(out, "engine plays %s  (score %s for the engine, depth %d, %d nodes)\n", m, sc, last.BestDepth, last.Info.Nodes)
			cur = g.Position()
			drawBoard(out, &cur)
			continue
		}
		fmt.Fprintf(out, "your move (%s): ", a.human)
		if !in.Scan() {
			fmt.Fprintln(out, "\ninput ended: game abandoned")
			return in.Err()
		}
		text := strings.TrimSpace(in.Text())
		switch strings.ToLower(text) {
		case "":
			continue
		case "quit", "resign":
			g.End(engine.Outcome{Result: engine.WinFor(a.human ^ 1), Reason: engine.Resignation})
			continue
		case "board":
			drawBoard(out, &cur)
			continue
		case "moves", "help", "?":
			legal := cur.LegalMoves()
			names := make([]string, len(legal))
			for i := range legal {
				names[i] = legal[i].String()
			}
			fmt.Fprintf(out, "legal moves: %s\n", strings.Join(names, " "))
			continue
		}
		m, err := g.PlayText(text)
		if err != nil {
			var me *engine.MoveError
			if errors.As(err, &me) {
				fmt.Fprintf(out, "illegal move %q (%s): %s\n", text, me.Code, me.Reason)
			} else {
				fmt.Fprintf(out, "illegal move %q: %v\n", text, err)
			}
			continue
		}
		fmt.Fprintf(out, "you play %s\n", m)
		cur = g.Position()
		drawBoard(out, &cur)
	}
	o := g.Outcome()
	verdict := "draw"
	switch o.Result {
	case engine.WinFor(a.human):
		verdict = "you win"
	case engine.WinFor(a.human ^ 1):
		verdict = "the engine wins"
	}
	fmt.Fprintf(out, "game over after %d plies: %s — %s\n", g.Ply(), o, verdict)
	return nil
}
