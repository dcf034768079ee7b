package main

// The README as a new user meets it (issue 13, departure 11): it names
// every command of the binary, one line each; every install line it gives
// runs unattended; and every program its tour runs is listed with how to
// install it. (The tour itself runs in docs_examples_e2e_test.go.)

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/cli"
	"mvdan.cc/sh/v3/syntax"
)

const readmePath = "../../README.md"

// readmeSection returns the items of the README's section (## title).
func readmeSection(t *testing.T, items []docItem, title string) []docItem {
	t.Helper()
	var out []docItem
	in := false
	for _, it := range items {
		if it.kind == "heading" && it.level <= 2 {
			in = it.level == 2 && it.text == title
			continue
		}
		if in {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		t.Fatalf("README.md has no section %q", title)
	}
	return out
}

func TestReadmeNamesEveryCommand(t *testing.T) {
	items := parseDoc(t, readmePath)
	named := map[string]int{}
	for _, it := range readmeSection(t, items, "Commands") {
		if it.kind != "table" {
			continue
		}
		for _, row := range it.rows[1:] {
			for _, p := range row[0].parts {
				if f := strings.Fields(p.s); p.code && len(f) >= 2 && f[0] == "damone" {
					named[f[1]]++
				}
			}
		}
	}
	for _, c := range commands() {
		if named[c.Name] == 0 {
			t.Errorf("README.md, Commands: no line for damone %s", c.Name)
		}
	}
	for name := range named {
		if !slices.ContainsFunc(commands(), func(c cli.Command) bool { return c.Name == name }) {
			t.Errorf("README.md, Commands: damone %s is no command of the binary", name)
		}
	}
	// pdn has two subcommands: a line each.
	if named["pdn"] < 2 {
		t.Errorf("README.md, Commands: %d lines for damone pdn, want one for validate and one for export", named["pdn"])
	}
}

// aptInstall finds an apt-get install command line.
var aptInstall = regexp.MustCompile(`apt(-get)? install[^\n]*`)

func TestReadmeInstallLinesRunUnattended(t *testing.T) {
	items := parseDoc(t, readmePath)
	n := 0
	check := func(where, s string) {
		for _, m := range aptInstall.FindAllString(s, -1) {
			n++
			if !regexp.MustCompile(`(^|\s)(-y|--yes|--assume-yes)(\s|$)`).MatchString(m) {
				t.Errorf("%s: %q asks before installing; add -y", where, m)
			}
		}
	}
	for _, it := range items {
		switch it.kind {
		case "code":
			check("README.md:"+strconv.Itoa(it.line), it.code)
		case "para":
			check("README.md:"+strconv.Itoa(it.line), it.text)
		case "table":
			for _, row := range it.rows {
				for _, c := range row {
					check("README.md:"+strconv.Itoa(it.line), c.text)
				}
			}
		}
	}
	if n == 0 {
		t.Error("README.md has no apt-get install line: the check proves nothing")
	}
}

func TestReadmeListsTourTools(t *testing.T) {
	items := parseDoc(t, readmePath)
	// The programs the README's examples against a server run.
	used := map[string]bool{}
	for _, it := range items {
		if it.kind != "code" || it.lang != "sh" || !callsServer(it.code) {
			continue
		}
		f, err := syntax.NewParser().Parse(strings.NewReader(it.code), filepath.Base(readmePath))
		if err != nil {
			t.Fatalf("README.md:%d: %v", it.line, err)
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				if name := call.Args[0].Lit(); name != "" && !syntax.IsKeyword(name) && !isShellBuiltin(name) {
					used[name] = true
				}
			}
			return true
		})
	}
	if len(used) == 0 {
		t.Fatal("README.md: no tour found: the check proves nothing")
	}
	// The table that lists them: | tool | install |.
	install := map[string]string{}
	for _, it := range items {
		if it.kind != "table" || len(it.rows) < 2 || len(it.rows[0]) < 2 ||
			strings.ToLower(it.rows[0][0].text) != "tool" || strings.ToLower(it.rows[0][1].text) != "install" {
			continue
		}
		for _, row := range it.rows[1:] {
			for _, tool := range row[0].parts {
				if tool.code {
					install[tool.s] = row[1].text
				}
			}
		}
	}
	for tool := range used {
		if how, ok := install[tool]; !ok || how == "" {
			t.Errorf("README.md: the tour runs %s, which no | tool | install | row lists with how to install it", tool)
		}
	}
}

// isShellBuiltin: builtins of the shell, which need no install.
func isShellBuiltin(name string) bool {
	switch name {
	case "echo", "printf", "cd", "export", "eval", "set", "test", "[", "true", "false", "read", "exit", "unset", "wait", ":":
		return true
	}
	return false
}
