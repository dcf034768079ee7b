package helmchart_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	helmchart "github.com/damone-rules/damone/tools/helm"
)

// schemaNode is the part of values.schema.json the walk reads.
type schemaNode struct {
	Type                 any                    `json:"type"`
	Ref                  string                 `json:"$ref"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties any                    `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
}

func readSchema(t *testing.T) (*schemaNode, map[string]*schemaNode) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(helmchart.ChartDir(), "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		schemaNode
		Defs map[string]*schemaNode `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s.schemaNode, s.Defs
}

// validate checks values (the defaults with one change) as `helm install`
// does, returning its error.
func validate(t *testing.T, change func(v map[string]any)) error {
	t.Helper()
	ch, err := loader.Load(helmchart.ChartDir())
	if err != nil {
		t.Fatal(err)
	}
	// A deep copy of the defaults, changed.
	b, _ := json.Marshal(ch.Values)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	change(v)
	_, err = chartutil.ToRenderValues(ch, v, chartutil.ReleaseOptions{Name: "damone", Namespace: "default"}, nil)
	return err
}

// at returns the map at the dotted path of v, making it if absent.
func at(v map[string]any, path []string) map[string]any {
	for _, p := range path {
		next, ok := v[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			v[p] = next
		}
		v = next
	}
	return v
}

// TestSchemaRejectsUnknownKeys: every object of values.schema.json that
// lists its properties refuses any other (additionalProperties false),
// and a values file with an unknown key at that level is refused with a
// message naming the place and the key.
func TestSchemaRejectsUnknownKeys(t *testing.T) {
	root, _ := readSchema(t)
	var walk func(path []string, n *schemaNode)
	checked := 0
	walk = func(path []string, n *schemaNode) {
		if n.Properties == nil {
			return
		}
		where := "/" + strings.Join(path, "/")
		if n.AdditionalProperties != false {
			t.Errorf("schema at %s lists properties but does not set additionalProperties: false", where)
		}
		checked++
		err := validate(t, func(v map[string]any) { at(v, path)["bogusKey"] = "x" })
		if err == nil {
			t.Errorf("values with an unknown key bogusKey at %s were accepted", where)
		} else if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("at '%s'", strings.TrimSuffix(where, "/"))) || !strings.Contains(msg, "bogusKey") {
			t.Errorf("unknown key at %s: the message does not name the place and the key:\n%s", where, msg)
		}
		for k, c := range n.Properties {
			walk(append(append([]string{}, path...), k), c)
		}
	}
	walk(nil, root)
	if checked < 20 {
		t.Fatalf("checked only %d objects of the schema: the walk is broken", checked)
	}
}

// TestSchemaRejectsWrongTypes: each value of a scalar or list type, given
// a value of another type (an object), is refused with a message naming
// the place and both types.
func TestSchemaRejectsWrongTypes(t *testing.T) {
	root, defs := readSchema(t)
	checked := 0
	var walk func(path []string, n *schemaNode)
	walk = func(path []string, n *schemaNode) {
		if n.Ref != "" {
			n = defs[strings.TrimPrefix(n.Ref, "#/$defs/")]
		}
		for k, c := range n.Properties {
			walk(append(append([]string{}, path...), k), c)
		}
		if n.Properties != nil || len(path) == 0 {
			return
		}
		where := "/" + strings.Join(path, "/")
		types := fmt.Sprint(n.Type)
		if n.Type == nil || strings.Contains(types, "object") {
			return
		}
		checked++
		err := validate(t, func(v map[string]any) {
			at(v, path[:len(path)-1])[path[len(path)-1]] = map[string]any{"a": "b"}
		})
		if err == nil {
			t.Errorf("an object at %s (type %s) was accepted", where, types)
		} else if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("at '%s'", where)) || !strings.Contains(msg, "got object") {
			t.Errorf("wrong type at %s: the message does not name the place and the types:\n%s", where, msg)
		}
	}
	walk(nil, root)
	if checked < 40 {
		t.Fatalf("checked only %d values of the schema: the walk is broken", checked)
	}
}

// TestSchemaMessages: a few mistakes an operator makes, and what they read.
func TestSchemaMessages(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(v map[string]any)
		want   []string
	}{
		{"replicas as words", func(v map[string]any) { at(v, []string{"games"})["replicas"] = "two" },
			[]string{"at '/games/replicas'", "got string, want null or integer"}},
		{"a misspelt setting", func(v map[string]any) { at(v, []string{"config"})["DAMONE_LOG_LEVLE"] = "debug" },
			[]string{"at '/config'", "DAMONE_LOG_LEVLE"}},
		{"a number where the variable is a word", func(v map[string]any) { at(v, []string{"config"})["DAMONE_LOG_LEVEL"] = 5 },
			[]string{"at '/config/DAMONE_LOG_LEVEL'", "got number, want string"}},
		{"a fraction for an integer flag", func(v map[string]any) { at(v, []string{"config"})["DAMONE_MAX_GAMES"] = 1.5 },
			[]string{"at '/config/DAMONE_MAX_GAMES'", "want integer or string"}},
		{"a duration that is not one", func(v map[string]any) { at(v, []string{"config"})["DAMONE_DRAIN_TIMEOUT"] = "20 seconds" },
			[]string{"at '/config/DAMONE_DRAIN_TIMEOUT'", "does not match pattern"}},
		{"a bool that is not one", func(v map[string]any) { at(v, []string{"config"})["DAMONE_PPROF"] = "yes" },
			[]string{"at '/config/DAMONE_PPROF'", "value must be one of"}},
		{"a port out of range", func(v map[string]any) { at(v, []string{"ports"})["grpc"] = 70000 },
			[]string{"at '/ports/grpc'", "maximum"}},
		{"an unknown service", func(v map[string]any) { at(v, []string{"rules"})["services"] = "rules,chess" },
			[]string{"at '/rules/services'", "does not match pattern"}},
		{"an env item with a typo", func(v map[string]any) {
			at(v, []string{"games"})["env"] = []any{map[string]any{"name": "DAMONE_X", "vaule": "1"}}
		}, []string{"at '/games/env/0'", "vaule"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := validate(t, c.change)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message does not say %q:\n%v", w, err)
				}
			}
		})
	}
	if err := validate(t, func(map[string]any) {}); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
}
