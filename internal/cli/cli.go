// Package cli runs the project's programs of subcommands (damone,
// damone-bench) alike: dispatch, help on stdout with exit code 0, usage
// mistakes on stderr with exit code 2, failures with exit code 1, and
// every command's flags parsed and shown the same way (Flags).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Command is a subcommand: its name, a one-line summary for the program's
// help, and what runs it with the arguments after its name.
type Command struct {
	Name, Summary string
	Run           func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// UsageError marks a mistake in the command line (exit code 2).
type UsageError struct {
	msg string
	sub string // the subcommand it was made in, if any (InSubcommand)
}

func (e UsageError) Error() string { return e.msg }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error { return UsageError{msg: fmt.Sprintf(format, args...)} }

// InSubcommand marks a UsageError returned by subcommand sub of a
// command (e.g. build of damone egtb), so Main names it and points to
// its own --help; any other error is returned as it is.
func InSubcommand(sub string, err error) error {
	var u UsageError
	if errors.As(err, &u) && u.sub == "" {
		u.sub = sub
		return u
	}
	return err
}

// Main runs the command args name and returns the process's exit code: 0
// success, 1 failure, 2 usage error. Help asked for (PROG --help, PROG
// help [COMMAND [SUBCOMMAND]], PROG COMMAND --help) goes to stdout with
// exit code 0; a usage mistake goes to stderr with exit code 2.
func Main(prog string, cmds []Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		Usage(stderr, prog, cmds)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		Usage(stdout, prog, cmds)
		return 0
	case "help":
		if len(args) == 1 {
			Usage(stdout, prog, cmds)
			return 0
		}
		// PROG help COMMAND [SUBCOMMAND] is PROG COMMAND [SUBCOMMAND] --help.
		args = append(args[1:len(args):len(args)], "--help")
	}
	for _, c := range cmds {
		if c.Name != args[0] {
			continue
		}
		err := c.Run(args[1:], stdin, stdout, stderr)
		var u UsageError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &u):
			name := c.Name
			if u.sub != "" {
				name += " " + u.sub
			}
			fmt.Fprintf(stderr, "%s %s: %v\nRun '%s %s --help' for usage.\n", prog, name, err, prog, name)
			return 2
		default:
			fmt.Fprintf(stderr, "%s %s: %v\n", prog, c.Name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n", prog, args[0])
	Usage(stderr, prog, cmds)
	return 2
}

// Usage writes the program's help: its commands and their summaries.
func Usage(w io.Writer, prog string, cmds []Command) {
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name)+1)
	}
	fmt.Fprintf(w, "Usage: %s COMMAND [flags]\n\nCommands:\n", prog)
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun '%s COMMAND --help' (or '%s help COMMAND') for a command's flags.\n", prog, prog)
}
