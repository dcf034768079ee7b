// Command damone-bench is the load generator of the damone service, kept
// out of the server binary (which carries only what it serves). Its
// figures are in docs/BENCHMARKS.md.
//
//	damone-bench load [flags]    load a running server: list-legal-moves over gRPC and REST, validation, watch fan-out
//	damone-bench moves [flags]   play games on a server it starts per store: moves/s, CPU per move, long games
//	damone-bench soak [flags]    a real server under mixed load, killed and restarted each interval
//
// Run "damone-bench COMMAND --help" (or "damone-bench help COMMAND") for a
// command's flags; help goes to stdout.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"load", "load a running server: list-legal-moves over gRPC and REST, validation, watch fan-out", runLoadCommand},
		{"moves", "play games on a server started per store: moves/s, CPU per move, store ratios, long games", runMovesCommand},
		{"soak", "a real server under mixed load, killed and restarted each interval: no lost moves, no upward trends", runSoakCommand},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a command and returns the exit code: 0 success, 1
// failure, 2 usage error. Help asked for goes to stdout with exit code 0.
func run(args []string, stdout, stderr io.Writer) int {
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
		args = []string{args[1], "--help"}
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, new(usageError)):
			fmt.Fprintf(stderr, "damone-bench %s: %v\nRun 'damone-bench %s --help' for usage.\n", c.name, err, c.name)
			return 2
		default:
			fmt.Fprintf(stderr, "damone-bench %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "damone-bench: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: damone-bench COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-6s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'damone-bench COMMAND --help' (or 'damone-bench help COMMAND') for a command's flags.")
}

// usageError marks a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// commandFlags is a command's flag set. Its help, asked for, goes to the
// command's stdout and shows flags as --flag; a parse error is returned
// as a usageError naming the flag with two dashes.
type commandFlags struct {
	*flag.FlagSet
	help io.Writer
	text string // "Usage: ...", a blank line and what the command does
}

func newCommandFlags(name string, help io.Writer, text string) *commandFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &commandFlags{FlagSet: fs, help: help, text: text}
}

// parse parses args, flags before or after positional arguments, and
// returns the positional ones.
func (c *commandFlags) parse(args []string) ([]string, error) {
	var positional []string
	for {
		if err := c.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printHelp()
				return nil, flag.ErrHelp
			}
			// The flag package names flags with one dash.
			msg := err.Error()
			if i := strings.LastIndex(msg, " -"); i >= 0 && !strings.HasPrefix(msg[i+1:], "--") {
				msg = msg[:i] + " --" + msg[i+2:]
			}
			return nil, usagef("%s", msg)
		}
		if c.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, c.Arg(0))
		args = c.Args()[1:]
	}
}

func (c *commandFlags) printHelp() {
	fmt.Fprintln(c.help, strings.TrimRight(c.text, "\n"))
	fmt.Fprintln(c.help, "\nFlags:")
	c.VisitAll(func(f *flag.Flag) {
		kind, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "0s" {
			text += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(c.help, "%s\n      %s\n", line, strings.ReplaceAll(text, "\n", "\n      "))
	})
}
