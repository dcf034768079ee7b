package cli

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Main's exit codes and where each answer goes: help on stdout with 0, a
// usage mistake on stderr with 2 and a pointer to --help, a failure on
// stderr with 1, an unknown command with the program's help and 2.
func TestMainExitCodes(t *testing.T) {
	cmds := []Command{
		{Name: "ok", Summary: "succeeds", Run: func(args []string, _ io.Reader, stdout, _ io.Writer) error {
			fs := NewFlags("ok", stdout, "Usage: prog ok [--n N]\n\nSucceeds.")
			fs.Int("n", 3, "a number")
			_, err := fs.ParseArgs(args)
			return err
		}},
		{Name: "sub", Summary: "has subcommands", Run: func(args []string, _ io.Reader, stdout, _ io.Writer) error {
			if len(args) == 0 {
				return Usagef("want a subcommand: run")
			}
			fs := NewFlags("sub run", stdout, "Usage: prog sub run [--n N]")
			fs.Int("n", 3, "a number")
			_, err := fs.ParseArgs(args[1:])
			return InSubcommand("run", err)
		}},
		{Name: "fail", Summary: "fails", Run: func([]string, io.Reader, io.Writer, io.Writer) error { return errors.New("broken") }},
	}
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"ok"}, 0, "", ""},
		{[]string{"--help"}, 0, "Usage: prog COMMAND [flags]\n\nCommands:\n  ok    succeeds\n  sub   has subcommands\n  fail  fails\n\nRun 'prog COMMAND --help' (or 'prog help COMMAND') for a command's flags.\n", ""},
		{[]string{"help", "ok"}, 0, "Usage: prog ok [--n N]\n\nSucceeds.\n\nFlags:\n  --n int\n      a number (default 3)\n", ""},
		{[]string{"ok", "-n", "x"}, 2, "", "prog ok: invalid value \"x\" for flag --n: parse error\nRun 'prog ok --help' for usage.\n"},
		{[]string{"ok", "--m"}, 2, "", "prog ok: flag provided but not defined: --m\nRun 'prog ok --help' for usage.\n"},
		{[]string{"sub", "run", "--n", "x"}, 2, "", "prog sub run: invalid value \"x\" for flag --n: parse error\nRun 'prog sub run --help' for usage.\n"},
		{[]string{"sub"}, 2, "", "prog sub: want a subcommand: run\nRun 'prog sub --help' for usage.\n"},
		{[]string{"fail"}, 1, "", "prog fail: broken\n"},
		{[]string{"nope"}, 2, "", "prog: unknown command \"nope\"\n\nUsage: prog COMMAND"},
		{nil, 2, "", "Usage: prog COMMAND"},
	} {
		var out, errOut strings.Builder
		code := Main("prog", cmds, c.args, nil, &out, &errOut)
		if code != c.code || out.String() != c.stdout || !strings.HasPrefix(errOut.String(), c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q...", c.args, code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
		}
	}
}
