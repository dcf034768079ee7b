// Command damone-chart renders and packages charts/damone with Helm's Go
// packages (no helm binary needed):
//
//	damone-chart render [-chart DIR] [-f VALUES]... [-set K=V]... [-namespace NS]
//	    the objects `helm template` would print, as one YAML stream on stdout
//	damone-chart package [-chart DIR] -version X.Y.Z [-out DIR]
//	    DIR/damone-X.Y.Z.tgz, version and appVersion X.Y.Z (make chart)
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	helmchart "github.com/damone-rules/damone/tools/helm"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	// Helm's loader logs each linked file it follows (files/ links to k8s/).
	log.SetOutput(io.Discard)
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: damone-chart render|package [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("damone-chart "+os.Args[1], flag.ExitOnError)
	dir := fs.String("chart", helmchart.ChartDir(), "the chart's folder")
	var err error
	switch os.Args[1] {
	case "render":
		var files, set list
		fs.Var(&files, "f", "a values file (repeatable; later ones win)")
		fs.Var(&set, "set", "a value, as helm --set K=V (repeatable)")
		ns := fs.String("namespace", "default", "the release's namespace")
		_ = fs.Parse(os.Args[2:])
		var out string
		out, err = helmchart.RenderFiles(*dir, files, set, *ns)
		if err == nil {
			_, err = io.WriteString(os.Stdout, out)
		}
	case "package":
		version := fs.String("version", "", "the chart's version and appVersion (X.Y.Z)")
		out := fs.String("out", "dist", "where to write damone-VERSION.tgz")
		_ = fs.Parse(os.Args[2:])
		if *version == "" {
			err = fmt.Errorf("-version is required")
			break
		}
		var path string
		path, err = helmchart.Package(*dir, *version, *out)
		if err == nil {
			fmt.Println(path)
		}
	default:
		err = fmt.Errorf("unknown command %q (render or package)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "damone-chart:", err)
		os.Exit(1)
	}
}
