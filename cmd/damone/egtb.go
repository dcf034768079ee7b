package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"strings"
	"text/tabwriter"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

const egtbUsage = `Usage: damone egtb build|verify|stats|probe ...
  damone egtb build --pieces N --out DIR [--threads T]
      build every table with up to N pieces (2..5) into DIR, both win
      conditions; a pair already built and sound is skipped
  damone egtb verify DIR [--threads T]
      check a set: checksums, every position against its moves, mirror
      invariance, statistics against the manifest (exit 1 on any error)
  damone egtb stats DIR
      print each table's wins, cursed wins, draws, blessed losses, losses
  damone egtb probe DIR POSITION
      print the tables' answer for a position text (docs/notation.md)

docs/engine.md (Endgame tablebases) describes the values and the files.`

func runEgtb(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, egtbUsage)
		return cli.Usagef("want a subcommand: build, verify, stats or probe")
	}
	switch args[0] {
	case "build":
		return cli.InSubcommand("build", runEgtbBuild(args[1:], stdout, stderr))
	case "verify":
		return cli.InSubcommand("verify", runEgtbVerify(args[1:], stdout, stderr))
	case "stats":
		return cli.InSubcommand("stats", runEgtbStats(args[1:], stdout))
	case "probe":
		return cli.InSubcommand("probe", runEgtbProbe(args[1:], stdout))
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, egtbUsage)
		return flag.ErrHelp
	}
	return cli.Usagef("unknown subcommand %q (want build, verify, stats or probe)", args[0])
}

func runEgtbBuild(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("egtb build", stdout, `Usage: damone egtb build --pieces N --out DIR [flags]

Builds the endgame tables of every material with up to N pieces, for the
standard win condition and for capture-all-Damones, into DIR, then writes
DIR/MANIFEST.json. Progress (slices done, positions per second, time left)
goes to stderr. A pair of tables already in DIR and sound is skipped, so an
interrupted build resumes. Rebuilds are byte-identical.`)
	pieces := fs.Int("pieces", 4, "most pieces on the board, 2..5")
	out := fs.String("out", "", "directory to build into (created if missing)")
	threads := fs.Int("threads", 1, "material pairs built at once")
	limit := fs.Int("no-progress", engine.DefaultNoProgressLimit, "no-progress limit the values are exact for (plies)")
	variant := fs.String("win", "both", "win conditions: both, capture-all-pieces or capture-all-damones")
	rest, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	if *out == "" {
		return cli.Usagef("--out DIR is required")
	}
	if *pieces < 2 || *pieces > egtb.MaxPieces {
		return cli.Usagef("--pieces must be 2..%d, got %d", egtb.MaxPieces, *pieces)
	}
	if err := egtbThreads(*threads); err != nil {
		return err
	}
	if *limit < 1 || *limit > egtb.MaxLimit {
		return cli.Usagef("--no-progress must be 1..%d, got %d", egtb.MaxLimit, *limit)
	}
	var wins []engine.WinCondition
	switch *variant {
	case "both":
	case "capture-all-pieces":
		wins = []engine.WinCondition{engine.CaptureAllPieces}
	case "capture-all-damones":
		wins = []engine.WinCondition{engine.CaptureAllDamones}
	default:
		return cli.Usagef("--win must be both, capture-all-pieces or capture-all-damones, got %q", *variant)
	}
	if os.Getenv("GOGC") == "" {
		// The finished tables are a live heap of up to 2 GB of pointer-free
		// bytes (≤ 5), cheap to mark: collecting at 25 % growth instead of
		// 100 % keeps the peak near the live size.
		debug.SetGCPercent(25)
	}
	if err := egtb.Build(*out, egtb.Options{Pieces: *pieces, Limit: *limit, Win: wins, Threads: *threads, Progress: stderr}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "built %s (%s)\n", *out, egtb.ManifestName)
	return nil
}

// egtbThreads checks --threads of build and verify: each thread holds the
// tables of the pair it works on (up to about 1 GB at 5 pieces), so
// threads beyond the CPUs add memory and no speed.
func egtbThreads(n int) error {
	if n < 1 {
		return cli.Usagef("--threads must be 1 or more, got %d", n)
	}
	if cpus := runtime.NumCPU(); n > cpus {
		return cli.Usagef("--threads %d: at most %d, the CPUs this machine has (each thread holds a material pair's tables in memory)", n, cpus)
	}
	return nil
}

func oneDir(fs *cli.Flags, args []string) (string, error) {
	rest, err := fs.ParseArgs(args)
	if err != nil {
		return "", err
	}
	if len(rest) != 1 {
		return "", cli.Usagef("want exactly one DIR argument, got %d", len(rest))
	}
	return rest[0], nil
}

