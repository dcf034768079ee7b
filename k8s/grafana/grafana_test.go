package grafana

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestMetricNames(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`histogram_quantile(0.99, sum by (le, operation) (rate(damone_movegen_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))`,
			[]string{"damone_movegen_duration_seconds_bucket"}},
		// Grouping after the aggregation, one-to-many matching and their
		// label lists; "le" and "grpc_code" are labels, not metrics.
		{`sum(rate(a_total[5m])) by (grpc_method, le) / ignoring(grpc_code) group_left (grpc_service) sum(b)`, []string{"a_total", "b"}},
		// Strings holding what looks like selectors, and $1.
		{`label_replace(up{job="x{y}"}, "foo", "$1 bar{baz}", "job", "(.*)") offset 5m`, []string{"up"}},
		{`{__name__="x_total", a="}"}`, []string{"x_total"}},
		{`{__name__=~"x.*"}`, nil},
		// A subquery's range, and a number argument.
		{`topk(5, max_over_time(c[1h:5m]))`, []string{"c"}},
		// Set operators and on(); their operands are metrics.
		{`foo and on(instance) bar unless baz or qux`, []string{"bar", "baz", "foo", "qux"}},
		{`x > bool 0`, []string{"x"}},
		{`1 + 2e-3 * NaN + Inf - 0x1F`, nil},
		{`count_values("by", x) + y`, []string{"x", "y"}},
		// Recording rule names (colons), repeated.
		{`job:damone_calls:rate5m / job:damone_calls:rate5m`, []string{"job:damone_calls:rate5m"}},
		{"sum without (pod)\n  (z{a!='b', c!~`d`})", []string{"z"}},
		{`rate(x[$__rate_interval]) * ${factor}`, []string{"x"}},
	} {
		got, err := MetricNames(c.expr)
		if err != nil {
			t.Errorf("MetricNames(%q): %v", c.expr, err)
			continue
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("MetricNames(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}

func TestMetricNamesRefusesBrokenExpressions(t *testing.T) {
	for _, expr := range []string{
		`rate(x[5m]`,
		`rate(x[5m]))`,
		`x{a="b}`,
		`x{a="b"`,
		`x{a}`,
		`x{a=b}`,
		`x{a=="b"}`,
		`sum by (le rate(x)`,
		`rate(x[5m)`,
		`x}`,
		`"unterminated`,
		`x{__name__="y"}`,
	} {
		if got, err := MetricNames(expr); err == nil {
			t.Errorf("MetricNames(%q) = %q, want an error", expr, got)
		}
	}
}

func TestSelectorsKeepMatchers(t *testing.T) {
	got, err := Selectors(`sum(rate(a{namespace=~"$namespace", job!="x"}[5m])) / on() group_left b + {__name__="c", d="e"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Selector{
		{Metric: "a", Matchers: []Matcher{{"namespace", "=~", "$namespace"}, {"job", "!=", "x"}}},
		{Metric: "b"},
		{Metric: "c", Matchers: []Matcher{{"d", "=", "e"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Selectors = %+v, want %+v", got, want)
	}
}

func TestGroupingLabels(t *testing.T) {
	got, err := GroupingLabels(`sum by (le, operation) (x) / ignoring (grpc_code) group_left sum without(pod)(y) and on() z`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"le", "operation", "grpc_code", "pod"}; !slices.Equal(got, want) {
		t.Errorf("GroupingLabels = %q, want %q", got, want)
	}
}

func TestVariableMetrics(t *testing.T) {
	for q, want := range map[string][]string{
		`label_values(damone_movegen_total, namespace)`:                    {"damone_movegen_total"},
		`label_values(damone_movegen_total{namespace=~"$namespace"}, job)`: {"damone_movegen_total"},
		`label_values(namespace)`:                                          nil,
		`query_result(max by (pod) (go_goroutines))`:                       {"go_goroutines"},
	} {
		got, err := VariableMetrics(q)
		if err != nil {
			t.Errorf("VariableMetrics(%q): %v", q, err)
			continue
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("VariableMetrics(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"job": "damone", "namespace": "e2e", "__rate_interval": "30s"}
	got, err := Expand(`rate(x{job=~"$job", namespace=~"${namespace}", n="[[namespace]]"}[$__rate_interval])`, vars)
	if err != nil {
		t.Fatal(err)
	}
	if want := `rate(x{job=~"damone", namespace=~"e2e", n="e2e"}[30s])`; got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if _, err := Expand(`x{pod=~"$pod"}[$__range]`, vars); err == nil || !strings.Contains(err.Error(), "pod, __range") {
		t.Errorf("unknown variables: %v, want an error naming pod and __range", err)
	}
}

func TestLegendLabels(t *testing.T) {
	if got := LegendLabels("p99 {{operation}} on {{ pod }}"); !slices.Equal(got, []string{"operation", "pod"}) {
		t.Errorf("LegendLabels = %q", got)
	}
}

// TestDashboard: the committed dashboard passes Parse, and every selector
// of every panel query filters on the namespace and job variables, so the
// dashboard shows one deployment's pods and not every damone in the
// Prometheus.
func TestDashboard(t *testing.T) {
	d, err := Parse(JSON)
	if err != nil {
		t.Fatal(err)
	}
	if d.UID != "damone" {
		t.Errorf("uid %q, want damone (docs/deploy.md links it)", d.UID)
	}
	qs := d.Queries()
	if len(qs) < 20 {
		t.Fatalf("%d queries, want the panels the dashboard is documented to have", len(qs))
	}
	for _, q := range qs {
		sels, err := Selectors(q.Expr)
		if err != nil {
			t.Errorf("%s %s: %v", q.Panel, q.RefID, err)
			continue
		}
		if len(sels) == 0 {
			t.Errorf("%s %s: %q selects no metric", q.Panel, q.RefID, q.Expr)
		}
		for _, s := range sels {
			if !s.Has("namespace", "=~", "$namespace") || !s.Has("job", "=~", "$job") {
				t.Errorf("%s %s: %s{%v} lacks namespace=~\"$namespace\" or job=~\"$job\"", q.Panel, q.RefID, s.Metric, s.Matchers)
			}
		}
	}
	vars := map[string]Variable{}
	for _, v := range d.Variables() {
		vars[v.Name] = v
	}
	for _, name := range []string{"namespace", "job"} {
		v, ok := vars[name]
		if !ok || v.Type != "query" || !v.IncludeAll || v.AllValue != ".*" {
			t.Errorf("variable %s: %+v, want a query variable with All as .*", name, v)
		}
	}
}

// TestParseCatchesMistakes: each change to the committed dashboard is a
// mistake Parse reports.
func TestParseCatchesMistakes(t *testing.T) {
	for _, m := range []struct {
		name string
		edit func(d map[string]any)
		want string
	}{
		{"fixed datasource uid on a panel", func(d map[string]any) {
			panel(d, 1)["datasource"] = map[string]any{"type": "prometheus", "uid": "P1809F7CD0C75ACF3"}
		}, "no fixed data source"},
		{"fixed datasource uid on a query", func(d map[string]any) {
			panel(d, 1)["targets"].([]any)[0].(map[string]any)["datasource"] = map[string]any{"type": "prometheus", "uid": "prom"}
		}, "no fixed data source"},
		{"datasource by name", func(d map[string]any) { panel(d, 1)["datasource"] = "Prometheus" }, "no fixed data source"},
		{"no datasource variable", func(d map[string]any) {
			tl := d["templating"].(map[string]any)
			tl["list"] = tl["list"].([]any)[1:]
		}, `no "datasource" variable`},
		{"panel without datasource", func(d map[string]any) { delete(panel(d, 1), "datasource") }, "no datasource"},
		{"duplicate panel id", func(d map[string]any) { panel(d, 2)["id"] = panel(d, 1)["id"] }, "id also used"},
		{"panel off the grid", func(d map[string]any) { panel(d, 1)["gridPos"].(map[string]any)["x"] = 20 }, "outside the 24-column grid"},
		{"empty query", func(d map[string]any) { panel(d, 1)["targets"].([]any)[0].(map[string]any)["expr"] = " " }, "has no expr"},
		{"no queries", func(d map[string]any) { panel(d, 1)["targets"] = []any{} }, "no queries"},
		{"no uid", func(d map[string]any) { delete(d, "uid") }, "needs both"},
	} {
		t.Run(m.name, func(t *testing.T) {
			var d map[string]any
			if err := json.Unmarshal(JSON, &d); err != nil {
				t.Fatal(err)
			}
			m.edit(d)
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), m.want) {
				t.Errorf("Parse: %v, want an error containing %q", err, m.want)
			}
		})
	}
	if _, err := Parse([]byte(`{"uid": "x",`)); err == nil {
		t.Error("truncated JSON parsed")
	}
}

// panel is the i-th top-level panel (0 is the first row).
func panel(d map[string]any, i int) map[string]any {
	return d["panels"].([]any)[i].(map[string]any)
}
