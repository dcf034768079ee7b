package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/pdn"
	"github.com/damone-rules/damone/internal/validation"
)

const pdnUsage = `Usage: damone pdn validate|export ...
  damone pdn validate [--json] [--max-game-bytes N] FILE...
                                                   judge every game of PDN files ('-' reads stdin)
  damone pdn export [--addr HOST:PORT] games/ID    print a service game as PDN

PDN is the draughts game record format; docs/notation.md (PDN) gives the
dialect. Run 'damone pdn validate --help' or 'damone pdn export --help'
for their flags.`

func runPdn(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, pdnUsage)
		return cli.Usagef("want a subcommand: validate or export")
	}
	switch args[0] {
	case "validate":
		return cli.InSubcommand("validate", runPdnValidate(args[1:], stdin, stdout, stderr))
	case "export":
		return cli.InSubcommand("export", runPdnExport(args[1:], stdout, stderr))
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, pdnUsage)
		return flag.ErrHelp
	}
	return cli.Usagef("unknown subcommand %q (want validate or export)", args[0])
}

// pdnCounts is the summary of a validate run.
type pdnCounts struct {
	Kind            string `json:"kind"` // "summary"
	Files           int    `json:"files"`
	UnreadableFiles int    `json:"unreadable_files"`
	Games           int    `json:"games"`
	Valid           int    `json:"valid"`
	Invalid         int    `json:"invalid"`
	Unreadable      int    `json:"unreadable"`
}

// pdnVerdict is the --json form of one game's verdict, or of a file that
// could not be read (kind "file", with the line and column of a syntax
// error).
type pdnVerdict struct {
	Kind        string     `json:"kind"` // "game" or "file"
	File        string     `json:"file"`
	Game        int        `json:"game,omitempty"` // 1-based, in its file
	Line        int        `json:"line,omitempty"` // where the game starts, or of the syntax error
	Col         int        `json:"col,omitempty"`
	Verdict     string     `json:"verdict"` // valid, invalid or unreadable
	Plies       *int       `json:"plies,omitempty"`
	Result      string     `json:"result,omitempty"` // the record's own result token
	Ending      *pdnEnding `json:"ending,omitempty"`
	IllegalPly  int        `json:"illegal_ply,omitempty"`
	IllegalMove string     `json:"illegal_move,omitempty"`
	Error       string     `json:"error,omitempty"`
}

type pdnEnding struct {
	Result string `json:"result"` // red wins, black wins, draw
	Reason string `json:"reason"`
	Ply    int    `json:"ply"`
}

func runPdnValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("pdn validate", stdout, `Usage: damone pdn validate [--json] [--max-game-bytes N] FILE...

Reads every game of the PDN files ('-' reads stdin), one game at a time,
takes its rules from its tags (docs/notation.md, PDN) and plays its moves
with the engine. Prints one line per game: where it starts, valid or
invalid, the plies played and how the game ended and at which ply, or the
first illegal ply and why; or unreadable, with the line and column of the
mistake, or why its tags give no game of ours (a GameType of another
game, say). The next game is read either way. A file that cannot be
opened, or a game longer than --max-game-bytes (which ends its file), is
reported too, and the other files are still read. Then a summary.

Exit status: 0 if every game is valid, 1 if any game is invalid or
unreadable or any file unreadable, 2 for a usage error.`)
	asJSON := fs.Bool("json", false, "print one JSON object per game (and per unreadable file), then a summary object")
	maxGame := fs.Int64("max-game-bytes", pdn.DefaultMaxGameBytes, "the longest game read, in bytes of text (comments included); a longer game ends the reading of its file")
	files, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return cli.Usagef("want at least one FILE ('-' for stdin)")
	}
	if *maxGame < 1 {
		return cli.Usagef("--max-game-bytes must be at least 1, got %d", *maxGame)
	}
	stdins := 0
	for _, f := range files {
		if f == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		return cli.Usagef("'-' (stdin) given %d times; it can be read once", stdins)
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	emit := func(v pdnVerdict, text string) {
		if *asJSON {
			enc.Encode(v)
		} else {
			fmt.Fprintln(out, text)
		}
	}
	sum := pdnCounts{Kind: "summary", Files: len(files)}
	for _, file := range files {
		name := file
		if file == "-" {
			name = "stdin"
		}
		err := validatePDNFile(file, stdin, *maxGame, func(n int, g *pdn.Game, gerr error) {
			sum.Games++
			var v pdnVerdict
			var text string
			if gerr != nil {
				v, text = unreadablePDNGame(name, n, gerr)
			} else {
				v, text = judgePDNGame(name, n, g)
			}
			switch v.Verdict {
			case "valid":
				sum.Valid++
			case "invalid":
				sum.Invalid++
			default:
				sum.Unreadable++
			}
			emit(v, text)
		})
		if err != nil {
			sum.UnreadableFiles++
			v := pdnVerdict{Kind: "file", File: name, Verdict: "unreadable", Error: err.Error()}
			text := fmt.Sprintf("%s: unreadable: %v", name, err)
			var le *pdn.LimitError
			if errors.As(err, &le) {
				v.Line = le.Line
				v.Error = fmt.Sprintf("the game from line %d is longer than --max-game-bytes=%d; the rest of the file is not read", le.Line, le.Max)
				text = fmt.Sprintf("%s:%d: unreadable: %s", name, le.Line, v.Error)
			}
			emit(v, text)
		}
	}
	if *asJSON {
		enc.Encode(sum)
	} else {
		fmt.Fprintf(out, "%s (%d unreadable), %s: %d valid, %d invalid, %d unreadable\n",
			pdnPlural(sum.Files, "file", "files"), sum.UnreadableFiles, pdnPlural(sum.Games, "game", "games"), sum.Valid, sum.Invalid, sum.Unreadable)
	}
	if sum.Invalid+sum.Unreadable+sum.UnreadableFiles > 0 {
		return fmt.Errorf("not every game is valid: %d invalid, %d unreadable, %d unreadable files",
			sum.Invalid, sum.Unreadable, sum.UnreadableFiles)
	}
	return nil
}

