package main

import (
	"strings"
	"testing"
)

func runCLI(args ...string) (stdout, stderr string, code int) {
	var out, errOut strings.Builder
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// Help asked for goes to stdout with exit 0 and shows flags as --flag.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"-h"}} {
		out, errOut, code := runCLI(args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: damone-bench COMMAND") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 0 and the usage on stdout", args, code, errOut, out)
		}
		for _, c := range commands() {
			if !strings.Contains(out, "\n  "+c.Name+" ") {
				t.Errorf("%v: no line for %s:\n%s", args, c.Name, out)
			}
		}
	}
	// One flag each command's help must show, from the command's docs.
	wantFlag := map[string]string{"load": "--scenarios", "moves": "--stores", "soak": "--kill-every", "fanout": "--replicas"}
	for _, c := range commands() {
		for _, args := range [][]string{{c.Name, "--help"}, {c.Name, "-help"}, {"help", c.Name}} {
			out, errOut, code := runCLI(args...)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: damone-bench "+c.Name) {
				t.Errorf("%v: exit %d, stderr %q, stdout %q", args, code, errOut, out)
			}
			if f := wantFlag[c.Name]; f == "" || !strings.Contains(out, "\n  "+f+" ") {
				t.Errorf("%v: help lists no %q:\n%s", args, f, out)
			}
		}
	}
}

// A usage mistake goes to stderr with exit 2, the flag named with two
// dashes, and points at --help.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: damone-bench COMMAND"},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"load", "--nope"}, "flag provided but not defined: --nope"},
		{[]string{"load", "--rounds", "x"}, `invalid value "x" for flag --rounds`},
		{[]string{"load", "--rounds"}, "flag needs an argument: --rounds"},
		{[]string{"load", "extra"}, `unexpected argument "extra"`},
	} {
		out, errOut, code := runCLI(c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", c.args, code, out, errOut, c.want)
		}
	}
}
