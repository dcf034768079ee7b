package k8s_test

// Checks of the PrometheusRule (k8s/base/prometheusrule.yaml): every alert
// carries what an on-call engineer needs (for, severity, summary,
// description, a runbook section of docs/operations.md that exists), the
// job, pod and container names its expressions match are the manifests'
// own, the plain rules file derived from it holds the same rules, and the
// promtool tests (k8s/monitoring/tests, run by `make test-rules`) cover
// every rule.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/damone-rules/damone/k8s"
)

// runbookBase is the start of every alert's runbook_url: a section of
// docs/operations.md, the alert's name in lower case.
const runbookBase = "https://github.com/damone-rules/damone/blob/main/docs/operations.md#"

// severities: critical pages, warning opens a ticket (docs/operations.md).
var severities = map[string]bool{"critical": true, "warning": true}

// promDuration is a Prometheus duration: units from years to milliseconds,
// largest first, each at most once.
var promDuration = regexp.MustCompile(`^([0-9]+y)?([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?$`)

// recordName is the level:metric:operations form of a recorded series.
var recordName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*:[a-zA-Z0-9_:]*[a-zA-Z0-9_]$`)

// labelMatcher finds the label matchers of a PromQL expression: the label,
// the operator and the double-quoted value (its escapes are Go's).
var labelMatcher = regexp.MustCompile(`\b([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)

// absentUp finds the jobs whose disappearance an expression detects.
var absentUp = regexp.MustCompile(`absent\(\s*up\{job="([^"]+)"\}\s*\)`)

// examplePod is a name Kubernetes gives a pod of Deployment d: the
// ReplicaSet's hash and a random suffix.
func examplePod(d string) string { return d + "-7c9f8d6b5-k2x9p" }

// checkPrometheusRules checks the overlay's PrometheusRules; check (in
// manifests_test.go) calls it.
func checkPrometheusRules(o *objects, fail func(id, format string, args ...any)) {
	if len(o.serviceMonitors) > 0 && len(o.prometheusRules) == 0 {
		fail("PrometheusRule", "the overlay ships a ServiceMonitor but no PrometheusRule: no alert would watch what it scrapes")
	}
	anchors, err := operationsAnchors()
	if err != nil {
		fail("docs/operations.md", "%v", err)
	}
	jobs := scrapedJobs(o)
	for _, pr := range o.prometheusRules {
		id := "PrometheusRule/" + pr.Name
		// A Prometheus that selects the ServiceMonitor by its labels is
		// meant to load these rules too.
		for _, sm := range o.serviceMonitors {
			for k, v := range sm.Labels {
				if pr.Labels[k] != v {
					fail(id, "lacks ServiceMonitor %s's label %s=%q: a Prometheus that selects the monitor by it would scrape without the alerts", sm.Name, k, v)
				}
			}
		}
		if len(pr.Spec.Groups) == 0 {
			fail(id, "no rule groups")
		}
		groups, names := map[string]bool{}, map[string]bool{}
		absent := map[string]bool{}
		for gi, g := range pr.Spec.Groups {
			gid := fmt.Sprintf("%s group %q", id, g.Name)
			if g.Name == "" || groups[g.Name] {
				fail(id, "group %d: empty or repeated name %q", gi, g.Name)
			}
			groups[g.Name] = true
			if len(g.Rules) == 0 {
				fail(gid, "no rules")
			}
			for ri, r := range g.Rules {
				rid := fmt.Sprintf("%s rule %d", gid, ri)
				if r.Expr.Type != intstr.String || strings.TrimSpace(r.Expr.StrVal) == "" {
					fail(rid, "expr must be a non-empty PromQL string")
				}
				switch {
				case (r.Record == "") == (r.Alert == ""):
					fail(rid, "want exactly one of record and alert, got record %q alert %q", r.Record, r.Alert)
				case r.Record != "":
					rid = gid + " record " + r.Record
					if !recordName.MatchString(r.Record) {
						fail(rid, "not a level:metric:operations name")
					}
					if names[r.Record] {
						fail(rid, "recorded twice")
					}
					names[r.Record] = true
					if r.For != nil || len(r.Annotations) > 0 {
						fail(rid, "a recording rule with for or annotations (an alert's fields)")
					}
				default:
					rid = gid + " alert " + r.Alert
					if names[r.Alert] {
						fail(rid, "a second alert of that name")
					}
					names[r.Alert] = true
					checkAlert(rid, r, anchors, fail)
				}
				checkMatchers(rid, r.Expr.StrVal, o, jobs, fail)
				for _, m := range absentUp.FindAllStringSubmatch(r.Expr.StrVal, -1) {
					absent[m[1]] = true
				}
			}
		}
		for _, j := range jobs {
			if !absent[j] {
				fail(id, "no alert on absent(up{job=%q}): Prometheus losing every %s target would go unnoticed", j, j)
			}
		}
	}
}

// checkAlert checks what an alert needs to be acted on.
func checkAlert(rid string, r monitoringv1.Rule, anchors map[string]bool, fail func(id, format string, args ...any)) {
	switch {
	case r.For == nil || *r.For == "":
		fail(rid, "no for: one bad evaluation would fire it")
	// Only zeros and units left after trimming: a zero duration.
	case !promDuration.MatchString(string(*r.For)) || strings.Trim(string(*r.For), "0ywdhms") == "":
		fail(rid, "for %q is not a positive Prometheus duration", *r.For)
	}
	if sev := r.Labels["severity"]; !severities[sev] {
		fail(rid, "severity label %q: want critical (pages) or warning (a ticket)", sev)
	}
	for _, a := range []string{"summary", "description"} {
		if strings.TrimSpace(r.Annotations[a]) == "" {
			fail(rid, "no %s annotation", a)
		}
	}
	url := r.Annotations["runbook_url"]
	anchor, ok := strings.CutPrefix(url, runbookBase)
	switch {
	case !ok:
		fail(rid, "runbook_url %q: want %s<section>", url, runbookBase)
	case anchor != strings.ToLower(r.Alert):
		fail(rid, "runbook_url names section #%s, want the alert's own, #%s", anchor, strings.ToLower(r.Alert))
	case anchors != nil && !anchors[anchor]:
		fail(rid, "runbook_url: docs/operations.md has no section #%s", anchor)
	}
}

// checkMatchers checks the job, pod and container names an expression
// matches against the overlay's Services and Deployments.
func checkMatchers(rid, expr string, o *objects, jobs []string, fail func(id, format string, args ...any)) {
	for _, m := range labelMatcher.FindAllStringSubmatch(expr, -1) {
		label, op := m[1], m[2]
		value, err := strconv.Unquote(`"` + m[3] + `"`)
		if err != nil {
			fail(rid, "%s%s%q: %v", label, op, m[3], err)
			continue
		}
		matches := func(s string) bool { return s == value }
		if op == "=~" {
			re, err := regexp.Compile("^(?:" + value + ")$")
			if err != nil {
				fail(rid, "%s=~%q: %v", label, value, err)
				continue
			}
			matches = re.MatchString
		} else if op != "=" {
			continue
		}
		switch label {
		case "job":
			n := 0
			for _, j := range jobs {
				if matches(j) {
					n++
				}
			}
			switch {
			case n == 0:
				fail(rid, "job%s%q matches no scraped job (the Services the ServiceMonitor scrapes: %v)", op, value, jobs)
			case op == "=~" && n < len(jobs):
				fail(rid, "job=~%q matches %d of the scraped jobs %v: a regular expression here means every damone job", value, n, jobs)
			}
		case "pod":
			for _, d := range o.deployments {
				if !matches(examplePod(d.Name)) {
					fail(rid, "pod%s%q does not match the pods of Deployment %s (e.g. %s)", op, value, d.Name, examplePod(d.Name))
				}
			}
		case "container":
			for _, d := range o.deployments {
				for _, c := range d.Spec.Template.Spec.Containers {
					if !matches(c.Name) {
						fail(rid, "container%s%q does not match container %q of Deployment %s", op, value, c.Name, d.Name)
					}
				}
			}
		}
	}
}

// scrapedJobs lists the job label Prometheus gives the targets of each
// ServiceMonitor: the Service's jobLabel value, or its name.
func scrapedJobs(o *objects) []string {
	set := map[string]bool{}
	for _, sm := range o.serviceMonitors {
		for _, s := range o.services {
			if ok, err := selects(&sm.Spec.Selector, s.Labels); err != nil || !ok {
				continue
			}
			if !slices.ContainsFunc(sm.Spec.Endpoints, func(ep monitoringv1.Endpoint) bool {
				return slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == ep.Port })
			}) {
				continue
			}
			job := s.Name
			if v := s.Labels[sm.Spec.JobLabel]; sm.Spec.JobLabel != "" && v != "" {
				job = v
			}
			set[job] = true
		}
	}
	jobs := make([]string, 0, len(set))
	for j := range set {
		jobs = append(jobs, j)
	}
	sort.Strings(jobs)
	return jobs
}

