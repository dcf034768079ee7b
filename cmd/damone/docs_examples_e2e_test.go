package main

// The documentation's examples are tests (issue 13, "documentation as
// tests"): every example in README.md, docs/api.md and docs/notation.md
// runs against the real binary (`damone serve` on free loopback ports, one
// server per file), read from the Markdown itself, so a doc edit that no
// longer matches the service fails here. Nothing of the examples is copied
// into this file.
//
// What counts as an example, and how it runs:
//
//   - A fenced `sh` block that calls the service (runs curl or grpcurl)
//     is run, in document
//     order, by a shell interpreter (mvdan.cc/sh), one shell per file, so
//     variables set in one block ($GAME, $RED) hold in the next. Its
//     commands are curl (net/http; localhost:8080 is the server's REST
//     address, localhost:9102 its metrics, localhost:9090 its gRPC), jq
//     (gojq), grpcurl (a gRPC call with the JSON given), tee, grep and the
//     shell's builtins; any other program fails the example. Paths under
//     /tmp/ are the test's temporary directory. A streamed answer is read
//     until it ends or is quiet for a while (as one would stop it with
//     Ctrl-C). Every HTTP call must answer 2xx, except the block's last
//     one when an answer is shown after the block: then its status is the
//     one the paragraph before the block states ("HTTP 400"), and the
//     gRPC code that paragraph names is the body's "code".
//   - A code block right after such a block is the documented output: JSON
//     values (one or more, e.g. NDJSON) compared field by field, or else
//     text compared line by line. In JSON, … stands for what is left out:
//     an object with a "…" key (or a bare … ) may have more fields, an
//     array with a "…" element more elements there, and a string with … in
//     it any text there. A field missing from the answer is read as its
//     default (proto JSON leaves defaults out). Values that differ on
//     every run (ids, tokens, etags, times, speeds: volatileKeys) are not
//     compared; the example's value stands for the real one from then on,
//     so a later command may use a documented id or token.
//   - Every other JSON block of these files fails the test: a JSON example
//     must be shown as the answer of a request that produces it.
//   - A table with an `input` and an `error` column lists errors: each
//     input is sent to the service (a square as a piece's square, a
//     position text, a PDN game, or, with a `position` column, a move in
//     that position, by the section it is in) and must be refused with
//     400 and a message holding the error's text (... for omissions).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// docFiles are the documents whose examples run, from the module root.
var docFiles = []string{"README.md", "docs/api.md", "docs/notation.md"}

// volatileKeys are the JSON fields whose values differ from run to run.
var volatileKeys = map[string]bool{
	"name": true, "game": true, "red_token": true, "black_token": true, "etag": true,
	"create_time": true, "update_time": true, "event_time": true, "deadline": true, "first_move_deadline": true,
	"nodes_per_second": true, "elapsed": true,
}

// docQuiet is how long a streamed answer may be quiet before the example
// stops reading it.
const docQuiet = 3 * time.Second

func TestDocsExamples(t *testing.T) {
	for _, f := range docFiles {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			runDocExamples(t, f)
		})
	}
}

// docItem is one block of a Markdown document, in document order.
type docItem struct {
	kind  string // "heading", "para", "code" or "table"
	line  int
	level int    // heading
	text  string // heading or paragraph text
	lang  string // code
	code  string // code
	rows  [][]docCell
}

// docCell is a table cell: its text, and its parts, code spans or not.
type docCell struct {
	text  string
	parts []docPart
}

type docPart struct {
	code bool
	s    string
}

