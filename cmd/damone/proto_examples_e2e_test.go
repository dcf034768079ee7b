package main

// The "JSON example" of each proto message's comment is a test too
// (issue 13, "documentation as tests"): read from the .proto files, it
// must decode as the message it documents (field names, enum values,
// types; … or ... standing for what is left out), and a request example
// is sent to its RPC's REST route, as docs/api.md's route table gives it,
// on the real binary, and must be served (2xx).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/damone-rules/damone/gen/go/damone/v1"
)

// protoExample is one "JSON example" of a proto comment.
type protoExample struct {
	where   string // file:line
	message string // full name, e.g. damone.v1.Piece
	json    string
}

func protoExamples(t *testing.T) []protoExample {
	t.Helper()
	files, err := filepath.Glob("../../proto/damone/v1/*.proto")
	if err != nil || len(files) == 0 {
		t.Fatalf("no proto files: %v", err)
	}
	messageLine := regexp.MustCompile(`^message (\w+) \{`)
	var out []protoExample
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		var comment []string
		start, n := 0, 0
		for sc.Scan() {
			n++
			line := strings.TrimSpace(sc.Text())
			if c, ok := strings.CutPrefix(line, "//"); ok {
				if len(comment) == 0 {
					start = n
				}
				comment = append(comment, strings.TrimSpace(c))
				continue
			}
			text := strings.Join(comment, " ")
			comment = nil
			i := strings.Index(text, "JSON example")
			if i < 0 {
				continue
			}
			where := fmt.Sprintf("%s:%d", filepath.Base(f), start)
			m := messageLine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: a JSON example in a comment that is not a message's", where)
				continue
			}
			body := text[i:]
			a, b := strings.Index(body, "`{"), strings.LastIndex(body, "}`")
			if a < 0 || b <= a {
				t.Errorf("%s: the JSON example of %s is not an object in `...`", where, m[1])
				continue
			}
			out = append(out, protoExample{where, "damone.v1." + m[1], body[a+1 : b+1]})
		}
		fh.Close()
	}
	return out
}

// withoutElisions drops what stands for omitted content: "…" keys and
// elements (after ellipsize, which reads ... as … too).
func withoutElisions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k != "…" {
				out[k] = withoutElisions(x)
			}
		}
		return out
	case []any:
		var out []any
		for _, x := range v {
			if s, ok := x.(string); !ok || s != "…" {
				out = append(out, withoutElisions(x))
			}
		}
		return out
	}
	return v
}

// restRoutes reads docs/api.md's REST routes table: RPC method name (e.g.
// RulesService.Perft) → HTTP method and path, and what the body is.
func restRoutes(t *testing.T) map[string][3]string {
	t.Helper()
	routes := map[string][3]string{}
	for _, it := range parseDoc(t, "../../docs/api.md") {
		if it.kind != "table" || len(it.rows[0]) < 3 || it.rows[0][0].text != "RPC" {
			continue
		}
		for _, row := range it.rows[1:] {
			rpc := strings.Trim(row[0].text, "`")
			method, path, _ := strings.Cut(strings.Trim(row[1].text, "`"), " ")
			routes[rpc] = [3]string{method, path, row[2].text}
		}
	}
	if len(routes) == 0 {
		t.Fatal("docs/api.md: no REST routes table")
	}
	return routes
}

func TestProtoJSONExamples(t *testing.T) {
	examples := protoExamples(t)
	if len(examples) == 0 {
		t.Fatal("no JSON example found in the protos: the extraction is broken")
	}
	s := svStart(t)
	routes := restRoutes(t)
	sent := 0
	for _, ex := range examples {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(ex.message))
		if err != nil {
			t.Errorf("%s: %s: %v", ex.where, ex.message, err)
			continue
		}
		vals, err := decodeJSONSeq(ellipsize(strings.ReplaceAll(ex.json, "...", "…")))
		if err != nil || len(vals) != 1 {
			t.Errorf("%s: the JSON example of %s is not one JSON value (%v): %s", ex.where, ex.message, err, ex.json)
			continue
		}
		full := withoutElisions(vals[0])
		b, _ := json.Marshal(full)
		if err := protojson.Unmarshal(b, mt.New().Interface()); err != nil {
			t.Errorf("%s: the JSON example is no %s: %v\n%s", ex.where, ex.message, err, ex.json)
			continue
		}
		// A request example whose route has no path variable: send it.
		if !strings.HasSuffix(ex.message, "Request") || strings.Contains(ex.json, "…") || strings.Contains(ex.json, "...") {
			continue
		}
		var rpc string
		for _, sd := range []string{"RulesService", "GameService", "AnalysisService"} {
			name := sd + "." + strings.TrimSuffix(strings.TrimPrefix(ex.message, "damone.v1."), "Request")
			if _, ok := routes[name]; ok {
				rpc = name
			}
		}
		route, ok := routes[rpc]
		if !ok || strings.Contains(route[1], "{") || strings.Contains(route[2], "NDJSON") {
			continue
		}
		body := full
		if route[2] == "the game field" {
			body = full.(map[string]any)["game"]
		}
		st, raw := svHTTP(t, route[0], s.url(route[1]), "", body)
		if st/100 != 2 {
			t.Errorf("%s: the JSON example of %s, sent to %s %s, answers %d %s", ex.where, ex.message, route[0], route[1], st, raw)
		}
		sent++
	}
	t.Logf("%d proto JSON examples decoded, %d sent to their REST routes", len(examples), sent)
}
