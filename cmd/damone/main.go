// Command damone is the Italian Damone rules service and its tools.
//
//	damone serve [flags]            run the service (gRPC :9090, REST :8080, metrics :9102)
//	damone perft [flags] DEPTH      count the legal-move tree (perft)
//	damone moves [flags]            list the legal moves of a position
//	damone analyze [flags]          search a position, printing the best lines as it deepens
//	damone play [flags]             play the engine in the terminal
//	damone match [flags]            play an engine or baseline match with statistics
//	damone pdn validate FILE...     judge every game of PDN game records against the rules
//	damone pdn export games/ID      print a running server's game as PDN
//	damone egtb build|verify|stats  endgame tablebases: build, check, figures, probe
//	damone store verify             check an embedded store file, read-only
//	damone store backup             a verified copy of an embedded store (hot, from a running server)
//	damone version                  print the version
//
// The load generator is a command of its own, cmd/damone-bench.
//
// Run "damone COMMAND --help" (or "damone help COMMAND") for a command's
// flags; help goes to stdout.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/damone-rules/damone/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func commands() []cli.Command {
	return []cli.Command{
		{Name: "serve", Summary: "run the gRPC service, REST gateway and metrics endpoint", Run: runServe},
		{Name: "perft", Summary: "count the leaf nodes of the legal-move tree to a depth", Run: runPerft},
		{Name: "moves", Summary: "list the legal moves of a position, one per line", Run: runMoves},
		{Name: "analyze", Summary: "search a position, printing the principal variation at each depth", Run: runAnalyze},
		{Name: "play", Summary: "play a game against the engine in the terminal", Run: runPlay},
		{Name: "match", Summary: "play an engine or baseline match: W/D/L, pentanomial, Elo, SPRT", Run: runMatch},
		{Name: "pdn", Summary: "validate PDN game records; export a server's game as PDN", Run: runPdn},
		{Name: "egtb", Summary: "build, verify, inspect and probe endgame tablebases", Run: runEgtb},
		{Name: "store", Summary: "verify an embedded store file; back it up, hot from a running server", Run: runStore},
		{Name: "version", Summary: "print the version", Run: runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the command line args and returns the process exit code (see
// cli.Main: 0 success, 1 failure, 2 usage error; help on stdout).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Main("damone", commands(), args, stdin, stdout, stderr)
}

func runVersion(args []string, _ io.Reader, stdout, _ io.Writer) error {
	fs := cli.NewFlags("version", stdout, "Usage: damone version\n\nPrints the version of this binary (the git description it was built from, or dev).")
	if rest, err := fs.ParseArgs(args); err != nil {
		return err
	} else if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	_, err := fmt.Fprintln(stdout, version)
	return err
}