func parseDoc(t *testing.T, path string) []docItem {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	root := md.Parser().Parse(text.NewReader(src))
	lineOf := func(off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }
	linesOf := func(n gast.Node) (string, int) {
		var b strings.Builder
		ls := n.Lines()
		line := 0
		for i := 0; i < ls.Len(); i++ {
			seg := ls.At(i)
			if i == 0 {
				line = lineOf(seg.Start)
			}
			b.Write(seg.Value(src))
		}
		return b.String(), line
	}
	var items []docItem
	err = gast.Walk(root, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *gast.Heading:
			s, line := linesOf(n)
			items = append(items, docItem{kind: "heading", line: line, level: n.Level, text: strings.TrimSpace(s)})
			return gast.WalkSkipChildren, nil
		case *gast.Paragraph:
			s, line := linesOf(n)
			items = append(items, docItem{kind: "para", line: line, text: s})
			return gast.WalkSkipChildren, nil
		case *gast.FencedCodeBlock:
			s, line := linesOf(n)
			items = append(items, docItem{kind: "code", line: line - 1, lang: string(n.Language(src)), code: s})
			return gast.WalkSkipChildren, nil
		case *east.Table:
			it := docItem{kind: "table"}
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				var row []docCell
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					var cell docCell
					inlineParts(c, src, &cell.parts, false)
					for _, p := range cell.parts {
						cell.text += p.s
					}
					cell.text = strings.TrimSpace(cell.text)
					row = append(row, cell)
				}
				it.rows = append(it.rows, row)
				if it.line == 0 && r.FirstChild() != nil {
					if tx := firstText(r); tx != nil {
						it.line = lineOf(tx.Segment.Start)
					}
				}
			}
			items = append(items, it)
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func firstText(n gast.Node) *gast.Text {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if tx, ok := c.(*gast.Text); ok {
			return tx
		}
		if tx := firstText(c); tx != nil {
			return tx
		}
	}
	return nil
}

// inlineParts appends the text of n's inline children, code spans apart.
func inlineParts(n gast.Node, src []byte, parts *[]docPart, code bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *gast.Text:
			*parts = append(*parts, docPart{code, string(c.Value(src))})
		case *gast.String:
			*parts = append(*parts, docPart{code, string(c.Value)})
		case *gast.CodeSpan:
			var inner []docPart
			inlineParts(c, src, &inner, true)
			var s strings.Builder
			for _, p := range inner {
				s.WriteString(p.s)
			}
			*parts = append(*parts, docPart{true, s.String()})
		default:
			inlineParts(c, src, parts, code)
		}
	}
}

// callsServer: the sh block calls the service, with curl or grpcurl.
func callsServer(code string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(code), "")
	if err != nil {
		return true // and the run reports the parse error
	}
	calls := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if w := c.Args[0].Lit(); w == "curl" || w == "grpcurl" {
				calls = true
			}
		}
		return !calls
	})
	return calls
}

// isJSONBlock: a code block that shows JSON.
func isJSONBlock(it docItem) bool {
	if it.lang == "json" || it.lang == "ndjson" {
		return true
	}
	if it.lang != "" {
		return false
	}
	vs, err := decodeJSONSeq(ellipsize(it.code))
	return err == nil && len(vs) > 0
}

func runDocExamples(t *testing.T, rel string) {
	items := parseDoc(t, filepath.Join("..", "..", rel))
	s := svStart(t)
	r := newDocShell(t, s, rel)
	consumed := map[int]bool{}
	section := ""
	var blocks, outputs, errorRows int
	for i, it := range items {
		switch it.kind {
		case "heading":
			if it.level == 2 {
				section = it.text
			}
		case "table":
			errorRows += runErrorTable(t, s, rel, section, it)
		case "code":
			switch {
			case it.lang == "sh" && callsServer(it.code):
				var expect *docItem
				if i+1 < len(items) && items[i+1].kind == "code" && items[i+1].lang != "sh" {
					expect = &items[i+1]
					consumed[i+1] = true
					outputs++
				}
				para := ""
				if i > 0 && items[i-1].kind == "para" {
					para = items[i-1].text
				}
				r.runBlock(it, expect, para)
				blocks++
			case isJSONBlock(it) && !consumed[i]:
				t.Errorf("%s:%d: a JSON example that no test runs: show it as the answer of a request, right after a sh block that calls the service", rel, it.line)
			}
		}
	}
	t.Logf("%s: %d sh blocks run (%d HTTP calls, %d gRPC calls), %d documented outputs compared, %d error table rows", rel, blocks, r.httpCalls, r.grpcCalls, outputs, errorRows)
	if blocks == 0 {
		t.Errorf("%s: no sh block calling the service found: the extraction is broken", rel)
	}
}

// docShell runs a document's sh blocks, one shell for the whole document.
type docShell struct {
	t                    *testing.T
	s                    *svServer
	file                 string
	dir                  string
	runner               *interp.Runner
	binds                map[string]string // documented value → real one
	calls                []int             // HTTP statuses of the current block
	httpCalls, grpcCalls int
}