func runEgtbVerify(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("egtb verify", stdout, `Usage: damone egtb verify [flags] DIR

Checks a set built by damone egtb build: every file's size, header and
checksums against the manifest; every position recomputed from its legal
moves and its children's stored values (the fixed point); every position
equal to its mirror in the long diagonal a8-h1; the statistics against the
manifest. Exits 0 if all hold, 1 with the first errors printed if not.`)
	maxErrors := fs.Int("max-errors", 10, "errors to print")
	quiet := fs.Bool("quiet", false, "no per-table progress on stderr")
	threads := fs.Int("threads", 1, "tables checked at once")
	dir, err := oneDir(fs, args)
	if err != nil {
		return err
	}
	if err := egtbThreads(*threads); err != nil {
		return err
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	rep, err := egtb.VerifyThreads(dir, *maxErrors, *threads, progress)
	if err != nil {
		return err
	}
	for _, e := range rep.First {
		fmt.Fprintln(stdout, "error:", e)
	}
	if rep.Errors > 0 {
		return fmt.Errorf("egtb verify %s: %d errors (%d tables, %d positions checked)", dir, rep.Errors, rep.Tables, rep.Positions)
	}
	fmt.Fprintf(stdout, "ok: %d tables, %d positions: checksums, fixed point, mirror and statistics hold\n", rep.Tables, rep.Positions)
	return nil
}

func runEgtbStats(args []string, stdout io.Writer) error {
	fs := cli.NewFlags("egtb stats", stdout, `Usage: damone egtb stats DIR

Prints, per table (win condition, material with the side to move first),
the positions won, won only with the no-progress rule off (cursed), drawn,
lost only with it off (blessed), and lost, at counter 0, and the longest
win in plies (DTC). The files are checked first.`)
	dir, err := oneDir(fs, args)
	if err != nil {
		return err
	}
	set, err := egtb.Open(dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "win condition\tmaterial\tpositions\twins\tcursed wins\tdraws\tblessed losses\tlosses\tlongest win\t\n")
	var tot egtb.Stats
	for _, e := range set.Manifest.Tables {
		s := e.Stats
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", e.WinCondition, e.Material,
			e.Entries-s.Broken, s.Wins, s.CursedWins, s.Draws, s.BlessedLosses, s.Losses, s.LongestWin)
		tot.Wins += s.Wins
		tot.CursedWins += s.CursedWins
		tot.Draws += s.Draws
		tot.BlessedLosses += s.BlessedLosses
		tot.Losses += s.Losses
		tot.LongestWin = max(tot.LongestWin, s.LongestWin)
	}
	fmt.Fprintf(tw, "all\t%d tables\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", len(set.Manifest.Tables),
		tot.Wins+tot.CursedWins+tot.Draws+tot.BlessedLosses+tot.Losses,
		tot.Wins, tot.CursedWins, tot.Draws, tot.BlessedLosses, tot.Losses, tot.LongestWin)
	return tw.Flush()
}

func runEgtbProbe(args []string, stdout io.Writer) error {
	fs := cli.NewFlags("egtb probe", stdout, `Usage: damone egtb probe [flags] DIR POSITION

Prints the tables' category (for the side to move, at the position's
counter) and DTC for a position text, and each legal move's.`)
	win := fs.String("win", "capture-all-pieces", "win condition: capture-all-pieces or capture-all-damones")
	limit := fs.Int("no-progress", engine.DefaultNoProgressLimit, "no-progress limit to answer for (0 = off)")
	rest, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return cli.Usagef("want DIR and POSITION, got %d arguments", len(rest))
	}
	wc := engine.CaptureAllPieces
	switch *win {
	case "capture-all-pieces":
	case "capture-all-damones":
		wc = engine.CaptureAllDamones
	default:
		return cli.Usagef("--win must be capture-all-pieces or capture-all-damones, got %q", *win)
	}
	if *limit < 0 {
		return cli.Usagef("--no-progress must be 0 or more, got %d", *limit)
	}
	pos, err := engine.ParsePosition(rest[1])
	if err != nil {
		return cli.Usagef("%v", err)
	}
	set, err := egtb.Open(rest[0])
	if err != nil {
		return err
	}
	show := func(p *engine.Position) (string, error) {
		v, err := set.Probe(p, wc)
		if err != nil {
			return "", err
		}
		a := v.At(p.NoProgress(), *limit, set.Limit())
		if a.HasDTC {
			return fmt.Sprintf("%s dtc %d", a.Category, a.DTC), nil
		}
		return a.Category.String(), nil
	}
	s, err := show(&pos)
	if err != nil {
		if errors.Is(err, egtb.ErrNotInTables) {
			return fmt.Errorf("%s: %w", strings.TrimSpace(rest[1]), err)
		}
		return err
	}
	fmt.Fprintf(stdout, "%s: %s\n", pos.String(), s)
	for _, m := range pos.LegalMoves() {
		q := pos.After(&m)
		cs, err := show(&q)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  %-12s %s (for the side then to move)\n", m.String(), cs)
	}
	return nil
}