var (
	anchorsOnce sync.Once
	anchorsSet  map[string]bool
	anchorsErr  error
	// alertSections are the sections under docs/operations.md's
	// "## Alerts", in order.
	alertSections []string
)

func operationsPath() string {
	return filepath.Join(filepath.Dir(k8s.Dir()), "docs", "operations.md")
}

// operationsAnchors reads the anchors of docs/operations.md's headings.
func operationsAnchors() (map[string]bool, error) {
	anchorsOnce.Do(func() {
		b, err := os.ReadFile(operationsPath())
		if err != nil {
			anchorsErr = err
			return
		}
		anchorsSet = map[string]bool{}
		inAlerts, fenced := false, false
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
				continue
			}
			level := len(line) - len(strings.TrimLeft(line, "#"))
			if fenced || level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
				continue
			}
			title := strings.TrimSpace(line[level:])
			anchorsSet[slug(title)] = true
			switch {
			case level == 2:
				inAlerts = title == "Alerts"
			case level == 3 && inAlerts:
				alertSections = append(alertSections, title)
			}
		}
		anchorsErr = sc.Err()
	})
	return anchorsSet, anchorsErr
}

// slug is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for title, want := range map[string]string{
		"DamoneDown":                           "damonedown",
		"Dependencies: kube-state-metrics":     "dependencies-kube-state-metrics",
		"The availability objective":           "the-availability-objective",
		"Deploying the rules (and `promtool`)": "deploying-the-rules-and-promtool",
	} {
		if got := slug(title); got != want {
			t.Errorf("slug(%q) = %q, want %q", title, got, want)
		}
	}
}