func newDocShell(t *testing.T, s *svServer, file string) *docShell {
	d := &docShell{t: t, s: s, file: file, dir: t.TempDir(), binds: map[string]string{}}
	var err error
	d.runner, err = interp.New(
		interp.Env(expand.ListEnviron("HOME="+d.dir, "PATH=/nonexistent", "LC_ALL=C")),
		interp.Dir(d.dir),
		interp.Params("-e", "-o", "pipefail"),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return d.exec }),
		interp.OpenHandler(func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
			p, err := d.path(path)
			if err != nil {
				return nil, err
			}
			return interp.DefaultOpenHandler()(ctx, p, flag, perm)
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// path maps a path of the docs to the test's: /tmp/x is the temporary
// directory's x; /dev/null is itself; nothing else is touched.
func (d *docShell) path(p string) (string, error) {
	switch {
	case p == "/dev/null":
		return p, nil
	case strings.HasPrefix(p, "/tmp/"):
		return filepath.Join(d.dir, strings.TrimPrefix(p, "/tmp/")), nil
	}
	return "", fmt.Errorf("the docs test touches only /tmp/ paths, not %q", p)
}

// substitute replaces the documented values that stand for real ones.
func (d *docShell) substitute(s string) string {
	keys := make([]string, 0, len(d.binds))
	for k := range d.binds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, d.binds[k])
	}
	return s
}

