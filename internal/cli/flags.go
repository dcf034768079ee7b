package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
)

// Flags is a command's flag set with its help. Every command uses one, so
// every help looks alike: asked for (-h, --help, PROGRAM help COMMAND) it
// goes to stdout and the command exits 0; flags are shown as --flag, the
// form the README and docs use (the flag package accepts one dash or
// two). Parse errors are returned, not printed: Main prints them on
// stderr with a pointer to --help and exits 2.
type Flags struct {
	*flag.FlagSet
	help io.Writer
	// text is the help above the flags: "Usage: damone NAME ...", a blank
	// line and what the command does.
	text string
	// Note, if set, adds to a flag's description (serve: its environment
	// variable).
	Note func(*flag.Flag) string
}

// NewFlags returns the flag set of command name (e.g. "pdn validate"),
// whose help goes to help (the command's stdout).
func NewFlags(name string, help io.Writer, text string) *Flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // printed by ParseArgs, to help, only when asked for
	return &Flags{FlagSet: fs, help: help, text: strings.TrimRight(text, "\n")}
}

// printHelp writes the command's help: its text, then its flags.
func (c *Flags) printHelp(w io.Writer) {
	fmt.Fprintln(w, c.text)
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nFlags:")
	c.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		var extra []string
		if def, shown := flagDefault(f); shown {
			extra = append(extra, "default "+def)
		}
		if c.Note != nil {
			if s := c.Note(f); s != "" {
				extra = append(extra, s)
			}
		}
		if len(extra) > 0 {
			usage += " (" + strings.Join(extra, ", ") + ")"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, strings.ReplaceAll(usage, "\n", "\n      "))
	})
}

// flagDefault is a flag's default as the help shows it (strings quoted),
// and whether to show it: not when it is the zero value of the flag's type
// (false, 0, "", 0s), which goes without saying.
func flagDefault(f *flag.Flag) (string, bool) {
	zero := ""
	if t := reflect.TypeOf(f.Value); t != nil && t.Kind() == reflect.Pointer {
		if v, ok := reflect.New(t.Elem()).Interface().(flag.Value); ok {
			func() {
				defer func() { recover() }() // a Value whose zero cannot print
				zero = v.String()
			}()
		}
	}
	if f.DefValue == zero {
		return "", false
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf("%q", f.DefValue), true
		}
	}
	return f.DefValue, true
}

// ParseArgs parses args, whose flags may come before or after the
// positional arguments (which the flag package alone does not allow), and
// returns the positional ones. Help asked for is printed to c.help and
// returned as flag.ErrHelp; a mistake is a UsageError naming the flag as
// --flag.
func (c *Flags) ParseArgs(args []string) ([]string, error) {
	var positional []string
	for {
		if err := c.Parse(args); err != nil {
			return nil, c.ParseError(err)
		}
		rest := c.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// ParseError turns an error of c.Parse (perhaps wrapped, as ff wraps it)
// into what ParseArgs returns.
func (c *Flags) ParseError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(c.help)
		return flag.ErrHelp
	}
	return Usagef("%s", flagErrorDashes.ReplaceAllString(err.Error(), "$1--$2"))
}

// flagErrorDashes finds the flag in the flag package's messages
// ("flag provided but not defined: -x", "invalid value ... for flag -x",
// "flag needs an argument: -x"), which it writes with one dash.
var flagErrorDashes = regexp.MustCompile(`((?:defined|flag|argument):? )-([A-Za-z])`)
