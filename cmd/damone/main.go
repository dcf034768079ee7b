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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the gRPC service, REST gateway and metrics endpoint", runServe},
		{"perft", "count the leaf nodes of the legal-move tree to a depth", runPerft},
		{"moves", "list the legal moves of a position, one per line", runMoves},
		{"analyze", "search a position, printing the principal variation at each depth", runAnalyze},
		{"play", "play a game against the engine in the terminal", runPlay},
		{"match", "play an engine or baseline match: W/D/L, pentanomial, Elo, SPRT", runMatch},
		{"pdn", "validate PDN game records; export a server's game as PDN", runPdn},
		{"store", "verify an embedded store file; back it up, hot from a running server", runStore},
		{"version", "print the version", runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code:
// 0 success, 1 failure, 2 usage error. Help asked for (damone --help,
// damone help [COMMAND], damone COMMAND --help) goes to stdout with exit
// code 0; a usage mistake goes to stderr with exit code 2.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		// damone help COMMAND [SUBCOMMAND] is damone COMMAND [SUBCOMMAND] --help.
		args = append(args[1:len(args):len(args)], "--help")
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdin, stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.As(err, new(usageError)):
				fmt.Fprintf(stderr, "damone %s: %v\nRun 'damone %s --help' for usage.\n", c.name, err, c.name)
				return 2
			default:
				fmt.Fprintf(stderr, "damone %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "damone: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: damone COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'damone COMMAND --help' (or 'damone help COMMAND') for a command's flags.")
}

// usageError marks an error in the command line (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func runVersion(args []string, _ io.Reader, stdout, _ io.Writer) error {
	fs := newCommandFlags("version", stdout, "Usage: damone version\n\nPrints the version of this binary (the git description it was built from, or dev).")
	if rest, err := fs.parse(args); err != nil {
		return err
	} else if len(rest) != 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	_, err := fmt.Fprintln(stdout, version)
	return err
}