func (d *docShell) runBlock(it docItem, expect *docItem, para string) {
	t := d.t
	where := fmt.Sprintf("%s:%d", d.file, it.line)
	src := d.substitute(it.code)
	prog, err := syntax.NewParser().Parse(strings.NewReader(src), where)
	if err != nil {
		t.Errorf("%s: the sh block does not parse: %v", where, err)
		return
	}
	var stdout, stderr bytes.Buffer
	if err := interp.StdIO(strings.NewReader(""), &stdout, &stderr)(d.runner); err != nil {
		t.Fatal(err)
	}
	d.calls = nil
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := d.runner.Run(ctx, prog); err != nil {
		t.Errorf("%s: the example fails: %v\nstdout:\n%s\nstderr:\n%s", where, err, stdout.String(), stderr.String())
		return
	}
	wantStatus := 0
	if expect != nil {
		if m := regexp.MustCompile(`HTTP,? (?:status )?(\d{3})`).FindStringSubmatch(para); m != nil {
			wantStatus, _ = strconv.Atoi(m[1])
		}
	}
	for j, st := range d.calls {
		last := j == len(d.calls)-1
		switch {
		case last && wantStatus != 0:
			if st != wantStatus {
				t.Errorf("%s: HTTP status %d, the paragraph before the example says %d", where, st, wantStatus)
			}
		case st/100 != 2:
			t.Errorf("%s: HTTP call %d of the block answered %d (only a last call with its answer shown and its status stated may fail)\nstdout:\n%s", where, j+1, st, stdout.String())
		}
	}
	if expect == nil {
		return
	}
	ewhere := fmt.Sprintf("%s:%d", d.file, expect.line)
	if !isJSONBlock(*expect) {
		want := strings.TrimSpace(d.substitute(expect.code))
		if got := strings.TrimSpace(stdout.String()); got != want {
			t.Errorf("%s: the documented output is not the real one:\n--- documented\n%s\n--- real\n%s", ewhere, want, got)
		}
		return
	}
	wants, err := decodeJSONSeq(ellipsize(expect.code))
	if err != nil {
		t.Errorf("%s: the documented JSON does not parse: %v", ewhere, err)
		return
	}
	gots, err := decodeJSONSeq(stdout.String())
	if err != nil {
		t.Errorf("%s: the real output is not JSON: %v\n%s", where, err, stdout.String())
		return
	}
	if len(wants) != len(gots) {
		t.Errorf("%s: %d JSON values documented, %d real:\n%s", ewhere, len(wants), len(gots), stdout.String())
		return
	}
	for k := range wants {
		d.bind(wants[k], gots[k], "")
	}
	var diffs []string
	for k := range wants {
		diffs = append(diffs, d.match(fmt.Sprintf("[%d]", k), wants[k], gots[k], "")...)
	}
	if m := regexp.MustCompile("gRPC `([A-Z_]+)`").FindStringSubmatch(para); m != nil && len(gots) == 1 {
		var c codes.Code
		if err := c.UnmarshalJSON([]byte(strconv.Quote(m[1]))); err != nil {
			diffs = append(diffs, fmt.Sprintf("the paragraph names gRPC code %s, which is none", m[1]))
		} else if obj, ok := gots[0].(map[string]any); !ok || fmt.Sprint(obj["code"]) != strconv.Itoa(int(c)) {
			diffs = append(diffs, fmt.Sprintf("the paragraph says gRPC %s (%d); the body's code is %v", m[1], c, obj["code"]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("%s: the documented output is not the real one:\n  %s\nreal output:\n%s", ewhere, strings.Join(diffs, "\n  "), stdout.String())
	}
}

// ellipsize makes a documented JSON text valid JSON: a bare … becomes
// "…": "…" in an object and "…" in an array.
func ellipsize(s string) string {
	var b strings.Builder
	var stack []rune
	inString, escaped := false, false
	for _, c := range s {
		if inString {
			b.WriteRune(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '…':
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				b.WriteString(`"…": "…"`)
			} else {
				b.WriteString(`"…"`)
			}
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func decodeJSONSeq(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out []any
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// aligned pairs the documented elements of an array with real ones: all of
// them, or those before a "…" element with the first real ones and those
// after it with the last.
func aligned(want, got []any) (pairs [][2]any, ok bool) {
	i := slices.Index(want, any("…"))
	if i < 0 {
		if len(want) != len(got) {
			return nil, false
		}
		for k := range want {
			pairs = append(pairs, [2]any{want[k], got[k]})
		}
		return pairs, true
	}
	pre, post := want[:i], want[i+1:]
	if len(got) < len(pre)+len(post) {
		return nil, false
	}
	for k := range pre {
		pairs = append(pairs, [2]any{pre[k], got[k]})
	}
	for k := range post {
		pairs = append(pairs, [2]any{post[k], got[len(got)-len(post)+k]})
	}
	return pairs, true
}

// bind records, for each volatile field, the real value the documented one
// stands for.
func (d *docShell) bind(want, got any, key string) {
	switch w := want.(type) {
	case string:
		if g, ok := got.(string); ok && volatileKeys[key] && w != "…" && g != "" {
			if _, done := d.binds[w]; !done {
				d.binds[w] = g
			}
		}
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			for k, v := range w {
				d.bind(v, g[k], k)
			}
		}
	case []any:
		if g, ok := got.([]any); ok {
			if pairs, ok := aligned(w, g); ok {
				for _, p := range pairs {
					d.bind(p[0], p[1], key)
				}
			}
		}
	}
}

func isZeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return err == nil && f == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// match compares a documented JSON value with the real one.
func (d *docShell) match(path string, want, got any, key string) []string {
	if w, ok := want.(string); ok && w == "…" {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: documented an object, real %s", path, docJSON(got))}
		}
		var diffs []string
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "…" {
				continue
			}
			gv, present := g[k]
			if !present {
				if !isZeroJSON(w[k]) {
					diffs = append(diffs, fmt.Sprintf("%s.%s: documented %s, missing from the real answer", path, k, docJSON(w[k])))
				}
				continue
			}
			diffs = append(diffs, d.match(path+"."+k, w[k], gv, k)...)
		}
		if _, open := w["…"]; !open {
			for k := range g {
				if _, documented := w[k]; !documented {
					diffs = append(diffs, fmt.Sprintf("%s.%s: real %s, not documented (add it, or \"…\": \"…\")", path, k, docJSON(g[k])))
				}
			}
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: documented an array, real %s", path, docJSON(got))}
		}
		pairs, ok := aligned(w, g)
		if !ok {
			return []string{fmt.Sprintf("%s: documented %d elements %s, real %d", path, len(w), docJSON(w), len(g))}
		}
		var diffs []string
		for k, p := range pairs {
			diffs = append(diffs, d.match(fmt.Sprintf("%s[%d]", path, k), p[0], p[1], key)...)
		}
		return diffs
	case string:
		g, ok := got.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: documented %q, real %s", path, w, docJSON(got))}
		}
		if volatileKeys[key] {
			if g == "" {
				return []string{fmt.Sprintf("%s: documented %q, real empty", path, w)}
			}
			return nil
		}
		w = d.substitute(w)
		if !matchElided(w, g, "…", true) {
			return []string{fmt.Sprintf("%s: documented %q, real %q", path, w, g)}
		}
		return nil
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return []string{fmt.Sprintf("%s: documented %s, real %s", path, w, docJSON(got))}
		}
		wf, _, err1 := big.ParseFloat(string(w), 10, 200, big.ToNearestEven)
		gf, _, err2 := big.ParseFloat(string(g), 10, 200, big.ToNearestEven)
		if err1 != nil || err2 != nil || wf.Cmp(gf) != 0 {
			return []string{fmt.Sprintf("%s: documented %s, real %s", path, w, g)}
		}
		return nil
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return []string{fmt.Sprintf("%s: documented %s, real %s", path, docJSON(want), docJSON(got))}
		}
		return nil
	}
}

func docJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// matchElided reports whether got is want with each sep standing for any
// text; anchored, the first and last pieces are got's start and end.
func matchElided(want, got, sep string, anchored bool) bool {
	pieces := strings.Split(want, sep)
	if len(pieces) == 1 {
		if anchored {
			return want == got
		}
		return strings.Contains(got, want)
	}
	rest := got
	for i, p := range pieces {
		switch {
		case i == 0 && anchored:
			if !strings.HasPrefix(rest, p) {
				return false
			}
			rest = rest[len(p):]
		case i == len(pieces)-1 && anchored:
			return strings.HasSuffix(rest, p)
		default:
			k := strings.Index(rest, p)
			if k < 0 {
				return false
			}
			rest = rest[k+len(p):]
		}
	}
	return true
}

// exec runs one command of an example.
func (d *docShell) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	var err error
	switch args[0] {
	case "curl":
		err = d.curl(ctx, hc, args[1:])
	case "jq":
		err = d.jq(hc, args[1:])
	case "grpcurl":
		err = d.grpcurl(ctx, hc, args[1:])
	case "tee":
		err = d.tee(hc, args[1:])
	case "grep":
		err = d.grep(hc, args[1:])
	default:
		err = fmt.Errorf("the docs test runs no %q (curl, jq, grpcurl, tee, grep and the shell's builtins only)", args[0])
	}
	var status interp.ExitStatus
	if errors.As(err, &status) {
		return err
	}
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %v\n", args[0], err)
		return interp.NewExitStatus(2)
	}
	return nil
}

