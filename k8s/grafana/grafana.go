// Package grafana holds damone's Grafana dashboard (damone.json, embedded
// as JSON) and reads it for the tests that check it: Parse decodes it and
// checks its shape (every query on the data source chosen in the
// dashboard's datasource variable, never a fixed data source uid),
// Queries lists its PromQL, MetricNames finds the metrics a query reads,
// and Expand fills in its template variables so a test can run a query
// against a real Prometheus.
//
// The kustomize component in this folder (kustomization.yaml) provisions
// the dashboard as a ConfigMap for the Grafana sidecar; overlays include it
// under components.
package grafana

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// JSON is the dashboard as committed (damone.json).
//
//go:embed damone.json
var JSON []byte

// DatasourceVar is the name of the dashboard's data source variable, which
// every panel, query and query variable uses.
const DatasourceVar = "datasource"

// DatasourceRef is a Grafana data source reference.
type DatasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// Dashboard is the part of a Grafana dashboard that the checks read.
type Dashboard struct {
	UID        string  `json:"uid"`
	Title      string  `json:"title"`
	Panels     []Panel `json:"panels"`
	Templating struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Panel is a dashboard panel; a collapsed row holds its panels in Panels.
type Panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *DatasourceRef `json:"datasource"`
	Targets    []Target       `json:"targets"`
	Panels     []Panel        `json:"panels"`
	GridPos    struct {
		H, W, X, Y int
	} `json:"gridPos"`
}

// Target is one query of a panel.
type Target struct {
	RefID        string         `json:"refId"`
	Expr         string         `json:"expr"`
	LegendFormat string         `json:"legendFormat"`
	Datasource   *DatasourceRef `json:"datasource"`
}

// Variable is a template variable. Query is a string, or for a Prometheus
// query variable an object whose "query" field holds it.
type Variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Datasource *DatasourceRef  `json:"datasource"`
	IncludeAll bool            `json:"includeAll"`
	AllValue   string          `json:"allValue"`
}

// QueryText is the variable's query: for a query variable, its PromQL or
// label_values(...) text; for a data source variable, the plugin type.
func (v Variable) QueryText() (string, error) {
	var s string
	if err := json.Unmarshal(v.Query, &s); err == nil {
		return s, nil
	}
	var o struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(v.Query, &o); err != nil {
		return "", fmt.Errorf("variable %s: query is neither a string nor an object with a query: %s", v.Name, v.Query)
	}
	return o.Query, nil
}

// Query is one PromQL query of a panel.
type Query struct {
	Panel  string // the panel's title
	RefID  string
	Expr   string
	Legend string // the legend format: {{label}} names a label of the result
}

// Queries lists every panel query, rows' panels included, in order.
func (d *Dashboard) Queries() []Query {
	var qs []Query
	for _, p := range d.allPanels() {
		for _, t := range p.Targets {
			qs = append(qs, Query{Panel: p.Title, RefID: t.RefID, Expr: t.Expr, Legend: t.LegendFormat})
		}
	}
	return qs
}

// Variables lists the template variables.
func (d *Dashboard) Variables() []Variable { return d.Templating.List }

