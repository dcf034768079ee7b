package main

// The command line's help (issue 13, departure 11): asked for, help is the
// output, so it goes to stdout with exit status 0; every help shows its
// flags as --flag, the form the README and docs use; and a usage mistake
// still goes to stderr with exit status 2.

import (
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// helpCommands is every command the README lists, each with one flag its
// help must show (none for version), written down from the README and the
// commands' documentation, not from the code.
var helpCommands = []struct {
	args []string
	flag string
}{
	{[]string{"serve"}, "--grpc-addr"},
	{[]string{"perft"}, "--divide"},
	{[]string{"moves"}, "--position-json"},
	{[]string{"analyze"}, "--movetime"},
	{[]string{"play"}, "--side"},
	{[]string{"match"}, "--pairs"},
	{[]string{"pdn"}, ""},
	{[]string{"pdn", "validate"}, "--json"},
	{[]string{"pdn", "export"}, "--addr"},
	{[]string{"egtb"}, ""},
	{[]string{"egtb", "build"}, "--pieces"},
	{[]string{"egtb", "verify"}, "--max-errors"},
	{[]string{"egtb", "stats"}, ""},
	{[]string{"egtb", "probe"}, "--no-progress"},
	{[]string{"store"}, ""},
	{[]string{"store", "verify"}, "--data-dir"},
	{[]string{"store", "backup"}, "--from"},
	{[]string{"version"}, ""},
}

// singleDashLong is a long flag written with one dash (-json, -position):
// a dash after the start of the line, a blank or an opening bracket or
// quote, then two or more letters. e2-d3, no-damone and -1 do not match.
var singleDashLong = regexp.MustCompile("(?:^|[\\s(\\[{'\"`=,])-[A-Za-z][A-Za-z0-9-]+")

func checkHelp(t *testing.T, args []string, out, errOut string, code int, wantUsage, wantFlag string) {
	t.Helper()
	if code != 0 {
		t.Errorf("damone %s: exit %d, want 0", strings.Join(args, " "), code)
	}
	if errOut != "" {
		t.Errorf("damone %s: stderr %q, want nothing (help goes to stdout)", strings.Join(args, " "), errOut)
	}
	if !strings.HasPrefix(out, "Usage: "+wantUsage) {
		t.Errorf("damone %s: stdout does not start with %q:\n%s", strings.Join(args, " "), "Usage: "+wantUsage, out)
	}
	if wantFlag != "" && !strings.Contains(out, "  "+wantFlag) {
		t.Errorf("damone %s: help lists no %s:\n%s", strings.Join(args, " "), wantFlag, out)
	}
	for i, line := range strings.Split(out, "\n") {
		if m := singleDashLong.FindString(line); m != "" {
			t.Errorf("damone %s: help line %d shows a single-dash long flag %q: %q", strings.Join(args, " "), i+1, strings.TrimSpace(m), line)
		}
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	for _, c := range helpCommands {
		for _, h := range []string{"--help", "-h", "-help"} {
			args := append(slices.Clone(c.args), h)
			out, errOut, code := runCLI(t, "", args...)
			checkHelp(t, args, out, errOut, code, "damone "+strings.Join(c.args, " "), c.flag)
		}
		// damone help COMMAND is damone COMMAND --help.
		args := append([]string{"help"}, c.args...)
		out, errOut, code := runCLI(t, "", args...)
		checkHelp(t, args, out, errOut, code, "damone "+strings.Join(c.args, " "), c.flag)
	}
}

func TestTopLevelHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errOut, code := runCLI(t, "", args...)
		checkHelp(t, args, out, errOut, code, "damone COMMAND", "")
		// It names every command, one line each.
		for _, c := range helpCommands {
			if len(c.args) == 1 && !regexp.MustCompile(`(?m)^  `+c.args[0]+` +\S`).MatchString(out) {
				t.Errorf("damone %s: no line for command %s:\n%s", args[0], c.args[0], out)
			}
		}
	}
	// No command at all is a usage mistake: the list goes to stderr, exit 2.
	out, errOut, code := runCLI(t, "")
	if code != 2 || out != "" || !strings.Contains(errOut, "Usage: damone COMMAND") {
		t.Errorf("damone: exit %d, stdout %q, stderr %q; want exit 2 and the usage on stderr", code, out, errOut)
	}
}

// Every command of the binary is in helpCommands (and so in the checks
// above): a new command fails here until its help is checked.
func TestHelpCoversEveryCommand(t *testing.T) {
	for _, c := range commands() {
		if !slices.ContainsFunc(helpCommands, func(h struct {
			args []string
			flag string
		}) bool {
			return h.args[0] == c.Name
		}) {
			t.Errorf("command %s has no help check", c.Name)
		}
	}
}

// A usage mistake is not help: stderr, exit 2, stdout empty; the flag is
// named with two dashes, and the message points at --help.
func TestUsageErrorsGoToStderr(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"moves", "--nope"}, "flag provided but not defined: --nope"},
		{[]string{"perft", "--threads", "x", "2"}, "invalid value \"x\" for flag --threads"},
		{[]string{"analyze", "--depth"}, "flag needs an argument: --depth"},
		{[]string{"serve", "--max-games", "many"}, "--max-games"},
		{[]string{"pdn", "export", "--timeout", "soon", "games/x"}, "--timeout"},
		{[]string{"store", "backup", "--timeout", "soon"}, "--timeout"},
		{[]string{"version", "extra"}, "unexpected argument"},
		// More threads than CPUs would multiply a build's memory for no speed.
		{[]string{"egtb", "build", "--pieces", "3", "--out", "unused", "--threads", strconv.Itoa(runtime.NumCPU() + 1)}, "at most " + strconv.Itoa(runtime.NumCPU())},
		{[]string{"egtb", "verify", "--threads", "0", "unused"}, "--threads must be 1 or more"},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, "", c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr with %q", c.args, code, out, errOut, c.want)
		}
		if m := singleDashLong.FindString(errOut); m != "" {
			t.Errorf("%v: stderr shows a single-dash long flag %q: %q", c.args, m, errOut)
		}
		if !strings.Contains(errOut, "damone "+c.args[0]) || !strings.Contains(errOut, "--help") {
			t.Errorf("%v: stderr %q does not point at 'damone %s ... --help'", c.args, errOut, c.args[0])
		}
		// A subcommand's mistake points at that subcommand's help.
		if sub := slices.Contains([]string{"egtb", "store", "pdn"}, c.args[0]); sub {
			if want := "Run 'damone " + c.args[0] + " " + c.args[1] + " --help'"; !strings.Contains(errOut, want) {
				t.Errorf("%v: stderr %q, want %q", c.args, errOut, want)
			}
		}
	}
}