// addr maps a documented address to the test server's.
func (d *docShell) addr(hostport string) (string, error) {
	switch hostport {
	case "localhost:8080":
		return d.s.httpAddr, nil
	case "localhost:9090":
		return d.s.grpcAddr, nil
	case "localhost:9102":
		return d.s.metricsAddr, nil
	}
	return "", fmt.Errorf("address %q is not one of the server's documented defaults", hostport)
}

// readQuietly copies r to w until r ends, or is quiet for docQuiet, or
// ctx ends; stop is called to end r early.
func readQuietly(r io.Reader, w io.Writer, stop func()) error {
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk)
	go func() {
		for {
			buf := make([]byte, 32<<10)
			n, err := r.Read(buf)
			ch <- chunk{buf[:n], err}
			if err != nil {
				close(ch)
				return
			}
		}
	}()
	timer := time.NewTimer(docQuiet)
	defer timer.Stop()
	for {
		select {
		case c := <-ch:
			w.Write(c.b)
			if c.err == io.EOF {
				return nil
			}
			if c.err != nil {
				return c.err
			}
			timer.Reset(docQuiet)
		case <-timer.C:
			stop()
			for range ch { // drain until the reader sees the stop
			}
			return nil
		}
	}
}

// curl is curl as the docs use it: -s -S -N, -X, -d/--data-binary (@- for
// stdin, @FILE), -H, a URL without scheme; the body goes to stdout.
func (d *docShell) curl(ctx context.Context, hc interp.HandlerContext, args []string) error {
	method, target := "", ""
	var body *string
	headers := http.Header{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "-X" || a == "--request":
			v, err := next()
			if err != nil {
				return err
			}
			method = v
		case a == "-d" || a == "--data" || a == "--data-binary" || a == "--data-raw":
			v, err := next()
			if err != nil {
				return err
			}
			if body != nil {
				return fmt.Errorf("the docs test takes one -d only")
			}
			if strings.HasPrefix(v, "@") && a != "--data-raw" {
				var b []byte
				if v == "@-" {
					b, err = io.ReadAll(hc.Stdin)
				} else {
					var p string
					if p, err = d.path(v[1:]); err == nil {
						b, err = os.ReadFile(p)
					}
				}
				if err != nil {
					return err
				}
				v = string(b)
				if a != "--data-binary" { // curl drops the line ends of -d @file
					v = strings.NewReplacer("\r", "", "\n", "").Replace(v)
				}
			}
			body = &v
		case a == "-H" || a == "--header":
			v, err := next()
			if err != nil {
				return err
			}
			name, val, ok := strings.Cut(v, ":")
			if !ok {
				return fmt.Errorf("header %q has no ':'", v)
			}
			headers.Add(strings.TrimSpace(name), strings.TrimSpace(val))
		case a == "--no-buffer" || a == "--silent" || a == "--show-error":
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			for _, c := range a[1:] {
				if !strings.ContainsRune("sSN", c) {
					return fmt.Errorf("the docs test does not know curl's -%c", c)
				}
			}
		case strings.HasPrefix(a, "-"):
			return fmt.Errorf("the docs test does not know curl's %s", a)
		default:
			if target != "" {
				return fmt.Errorf("two URLs: %q and %q", target, a)
			}
			target = a
		}
	}
	if !strings.Contains(target, "://") {
		target = "http://" + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	if u.Host, err = d.addr(u.Host); err != nil {
		return err
	}
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(*body)
		if headers.Get("Content-Type") == "" {
			headers.Set("Content-Type", "application/x-www-form-urlencoded") // curl's, for -d
		}
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	req.Header = headers
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return interp.NewExitStatus(7) // curl's "failed to connect"
	}
	defer resp.Body.Close()
	d.calls = append(d.calls, resp.StatusCode)
	d.httpCalls++
	if err := readQuietly(resp.Body, hc.Stdout, cancel); err != nil && rctx.Err() == nil {
		return err
	}
	return nil
}