func (d *Dashboard) allPanels() []Panel {
	var all []Panel
	var walk func([]Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			all = append(all, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return all
}

// Parse decodes a dashboard and checks its shape: a uid and a title; a
// data source variable of type prometheus; every data source reference in
// the whole document (panels, queries, variables) to
// {"type": "prometheus", "uid": "${datasource}"}, so the dashboard works on
// whatever Prometheus the viewer picks; unique panel ids; panels within
// the 24-column grid; every panel other than a row with at least one
// query, and every query with an expression and a refId unique in its
// panel. The error lists every problem found.
func Parse(b []byte) (*Dashboard, error) {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("dashboard JSON: %w", err)
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	checkDatasources(raw, "$", fail)
	var d Dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		fail("dashboard JSON: %v", err)
		return nil, errors.Join(errs...)
	}
	if d.UID == "" || d.Title == "" {
		fail("uid %q, title %q: the dashboard needs both (a fixed uid keeps links and provisioning stable)", d.UID, d.Title)
	}

	dsVar := false
	for _, v := range d.Templating.List {
		if v.Name == DatasourceVar {
			q, err := v.QueryText()
			if err != nil {
				fail("%v", err)
			}
			dsVar = v.Type == "datasource" && q == "prometheus"
			if !dsVar {
				fail("variable %s: type %q query %q, want a datasource variable of type prometheus", v.Name, v.Type, q)
			}
			continue
		}
		if v.Type == "query" && v.Datasource == nil {
			fail("variable %s: no datasource (want ${%s})", v.Name, DatasourceVar)
		}
	}
	if !dsVar {
		fail("no %q variable: every query must use a data source chosen by the viewer", DatasourceVar)
	}

	ids := map[int]string{}
	for _, p := range d.allPanels() {
		id := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if other, dup := ids[p.ID]; dup {
			fail("%s: id also used by %q", id, other)
		}
		ids[p.ID] = p.Title
		if p.Title == "" {
			fail("%s: no title", id)
		}
		if g := p.GridPos; g.W < 1 || g.H < 1 || g.X < 0 || g.X+g.W > 24 || g.Y < 0 {
			fail("%s: gridPos %+v outside the 24-column grid", id, g)
		}
		if p.Type == "row" {
			if len(p.Targets) > 0 {
				fail("%s: a row with queries", id)
			}
			continue
		}
		if p.Datasource == nil {
			fail("%s: no datasource (want ${%s})", id, DatasourceVar)
		}
		if len(p.Targets) == 0 {
			fail("%s: no queries", id)
		}
		refs := map[string]bool{}
		for _, t := range p.Targets {
			if t.RefID == "" || refs[t.RefID] {
				fail("%s: refId %q missing or repeated", id, t.RefID)
			}
			refs[t.RefID] = true
			if strings.TrimSpace(t.Expr) == "" {
				fail("%s: query %s has no expr", id, t.RefID)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &d, nil
}

// checkDatasources walks the document: every "datasource" value must be a
// reference to the datasource variable (an object with type prometheus, or
// the variable's name as a string).
func checkDatasources(v any, path string, fail func(string, ...any)) {
	want := "${" + DatasourceVar + "}"
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			p := path + "." + k
			if k == "datasource" {
				switch ds := child.(type) {
				case map[string]any:
					if ds["type"] != "prometheus" || ds["uid"] != want {
						fail("%s: %v, want {\"type\": \"prometheus\", \"uid\": %q}: no fixed data source", p, ds, want)
					}
				case string:
					if ds != want && ds != "$"+DatasourceVar {
						fail("%s: %q, want %q: no fixed data source", p, ds, want)
					}
				default:
					fail("%s: %v, want a reference to %s", p, child, want)
				}
				continue
			}
			checkDatasources(child, p, fail)
		}
	case []any:
		for i, child := range x {
			checkDatasources(child, fmt.Sprintf("%s[%d]", path, i), fail)
		}
	}
}

// varRef matches a Grafana variable reference: $name, ${name},
// ${name:format} or [[name]].
var varRef = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]`)

// Expand replaces every variable reference in s by its value in vars, as
// Grafana would before sending the query (built-ins such as
// __rate_interval included, if vars has them). A reference to a variable
// vars lacks is an error naming it.
func Expand(s string, vars map[string]string) (string, error) {
	var missing []string
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		name := m[1] + m[2] + m[3]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return ref
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%q: no value for variable(s) %s", s, strings.Join(missing, ", "))
	}
	return out, nil
}

// LegendLabels lists the labels a legend format names ({{label}}).
func LegendLabels(legend string) []string {
	var ls []string
	for _, m := range regexp.MustCompile(`\{\{\s*([a-zA-Z_]\w*)\s*\}\}`).FindAllStringSubmatch(legend, -1) {
		ls = append(ls, m[1])
	}
	return ls
}

// VariableMetrics returns the metrics a query variable reads: the series
// selector of label_values(selector, label), or the metrics of a PromQL
// query. label_values(label) alone reads no particular metric (nil).
func VariableMetrics(query string) ([]string, error) {
	q := strings.TrimSpace(query)
	if inner, ok := strings.CutPrefix(q, "label_values("); ok {
		inner, ok = strings.CutSuffix(inner, ")")
		if !ok {
			return nil, fmt.Errorf("%q: label_values( without its closing parenthesis", query)
		}
		i := strings.LastIndex(inner, ",")
		if i < 0 {
			return nil, nil
		}
		return MetricNames(inner[:i])
	}
	if strings.HasPrefix(q, "query_result(") {
		return MetricNames(strings.TrimSuffix(strings.TrimPrefix(q, "query_result("), ")"))
	}
	return MetricNames(q)
}

// Matcher is one label matcher of a selector: Label Op "Value".
type Matcher struct {
	Label, Op, Value string
}

// Selector is one vector or range selector of a PromQL expression: the
// metric name (also when given as __name__="...") and its label matchers
// (the __name__ one excluded).
type Selector struct {
	Metric   string
	Matchers []Matcher
}

// Has reports whether the selector has the matcher label op "value".
func (s Selector) Has(label, op, value string) bool {
	return slices.Contains(s.Matchers, Matcher{label, op, value})
}

// PromQL words that are not metric names when they stand alone.
var (
	// Followed by a parenthesized list of label names.
	groupingWords = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}
	// Operators, modifiers and number words.
	otherWords = []string{"and", "or", "unless", "atan2", "bool", "offset", "inf", "nan"}
)

// MetricNames returns the metric names a PromQL expression selects, sorted
// and without repeats (see Selectors).
func MetricNames(expr string) ([]string, error) {
	sels, err := Selectors(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range sels {
		if s.Metric != "" {
			names = append(names, s.Metric)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// Selectors returns the series selectors of a PromQL expression in order:
// every identifier that is not a function or aggregation (followed by
// "("), a keyword or a label in a grouping list, with the label matchers
// that follow it, and every bare {...} selector. Strings, ranges and
// Grafana variables are skipped. Unbalanced brackets and unterminated
// strings or matchers are errors. It reads names, not meaning: whether the
// expression is valid PromQL is the real Prometheus's to judge.
func Selectors(expr string) ([]Selector, error) {
	sels, _, err := scan(expr)
	return sels, err
}

// GroupingLabels returns the labels of an expression's grouping and
// matching lists (by, without, on, ignoring, group_left, group_right), in
// order, repeats kept.
func GroupingLabels(expr string) ([]string, error) {
	_, labels, err := scan(expr)
	return labels, err
}

// scan reads an expression's selectors and grouping labels.
func scan(expr string) ([]Selector, []string, error) {
	var sels []Selector
	var grouping []string
	depth := 0
	i, n := 0, len(expr)
	for i < n {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'' || c == '`':
			j, err := skipString(expr, i)
			if err != nil {
				return nil, nil, err
			}
			i = j
		case c == '{':
			j, sel, err := matchers(expr, i)
			if err != nil {
				return nil, nil, err
			}
			sels = append(sels, sel)
			i = j
		case c == '[':
			j := strings.IndexByte(expr[i:], ']')
			if j < 0 {
				return nil, nil, fmt.Errorf("%q: '[' at %d not closed", expr, i)
			}
			i += j + 1
		case c == ']' || c == '}':
			return nil, nil, fmt.Errorf("%q: %q at %d closes nothing", expr, c, i)
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, nil, fmt.Errorf("%q: ')' at %d closes nothing", expr, i)
			}
			i++
		case c == '$':
			i++
			if i < n && expr[i] == '{' {
				j := strings.IndexByte(expr[i:], '}')
				if j < 0 {
					return nil, nil, fmt.Errorf("%q: '${' at %d not closed", expr, i-1)
				}
				i += j + 1
			} else {
				for i < n && isIdent(expr[i]) {
					i++
				}
			}
		case isDigit(c) || c == '.':
			// A number or a duration (5m, 1h30m, 1e-3, 0x1f).
			for i < n && (isIdent(expr[i]) || expr[i] == '.' ||
				((expr[i] == '-' || expr[i] == '+') && (expr[i-1] == 'e' || expr[i-1] == 'E'))) {
				i++
			}
		case isIdentStart(c):
			j := i
			for j < n && isIdent(expr[j]) {
				j++
			}
			word := expr[i:j]
			k := j
			for k < n && strings.IndexByte(" \t\n\r", expr[k]) >= 0 {
				k++
			}
			next := byte(0)
			if k < n {
				next = expr[k]
			}
			lower := strings.ToLower(word)
			switch {
			case slices.Contains(groupingWords, lower):
				if next == '(' {
					end := strings.IndexByte(expr[k:], ')')
					if end < 0 {
						return nil, nil, fmt.Errorf("%q: %s( at %d not closed", expr, word, i)
					}
					list := expr[k+1 : k+end]
					if strings.TrimLeft(list, " \t\n\r,_:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
						return nil, nil, fmt.Errorf("%q: %s (%s): a list of label names expected", expr, word, list)
					}
					for _, l := range strings.Split(list, ",") {
						if l = strings.TrimSpace(l); l != "" {
							grouping = append(grouping, l)
						}
					}
					j = k + end + 1
				}
			case slices.Contains(otherWords, lower):
			case next == '(' || startsWord(expr[k:], "by") || startsWord(expr[k:], "without"):
				// A function or aggregation (sum by (le) (...)); its
				// argument is read on.
			case next == '{':
				end, sel, err := matchers(expr, k)
				if err != nil {
					return nil, nil, err
				}
				if sel.Metric != "" {
					return nil, nil, fmt.Errorf("%q: metric %s also named by __name__ at %d", expr, word, k)
				}
				sel.Metric = word
				sels = append(sels, sel)
				j = end
			default:
				sels = append(sels, Selector{Metric: word})
			}
			i = j
		default:
			i++ // operators and commas
		}
	}
	if depth != 0 {
		return nil, nil, fmt.Errorf("%q: %d '(' not closed", expr, depth)
	}
	return sels, grouping, nil
}