// baseRule decodes k8s/base/prometheusrule.yaml strictly.
func baseRule(t *testing.T) monitoringv1.PrometheusRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(k8s.Dir(), k8s.PrometheusRuleFile))
	if err != nil {
		t.Fatal(err)
	}
	var pr monitoringv1.PrometheusRule
	if err := decodeStrict(b, &pr); err != nil {
		t.Fatalf("%s: %v", k8s.PrometheusRuleFile, err)
	}
	return pr
}

// TestRulesFile: the plain rules file holds the PrometheusRule's groups,
// rule for rule, and nothing else.
func TestRulesFile(t *testing.T) {
	b, err := k8s.RulesFile(k8s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := yaml.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top["groups"] == nil {
		t.Fatalf("top-level keys %v, want groups alone", reflect.ValueOf(top).MapKeys())
	}
	var file struct {
		Groups []monitoringv1.RuleGroup `json:"groups"`
	}
	if err := decodeStrict(b, &file); err != nil {
		t.Fatal(err)
	}
	want := baseRule(t).Spec.Groups
	if !reflect.DeepEqual(file.Groups, want) {
		g, _ := json.MarshalIndent(file.Groups, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("rules file groups differ from the PrometheusRule's:\n got %s\nwant %s", g, w)
	}
}

func TestRulesFileErrors(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"not a PrometheusRule", "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: x}\nspec:\n  groups: [{name: g, rules: []}]\n", "want monitoring.coreos.com/v1 PrometheusRule"},
		{"no groups", "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: x}\nspec: {}\n", "spec.groups is empty"},
		{"misplaced field", "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: x}\ngroups: [{name: g}]\nspec:\n  groups: [{name: g, rules: []}]\n", `unknown field "groups"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, k8s.PrometheusRuleFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := k8s.RulesFile(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("RulesFile: %v, want an error naming %s and containing %q", err, path, c.want)
			}
		})
	}
	if _, err := k8s.RulesFile(t.TempDir()); err == nil {
		t.Error("RulesFile of a folder without the file: no error")
	}
}

// promtoolTests is the part of a promtool test file these checks read.
type promtoolTests struct {
	RuleFiles []string `json:"rule_files"`
	Tests     []struct {
		AlertRuleTest []struct {
			Alertname string `json:"alertname"`
			ExpAlerts []any  `json:"exp_alerts"`
		} `json:"alert_rule_test"`
		PromqlExprTest []struct {
			Expr string `json:"expr"`
		} `json:"promql_expr_test"`
	} `json:"tests"`
}

// TestPromtoolTestsCoverEveryRule: for every alert a promtool test in
// which it fires and one in which it stays silent, and every recording
// rule's value checked by a query; every test file loads the rules file
// `make test-rules` writes beside it.
func TestPromtoolTestsCoverEveryRule(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(k8s.Dir(), "monitoring", "tests", "*_test.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no promtool tests under k8s/monitoring/tests (%v)", err)
	}
	fires, silent := map[string]int{}, map[string]int{}
	var exprs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var pt promtoolTests
		if err := yaml.Unmarshal(b, &pt); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !slices.Equal(pt.RuleFiles, []string{"damone.rules.yaml"}) {
			t.Errorf("%s: rule_files %v, want [damone.rules.yaml] (make test-rules writes it beside the tests)", filepath.Base(f), pt.RuleFiles)
		}
		for _, tc := range pt.Tests {
			for _, a := range tc.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					fires[a.Alertname]++
				} else {
					silent[a.Alertname]++
				}
			}
			for _, e := range tc.PromqlExprTest {
				exprs = append(exprs, e.Expr)
			}
		}
	}
	alerts := map[string]bool{}
	for _, g := range baseRule(t).Spec.Groups {
		for _, r := range g.Rules {
			switch {
			case r.Alert != "":
				alerts[r.Alert] = true
				if fires[r.Alert] == 0 {
					t.Errorf("alert %s: no promtool test in which it fires", r.Alert)
				}
				if silent[r.Alert] == 0 {
					t.Errorf("alert %s: no promtool test in which it stays silent", r.Alert)
				}
			case r.Record != "":
				re := regexp.MustCompile(`(^|[^a-zA-Z0-9_:])` + regexp.QuoteMeta(r.Record) + `($|[^a-zA-Z0-9_:])`)
				if !slices.ContainsFunc(exprs, re.MatchString) {
					t.Errorf("recording rule %s: no promql_expr_test reads it", r.Record)
				}
			}
		}
	}
	for name := range fires {
		if !alerts[name] {
			t.Errorf("promtool tests expect alert %s, which no rule defines", name)
		}
	}
}

// TestRunbooksMatchAlerts: docs/operations.md has a section under "##
// Alerts" for each alert, and none for an alert that does not exist.
func TestRunbooksMatchAlerts(t *testing.T) {
	if _, err := operationsAnchors(); err != nil {
		t.Fatal(err)
	}
	var alerts []string
	for _, g := range baseRule(t).Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts = append(alerts, r.Alert)
			}
		}
	}
	got := slices.Sorted(slices.Values(alertSections))
	slices.Sort(alerts)
	if !slices.Equal(got, alerts) {
		t.Errorf("docs/operations.md's sections under ## Alerts:\n  %v\nthe PrometheusRule's alerts:\n  %v", got, alerts)
	}
}