// jq is jq (gojq) with -r, -c and -n, a filter and optional files.
func (d *docShell) jq(hc interp.HandlerContext, args []string) error {
	raw, compact, null := false, false, false
	filter := ""
	var files []string
	for _, a := range args {
		switch {
		case len(a) > 1 && a[0] == '-':
			for _, c := range a[1:] {
				switch c {
				case 'r':
					raw = true
				case 'c':
					compact = true
				case 'n':
					null = true
				default:
					return fmt.Errorf("the docs test does not know jq's -%c", c)
				}
			}
		case filter == "":
			filter = a
		default:
			files = append(files, a)
		}
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		return err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return err
	}
	var input []byte
	if len(files) == 0 {
		if input, err = io.ReadAll(hc.Stdin); err != nil {
			return err
		}
	}
	for _, f := range files {
		p, err := d.path(f)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		input = append(input, b...)
	}
	var inputs []any
	if null {
		inputs = []any{nil}
	} else {
		dec := json.NewDecoder(bytes.NewReader(input))
		for {
			var v any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				return fmt.Errorf("input is not JSON: %v", err)
			}
			inputs = append(inputs, v)
		}
	}
	for _, in := range inputs {
		iter := code.Run(in)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := v.(error); ok {
				return err
			}
			if s, ok := v.(string); ok && raw {
				fmt.Fprintln(hc.Stdout, s)
				continue
			}
			b, err := gojq.Marshal(v)
			if err != nil {
				return err
			}
			if !compact {
				var ind bytes.Buffer
				if err := json.Indent(&ind, b, "", "  "); err != nil {
					return err
				}
				b = ind.Bytes()
			}
			fmt.Fprintln(hc.Stdout, string(b))
		}
	}
	return nil
}