// skipString returns the index just past the string literal at i.
func skipString(s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("%q: string at %d not terminated", s, i)
}

// matchers reads the label matchers at s[i] == '{' and returns the index
// past the closing '}' and them as a selector, named if a __name__="..."
// matcher names the metric.
func matchers(s string, i int) (int, Selector, error) {
	var sel Selector
	j := i + 1
	for {
		for j < len(s) && strings.IndexByte(" \t\n\r,", s[j]) >= 0 {
			j++
		}
		if j >= len(s) {
			return 0, sel, fmt.Errorf("%q: '{' at %d not closed", s, i)
		}
		if s[j] == '}' {
			return j + 1, sel, nil
		}
		k := j
		for k < len(s) && isIdent(s[k]) {
			k++
		}
		label := s[j:k]
		if label == "" {
			return 0, sel, fmt.Errorf("%q: a label name expected at %d", s, j)
		}
		for k < len(s) && s[k] == ' ' {
			k++
		}
		op := k
		for k < len(s) && strings.IndexByte("=!~", s[k]) >= 0 {
			k++
		}
		o := s[op:k]
		if o != "=" && o != "!=" && o != "=~" && o != "!~" {
			return 0, sel, fmt.Errorf("%q: matcher operator %q at %d", s, o, op)
		}
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k >= len(s) || strings.IndexByte("\"'`", s[k]) < 0 {
			return 0, sel, fmt.Errorf("%q: a quoted value expected at %d", s, k)
		}
		end, err := skipString(s, k)
		if err != nil {
			return 0, sel, err
		}
		// The value as written, quotes off (Grafana variables are not
		// escaped; the dashboard's values need no escapes).
		value := s[k+1 : end-1]
		if label == "__name__" && o == "=" {
			sel.Metric = value
		} else {
			sel.Matchers = append(sel.Matchers, Matcher{label, o, value})
		}
		j = end
	}
}

// startsWord reports whether s starts with the word w (not a longer
// identifier).
func startsWord(s, w string) bool {
	return len(s) >= len(w) && strings.EqualFold(s[:len(w)], w) && (len(s) == len(w) || !isIdent(s[len(w)]))
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdent(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
