package helmchart_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"

	helmchart "github.com/damone-rules/damone/tools/helm"
)

// serveFlag is one flag of `damone serve --help`.
type serveFlag struct{ name, typ, env string }

// serveFlags runs `damone serve --help` from this checkout and reads every
// flag with its type and variable.
func serveFlags(t *testing.T) []serveFlag {
	t.Helper()
	cmd := exec.Command("go", "run", "./cmd/damone", "serve", "--help")
	cmd.Dir = helmchart.RepoRoot()
	out, _ := cmd.CombinedOutput() // --help exits non-zero under ff
	re := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)(?: (\w+))?\n\s+.*\(.*env (DAMONE_[A-Z0-9_]+)\)$`)
	var flags []serveFlag
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		flags = append(flags, serveFlag{m[1], m[2], m[3]})
	}
	if n := strings.Count(string(out), "\n  --"); len(flags) < 20 || len(flags) != n {
		t.Fatalf("read %d flags of %d in damone serve --help:\n%s", len(flags), n, out)
	}
	return flags
}

// rendered renders the defaults with --set assignments.
func rendered(t *testing.T, set ...string) []map[string]any {
	t.Helper()
	stream, err := helmchart.RenderFiles(helmchart.ChartDir(), nil, set, "default")
	if err != nil {
		t.Fatalf("--set %v: %v", set, err)
	}
	objs, err := helmchart.Objects(stream)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// envOf returns, for the damone container of each Deployment, its
// variables as the pod sees them: the ConfigMap's, then env over them.
func envOf(t *testing.T, objs []map[string]any) map[string]map[string]any {
	t.Helper()
	configMaps := map[string]map[string]any{}
	for _, o := range objs {
		if o["kind"] == "ConfigMap" {
			data, _ := o["data"].(map[string]any)
			configMaps[o["metadata"].(map[string]any)["name"].(string)] = data
		}
	}
	out := map[string]map[string]any{}
	for _, o := range objs {
		if o["kind"] != "Deployment" {
			continue
		}
		b, _ := json.Marshal(o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0])
		var c struct {
			EnvFrom []struct {
				ConfigMapRef struct{ Name string } `json:"configMapRef"`
			} `json:"envFrom"`
			Env []map[string]any `json:"env"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		vars := map[string]any{}
		for _, ef := range c.EnvFrom {
			cm, ok := configMaps[ef.ConfigMapRef.Name]
			if !ok {
				t.Fatalf("envFrom names ConfigMap %s, which is not rendered", ef.ConfigMapRef.Name)
			}
			for k, v := range cm {
				vars[k] = v
			}
		}
		for _, e := range c.Env {
			if vf, ok := e["valueFrom"]; ok {
				vars[e["name"].(string)] = vf
			} else {
				vars[e["name"].(string)] = e["value"]
			}
		}
		out[o["metadata"].(map[string]any)["name"].(string)] = vars
	}
	if len(out) != 2 {
		t.Fatalf("%d Deployments rendered, want 2", len(out))
	}
	return out
}

// sample is a value of the flag's type other than its default.
func sample(typ string) string {
	switch typ {
	case "int":
		return "7"
	case "duration":
		return "7s"
	case "":
		return "true"
	}
	return "/probe"
}

// TestConfigNumbersAsIntegers: --set config.X=1048576 (a number to Helm)
// reaches the pods as the integer's digits, not 1.048576e+06.
func TestConfigNumbersAsIntegers(t *testing.T) {
	env := envOf(t, rendered(t, "config.DAMONE_MAX_REQUEST_BYTES=1048576", "config.DAMONE_PPROF=true"))
	for _, d := range []string{"damone-rules", "damone-games"} {
		if got := env[d]["DAMONE_MAX_REQUEST_BYTES"]; got != "1048576" {
			t.Errorf("%s: DAMONE_MAX_REQUEST_BYTES %#v, want \"1048576\"", d, got)
		}
		if got := env[d]["DAMONE_PPROF"]; got != "true" {
			t.Errorf("%s: DAMONE_PPROF %#v, want \"true\"", d, got)
		}
	}
}