func (d *docShell) tee(hc interp.HandlerContext, args []string) error {
	var ws []io.Writer
	for _, a := range args {
		p, err := d.path(a)
		if err != nil {
			return err
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		ws = append(ws, f)
	}
	_, err := io.Copy(io.MultiWriter(append(ws, hc.Stdout)...), hc.Stdin)
	return err
}

// grep is grep PATTERN (a regular expression) on stdin; exit 1 when no
// line matches.
func (d *docShell) grep(hc interp.HandlerContext, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("the docs test runs grep PATTERN only")
	}
	re, err := regexp.Compile(args[0])
	if err != nil {
		return err
	}
	b, err := io.ReadAll(hc.Stdin)
	if err != nil {
		return err
	}
	found := false
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" && re.MatchString(line) {
			fmt.Fprint(hc.Stdout, line)
			found = true
		}
	}
	if !found {
		return interp.NewExitStatus(1)
	}
	return nil
}

// grpcurl is grpcurl -plaintext [-H HEADER] [-d JSON] ADDR (list |
// SERVICE/METHOD), the methods' messages from the protos linked into this
// binary, list by server reflection; a streamed answer is read until it
// ends or is quiet. An error exits 64 + its code, as grpcurl does.
func (d *docShell) grpcurl(ctx context.Context, hc interp.HandlerContext, args []string) error {
	data := ""
	md := metadata.MD{}
	var pos []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-plaintext":
		case "-d", "-H":
			if i+1 >= len(args) {
				return fmt.Errorf("%s needs a value", a)
			}
			i++
			if a == "-d" {
				data = args[i]
			} else {
				k, v, ok := strings.Cut(args[i], ":")
				if !ok {
					return fmt.Errorf("header %q has no ':'", args[i])
				}
				md.Append(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v))
			}
		default:
			if strings.HasPrefix(a, "-") {
				return fmt.Errorf("the docs test does not know grpcurl's %s", a)
			}
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		return fmt.Errorf("want ADDR and list or SERVICE/METHOD, got %q", pos)
	}
	addr, err := d.addr(pos[0])
	if err != nil {
		return err
	}
	if addr != d.s.grpcAddr {
		return fmt.Errorf("%s is not the gRPC address", pos[0])
	}
	d.grpcCalls++
	ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(ctx, md), 30*time.Second)
	defer cancel()
	fail := func(err error) error {
		st := status.Convert(err)
		fmt.Fprintf(hc.Stderr, "ERROR:\n  Code: %s\n  Message: %s\n", st.Code(), st.Message())
		return interp.NewExitStatus(uint8(64 + st.Code()))
	}
	if pos[1] == "list" {
		stream, err := reflectionpb.NewServerReflectionClient(d.s.conn).ServerReflectionInfo(ctx)
		if err != nil {
			return fail(err)
		}
		if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
			return fail(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			return fail(err)
		}
		var names []string
		for _, s := range resp.GetListServicesResponse().GetService() {
			names = append(names, s.GetName())
		}
		sort.Strings(names)
		fmt.Fprintln(hc.Stdout, strings.Join(names, "\n"))
		return nil
	}
	svc, name, ok := strings.Cut(pos[1], "/")
	if !ok {
		return fmt.Errorf("want SERVICE/METHOD, got %q", pos[1])
	}
	desc, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return fmt.Errorf("service %s: %v", svc, err)
	}
	sd, ok := desc.(protoreflect.ServiceDescriptor)
	if !ok {
		return fmt.Errorf("%s is not a service", svc)
	}
	m := sd.Methods().ByName(protoreflect.Name(name))
	if m == nil {
		return fmt.Errorf("service %s has no method %s", svc, name)
	}
	req := dynamicpb.NewMessage(m.Input())
	if data != "" {
		if err := protojson.Unmarshal([]byte(data), req); err != nil {
			return fmt.Errorf("-d: %v", err)
		}
	}
	out := protojson.MarshalOptions{Multiline: true, Indent: "  "}
	full := "/" + svc + "/" + name
	if !m.IsStreamingServer() {
		resp := dynamicpb.NewMessage(m.Output())
		if err := d.s.conn.Invoke(ctx, full, req, resp); err != nil {
			return fail(err)
		}
		b, _ := out.Marshal(resp)
		fmt.Fprintln(hc.Stdout, string(b))
		return nil
	}
	stream, err := d.s.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, full)
	if err != nil {
		return fail(err)
	}
	if err := stream.SendMsg(req); err != nil {
		return fail(err)
	}
	if err := stream.CloseSend(); err != nil {
		return fail(err)
	}
	msgs := make(chan error)
	go func() {
		for {
			resp := dynamicpb.NewMessage(m.Output())
			err := stream.RecvMsg(resp)
			if err == nil {
				b, _ := out.Marshal(resp)
				fmt.Fprintln(hc.Stdout, string(b))
			}
			msgs <- err
			if err != nil {
				close(msgs)
				return
			}
		}
	}()
	timer := time.NewTimer(docQuiet)
	defer timer.Stop()
	for {
		select {
		case err := <-msgs:
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fail(err)
			}
			timer.Reset(docQuiet)
		case <-timer.C:
			cancel() // quiet: stopped, as with Ctrl-C
			for range msgs {
			}
			return nil
		}
	}
}