// validatePDNFile hands each game of a file to judge as it is read (n
// counts from 1; gerr is a game that could not be read), holding one game
// at a time. The error is the file's: it cannot be opened or read, or a
// game is longer than maxGame bytes.
func validatePDNFile(file string, stdin io.Reader, maxGame int64, judge func(n int, g *pdn.Game, gerr error)) error {
	in := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	rd := pdn.NewReader(in)
	rd.MaxGameBytes = maxGame
	for n := 1; ; n++ {
		g, err := rd.Next()
		var se *pdn.SyntaxError
		switch {
		case err == nil:
			judge(n, &g, nil)
		case errors.As(err, &se):
			judge(n, nil, se)
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// unreadablePDNGame is the verdict on a game that is not PDN of our dialect.
func unreadablePDNGame(file string, n int, err error) (pdnVerdict, string) {
	v := pdnVerdict{Kind: "game", File: file, Game: n, Verdict: "unreadable", Error: err.Error()}
	var se *pdn.SyntaxError
	if errors.As(err, &se) {
		v.Line, v.Col, v.Error = se.Line, se.Col, se.Msg
		return v, fmt.Sprintf("%s:%d:%d: game %d: unreadable: %s", file, se.Line, se.Col, n, se.Msg)
	}
	return v, fmt.Sprintf("%s: game %d: unreadable: %v", file, n, err)
}

// judgePDNGame replays one game under the rules its tags give.
func judgePDNGame(file string, n int, g *pdn.Game) (pdnVerdict, string) {
	v := pdnVerdict{Kind: "game", File: file, Game: n, Line: g.Line, Result: g.Result}
	where := fmt.Sprintf("%s:%d: game %d", file, g.Line, n)
	variant, err := g.Variant()
	var verdict *validation.Verdict
	if err == nil {
		verdict, err = validation.Game(variant, g.Moves, validation.Options{})
	}
	if err != nil {
		v.Verdict, v.Error = "unreadable", err.Error()
		return v, fmt.Sprintf("%s: unreadable: %v", where, err)
	}
	plies := len(verdict.Moves)
	v.Plies = &plies
	ending := "not over"
	if o := verdict.Outcome; o.Over() {
		v.Ending = &pdnEnding{Result: o.Result.String(), Reason: o.Reason.String(), Ply: verdict.EndPly}
		ending = fmt.Sprintf("%s at ply %d", o, verdict.EndPly)
	}
	if verdict.Valid() {
		v.Verdict = "valid"
		return v, fmt.Sprintf("%s: valid, %s, %s", where, pdnPlural(plies, "ply", "plies"), ending)
	}
	v.Verdict, v.IllegalPly, v.IllegalMove = "invalid", verdict.IllegalPly, verdict.IllegalMove
	var me *engine.MoveError
	switch {
	case errors.As(verdict.Err, &me):
		v.Error = me.Error()
	case errors.Is(verdict.Err, engine.ErrGameOver):
		v.Error = fmt.Sprintf("move %s: the game was already over (%s)", engine.Quote(verdict.IllegalMove), ending)
	default:
		v.Error = fmt.Sprintf("move %s: %v", engine.Quote(verdict.IllegalMove), verdict.Err)
	}
	return v, fmt.Sprintf("%s: invalid at ply %d: %s", where, verdict.IllegalPly, v.Error)
}

func runPdnExport(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("pdn export", stdout, `Usage: damone pdn export [--addr HOST:PORT] games/ID

Asks a running server for a game (GameService.ExportPdn) and prints it as
one PDN game record.`)
	addr := fs.String("addr", "localhost:9090", "gRPC address of the running server (host:port)")
	timeout := fs.Duration("timeout", 10*time.Second, "give up on the call after this long")
	pos, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("want one game name like games/ID, got %d arguments", len(pos))
	}
	name := pos[0]
	if !strings.HasPrefix(name, "games/") || len(name) == len("games/") {
		return cli.Usagef("game name %q: want games/ID, e.g. games/k3v9q2m7x1", name)
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return cli.Usagef("--addr %q: want host:port (%v)", *addr, err)
	}
	if *timeout <= 0 {
		return cli.Usagef("--timeout must be positive, got %v", *timeout)
	}
	conn, err := grpc.NewClient("passthrough:///"+*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	resp, err := damonev1.NewGameServiceClient(conn).ExportPdn(ctx, &damonev1.ExportPdnRequest{Name: name})
	if err != nil {
		st := status.Convert(err)
		return fmt.Errorf("export %s from %s: %s: %s", name, *addr, st.Code(), st.Message())
	}
	_, err = io.WriteString(stdout, resp.GetPdn())
	return err
}

// pdnPlural writes n and the noun, singular for 1.
func pdnPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
