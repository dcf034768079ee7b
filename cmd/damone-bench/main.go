// Command damone-bench is the load generator of the damone service, kept
// out of the server binary (which carries only what it serves). Its
// figures are in docs/BENCHMARKS.md.
//
//	damone-bench load [flags]    load a running server: list-legal-moves over gRPC and REST, validation, watch fan-out
//	damone-bench moves [flags]   play games on a server it starts per store: moves/s, CPU per move, long games
//	damone-bench fanout [flags]  replicas it starts on one PostgreSQL: events fanned out through LISTEN/NOTIFY, beside one replica
//	damone-bench soak [flags]    a real server under mixed load, killed and restarted each interval
//
// Run "damone-bench COMMAND --help" (or "damone-bench help COMMAND") for a
// command's flags; help goes to stdout.
package main

import (
	"io"
	"os"

	"github.com/damone-rules/damone/internal/cli"
)

func commands() []cli.Command {
	return []cli.Command{
		{Name: "load", Summary: "load a running server: list-legal-moves over gRPC and REST, validation, watch fan-out", Run: runLoadCommand},
		{Name: "moves", Summary: "play games on a server started per store: moves/s, CPU per move, store ratios, long games", Run: runMovesCommand},
		{Name: "fanout", Summary: "replicas on one PostgreSQL, moves on one, watchers on the others, beside one replica: events/s, commit to delivery, lost events", Run: runFanoutCommand},
		{Name: "soak", Summary: "a real server under mixed load, killed and restarted each interval: no lost moves, no upward trends", Run: runSoakCommand},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the process exit code (see
// cli.Main: 0 success, 1 failure, 2 usage error; help on stdout).
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Main("damone-bench", commands(), args, nil, stdout, stderr)
}