// runErrorTable runs a table of refused inputs; it returns the rows run.
func runErrorTable(t *testing.T, s *svServer, file, section string, it docItem) int {
	if len(it.rows) < 2 {
		return 0
	}
	col := map[string]int{}
	for i, c := range it.rows[0] {
		col[strings.ToLower(c.text)] = i
	}
	in, okIn := col["input"]
	errCol, okErr := col["error"]
	if !okIn || !okErr {
		return 0
	}
	posCol, withPos := col["position"]
	kind := ""
	switch {
	case withPos:
		kind = "move"
	case strings.HasPrefix(section, "Squares"):
		kind = "square"
	case strings.HasPrefix(section, "Positions"):
		kind = "position"
	case strings.HasPrefix(section, "PDN"):
		kind = "pdn"
	default:
		t.Errorf("%s:%d: an error table in section %q: the docs test knows no request for its inputs", file, it.line, section)
		return 0
	}
	n := 0
	for _, row := range it.rows[1:] {
		where := fmt.Sprintf("%s:%d (%s)", file, it.line, row[in].text)
		input, err := tableInput(row[in])
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		var path string
		var body map[string]any
		switch kind {
		case "square":
			path, body = "/v1/rules:listLegalMoves", map[string]any{"position": map[string]any{"side_to_move": "SIDE_RED",
				"pieces": []any{map[string]string{"square": input, "side": "SIDE_RED", "rank": "RANK_DAMONE"}}}}
		case "position":
			path, body = "/v1/rules:listLegalMoves", map[string]any{"position": map[string]string{"text": input}}
		case "pdn":
			path, body = "/v1/rules:validateGame", map[string]any{"pdn": input}
		case "move":
			pos, err := tableInput(row[posCol])
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			path, body = "/v1/rules:applyMove", map[string]any{"position": map[string]string{"text": pos}, "move": input}
		}
		st, raw := svHTTP(t, http.MethodPost, s.url(path), "", body)
		var resp struct{ Message string }
		json.Unmarshal(raw, &resp)
		want := row[errCol].text
		if st != http.StatusBadRequest || !matchElided(strings.ReplaceAll(want, "…", "..."), resp.Message, "...", false) {
			t.Errorf("%s: documented error %q; the service answers %d %s", where, want, st, raw)
		}
		n++
	}
	return n
}

// tableInput reads an input cell: code spans, each "N `s` in a row" for
// s N times, with "then" between lines (e.g. `[Result "1-0"]` then
// `1. e2-d3 0-1`).
func tableInput(c docCell) (string, error) {
	var lines []string
	cur, repeat, seen := "", 1, false
	for _, p := range c.parts {
		if p.code {
			cur += strings.Repeat(p.s, repeat)
			repeat, seen = 1, true
			continue
		}
		for _, w := range strings.Fields(strings.ReplaceAll(p.s, ",", " ")) {
			if n, err := strconv.Atoi(w); err == nil && n > 0 {
				repeat = n
				continue
			}
			switch w {
			case "then":
				lines = append(lines, cur)
				cur = ""
			case "in", "a", "row":
			default:
				return "", fmt.Errorf("cannot read the input cell %q: want `text`, N `text` in a row, joined by then (one a line)", c.text)
			}
		}
	}
	if !seen {
		return "", fmt.Errorf("the input cell %q has no code span", c.text)
	}
	return strings.Join(append(lines, cur), "\n"), nil
}