// TestEveryServeFlagIsReachable: each flag of `damone serve --help` can be
// set from values alone, and reaches the damone container of the
// Deployments it concerns as its DAMONE_ variable; the config keys of
// values.schema.json are exactly the flags that are not set elsewhere.
func TestEveryServeFlagIsReachable(t *testing.T) {
	flags := serveFlags(t)
	root, _ := readSchema(t)
	config := root.Properties["config"].Properties
	both := []string{"damone-rules", "damone-games"}
	// Flags set by a value of their own rather than a config key.
	elsewhere := map[string]struct {
		set  []string
		want map[string]map[string]any // Deployment -> variable -> value
	}{
		"DAMONE_SERVICES": {[]string{"rules.services=rules", "games.services=games\\,analysis"},
			map[string]map[string]any{"damone-rules": {"DAMONE_SERVICES": "rules"}, "damone-games": {"DAMONE_SERVICES": "games,analysis"}}},
		"DAMONE_GRPC_ADDR":    {[]string{"ports.grpc=19090"}, nil},
		"DAMONE_HTTP_ADDR":    {[]string{"ports.http=18080"}, nil},
		"DAMONE_METRICS_ADDR": {[]string{"ports.metrics=19102"}, nil},
		"DAMONE_POSTGRES_DSN": {[]string{"postgres.enabled=true", "postgres.dsnSecret.name=db", "postgres.dsnSecret.key=url"},
			map[string]map[string]any{"damone-games": {"DAMONE_STORE": "postgres", "DAMONE_POSTGRES_DSN": map[string]any{"secretKeyRef": map[string]any{"name": "db", "key": "url"}}}}},
	}
	addr := map[string]string{"DAMONE_GRPC_ADDR": ":19090", "DAMONE_HTTP_ADDR": ":18080", "DAMONE_METRICS_ADDR": ":19102"}
	for k, v := range addr {
		e := elsewhere[k]
		e.want = map[string]map[string]any{"damone-rules": {k: v}, "damone-games": {k: v}}
		elsewhere[k] = e
	}

	var names []string
	for _, f := range flags {
		names = append(names, f.env)
		t.Run(f.name, func(t *testing.T) {
			if f.env != "DAMONE_"+strings.ToUpper(strings.ReplaceAll(f.name, "-", "_")) {
				t.Fatalf("--%s is read from %s, not the variable the chart derives", f.name, f.env)
			}
			set, want := []string(nil), map[string]map[string]any{}
			if e, ok := elsewhere[f.env]; ok {
				if config[f.env] != nil {
					t.Errorf("%s is both a config key and set by %v", f.env, e.set)
				}
				set, want = e.set, e.want
			} else {
				if config[f.env] == nil {
					t.Fatalf("--%s: values.schema.json has no config.%s (add it, typed like the flag, or map the flag to a value of its own)", f.name, f.env)
				}
				v := sample(f.typ)
				set = []string{fmt.Sprintf("config.%s=%s", f.env, v)}
				for _, d := range both {
					want[d] = map[string]any{f.env: v}
					// A component's own env (rules.env sets
					// DAMONE_MAX_CONNECTION_AGE) wins over config: set it there.
					if i := envIndex(t, strings.TrimPrefix(d, "damone-"), f.env); i >= 0 {
						c := strings.TrimPrefix(d, "damone-")
						set = append(set, fmt.Sprintf("%s.env[%d].name=%s", c, i, f.env), fmt.Sprintf("%s.env[%d].value=%s", c, i, v))
					}
				}
			}
			// --set-string semantics for config: the values are strings.
			env := envOf(t, rendered(t, set...))
			for d, vars := range want {
				for k, v := range vars {
					if got, _ := json.Marshal(env[d][k]); string(got) != mustJSON(v) {
						t.Errorf("--set %v: %s's %s is %s, want %s", set, d, k, got, mustJSON(v))
					}
				}
			}
		})
	}
	for k := range config {
		if !slices.Contains(names, k) {
			t.Errorf("values.schema.json has config.%s, which is no flag of damone serve", k)
		}
	}
}

// envIndex is the index of name in the default values' COMPONENT.env, or -1.
func envIndex(t *testing.T, component, name string) int {
	t.Helper()
	ch, err := loader.Load(helmchart.ChartDir())
	if err != nil {
		t.Fatal(err)
	}
	env, _ := ch.Values[component].(map[string]any)["env"].([]any)
	for i, e := range env {
		if e.(map[string]any)["name"] == name {
			return i
		}
	}
	return -1
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
