// Command damone-rules writes damone's recording rules and alerts (the
// spec.groups of k8s/base/prometheusrule.yaml, a PrometheusRule) as a plain
// Prometheus rules file, for a Prometheus run without the Prometheus
// Operator and for promtool. `make test-rules` runs it.
//
//	go run ./k8s/cmd/damone-rules [-k8s k8s] [-out FILE]   # FILE "-" (the default) is stdout
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/damone-rules/damone/k8s"
)

func main() {
	dir := flag.String("k8s", "k8s", "folder that holds base/ and overlays/")
	out := flag.String("out", "-", `file to write the rules into ("-": stdout)`)
	flag.Parse()
	b, err := k8s.RulesFile(*dir)
	if err == nil {
		if *out == "-" {
			_, err = os.Stdout.Write(b)
		} else {
			err = os.WriteFile(*out, b, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "damone-rules:", err)
		os.Exit(1)
	}
}
