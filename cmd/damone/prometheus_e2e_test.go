package main

// A real Prometheus (Debian's prometheus package: scripts/test-deps
// installs it) scraping a real `damone serve` on loopback every second,
// with the recording rules and alerts of k8s/base/prometheusrule.yaml
// loaded (k8s.RulesFile), and queried over its HTTP API. It catches what only Prometheus
// would reject or answer empty: metric names, label sets, histogram
// shapes, rules that fail to evaluate, and the dashboard's queries.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/damone-rules/damone/k8s"
	"github.com/damone-rules/damone/k8s/grafana"
)

// promBinary finds Prometheus on PATH: without it the test is skipped
// under -short and fails otherwise.
func promBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if testing.Short() {
			t.Skip("no prometheus on PATH; skipped with -short")
		}
		t.Fatal("no prometheus on PATH: run scripts/test-deps (it installs Debian's prometheus package)")
	}
	return bin
}

// promServer is one running Prometheus.
type promServer struct {
	base   string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	exited chan struct{}
	logMu  sync.Mutex
	log    bytes.Buffer
}

func (p *promServer) Write(b []byte) (int, error) {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	return p.log.Write(b)
}

func (p *promServer) logText() string {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	return p.log.String()
}

// promScrape is the job name and the target labels the test's scrape
// config gives damone's series, standing in for the ServiceMonitor's.
const (
	promJob       = "damone"
	promNamespace = "e2e"
	promPod       = "damone-e2e-0"
)

// startPrometheus runs Prometheus on a free loopback port with its data in
// a temporary folder, scraping target's /metrics and evaluating rules (a
// Prometheus rules file) every second, and waits until it is ready.
func startPrometheus(t *testing.T, bin, target string, rules []byte) *promServer {
	t.Helper()
	dir := t.TempDir()
	rulesPath := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(rulesPath, rules, 0o644); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - %q
scrape_configs:
  - job_name: %s
    static_configs:
      - targets: [%q]
        labels:
          namespace: %s
          pod: %s
`, rulesPath, promJob, target, promNamespace, promPod)
	configPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	// A free port: Prometheus cannot report the one it got for :0.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	p := &promServer{base: "http://" + addr, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "--config.file="+configPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("prometheus log:\n%s", p.logText())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("prometheus exited before it was ready:\n%s", p.logText())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready within 15s:\n%s", p.logText())
		}
	}
}

// promSample is one series of an instant query's result.
type promSample struct {
	labels map[string]string
	value  float64
}

func (s promSample) String() string { return fmt.Sprintf("%v = %v", s.labels, s.value) }

// api GETs path with the query parameters and decodes the data of a
// successful answer into data; an error answer's type and text are the
// error.
func (p *promServer) api(path string, params url.Values, data any) error {
	resp, err := http.Get(p.base + path + "?" + params.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status    string          `json:"status"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("%s: %d %s", path, resp.StatusCode, body)
	}
	if r.Status != "success" {
		return fmt.Errorf("%s: %s: %s", path, r.ErrorType, r.Error)
	}
	return json.Unmarshal(r.Data, data)
}

// query runs an instant query (/api/v1/query) and returns its series
// (a scalar result as one series without labels).
func (p *promServer) query(q string) ([]promSample, error) {
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := p.api("/api/v1/query", url.Values{"query": {q}}, &data); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	parse := func(v [2]any) (float64, error) {
		s, _ := v[1].(string)
		return strconv.ParseFloat(s, 64) // "NaN", "+Inf" included
	}
	switch data.ResultType {
	case "vector":
		var res []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(data.Result, &res); err != nil {
			return nil, err
		}
		out := make([]promSample, 0, len(res))
		for _, r := range res {
			f, err := parse(r.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: value %v: %w", q, r.Value, err)
			}
			out = append(out, promSample{r.Metric, f})
		}
		return out, nil
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(data.Result, &v); err != nil {
			return nil, err
		}
		f, err := parse(v)
		return []promSample{{map[string]string{}, f}}, err
	}
	return nil, fmt.Errorf("%s: result type %s, want a vector", q, data.ResultType)
}

func promFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// promRules is what the test loads: the recording rules and alerts of
// k8s/base/prometheusrule.yaml, as a plain Prometheus rules file.
func promRules(t *testing.T) []byte {
	t.Helper()
	b, err := k8s.RulesFile(k8s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// promRecords lists the record names of a rules file, in order.
func promRecords(rules []byte) ([]string, error) {
	var f struct {
		Groups []struct {
			Rules []struct {
				Record string `json:"record"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.Unmarshal(rules, &f); err != nil {
		return nil, err
	}
	var names []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				names = append(names, r.Record)
			}
		}
	}
	return names, nil
}

// TestPrometheusScrapesDamone: Prometheus scrapes damone serve every
// second while traffic goes through every part of the service (the
// traffic of TestDashboardMetricsInScrape), then over its HTTP API:
//   - the p99 of move generation by operation, from the classic histogram
//     buckets, is a number for list_legal_moves and make_move, and so is
//     the p99 of gRPC handling for ListLegalMoves and MakeMove;
//   - every rule of k8s/base/prometheusrule.yaml evaluates without error
//     (alerts included), and every recording rule has a series with a
//     number;
//   - every dashboard query, its variables filled in as Grafana would,
//     returns at least one series with a number, each series carrying the
//     labels its legend names, and the namespace and job variables list
//     the scrape's values.
//
// The checks are polled until they all hold or 20 s pass (rules are
// evaluated every second, samples come every second).
func TestPrometheusScrapesDamone(t *testing.T) {
	bin := promBinary(t)
	s := svStart(t)
	rules := promRules(t)
	records, err := promRecords(rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) == 0 {
		t.Fatal("the rules file has no recording rules")
	}
	d, err := grafana.Parse(grafana.JSON)
	if err != nil {
		t.Fatal(err)
	}
	p := startPrometheus(t, bin, s.metricsAddr, rules)

	// The first scrape, so the traffic below lands between samples.
	if err := promPoll(15*time.Second, func() []string {
		up, err := p.query(fmt.Sprintf(`up{job=%q}`, promJob))
		if err != nil {
			return []string{err.Error()}
		}
		if len(up) != 1 || up[0].value != 1 {
			return []string{fmt.Sprintf("up = %v, want one target up", up)}
		}
		return nil
	}); err != nil {
		t.Fatalf("no scrape of damone: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := monClockGames(ctx, s); err != nil {
		t.Fatal(err)
	}
	// A few seconds of traffic: several scrapes see the counters grow.
	rounds := 0
	for start := time.Now(); rounds < 2 || time.Since(start) < 4*time.Second; rounds++ {
		if err := monTraffic(ctx, s); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // a few rounds a scrape are plenty
	}

	vars := map[string]string{"namespace": promNamespace, "job": promJob, "__rate_interval": "30s"}
	loaded := 0
	check := func() []string {
		var fails []string
		failf := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }

		// The question: p99 latencies are numbers.
		for _, c := range []struct {
			q, label string
			want     []string
		}{
			{`histogram_quantile(0.99, sum by (le, operation) (rate(damone_movegen_duration_seconds_bucket[30s])))`,
				"operation", []string{"list_legal_moves", "make_move"}},
			{`histogram_quantile(0.99, sum by (le, grpc_method) (rate(grpc_server_handling_seconds_bucket[30s])))`,
				"grpc_method", []string{"ListLegalMoves", "MakeMove"}},
		} {
			res, err := p.query(c.q)
			if err != nil {
				failf("%v", err)
				continue
			}
			for _, want := range c.want {
				i := slices.IndexFunc(res, func(s promSample) bool { return s.labels[c.label] == want })
				if i < 0 || !promFinite(res[i].value) || res[i].value <= 0 {
					failf("%s: %s=%s is not a positive number: %v", c.q, c.label, want, res)
				}
			}
		}

		// Every rule evaluates cleanly; every recording rule has data.
		var groups struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []struct {
					Name      string `json:"name"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		}
		if err := p.api("/api/v1/rules", nil, &groups); err != nil {
			failf("%v", err)
		}
		loaded = 0
		for _, g := range groups.Groups {
			for _, r := range g.Rules {
				loaded++
				if r.Health != "ok" {
					failf("rule %s (group %s): health %q %s", r.Name, g.Name, r.Health, r.LastError)
				}
			}
		}
		if loaded == 0 {
			failf("no rules loaded")
		}
		for _, name := range records {
			res, err := p.query(name)
			if err != nil {
				failf("%v", err)
			} else if !slices.ContainsFunc(res, func(s promSample) bool { return promFinite(s.value) }) {
				failf("recording rule %s: no series with a number: %v", name, res)
			}
		}

		// The dashboard, as Grafana would ask.
		for _, q := range d.Queries() {
			expr, err := grafana.Expand(q.Expr, vars)
			if err != nil {
				failf("panel %q query %s: %v", q.Panel, q.RefID, err)
				continue
			}
			res, err := p.query(expr)
			if err != nil {
				failf("panel %q query %s: %v", q.Panel, q.RefID, err)
				continue
			}
			if !slices.ContainsFunc(res, func(s promSample) bool { return promFinite(s.value) }) {
				failf("panel %q query %s: no series with a number: %s => %v", q.Panel, q.RefID, expr, res)
			}
			for _, label := range grafana.LegendLabels(q.Legend) {
				for _, s := range res {
					if _, ok := s.labels[label]; !ok {
						failf("panel %q query %s: legend names %s, series %v lacks it", q.Panel, q.RefID, label, s.labels)
					}
				}
			}
		}
		for _, v := range []struct{ label, match, want string }{
			{"namespace", "damone_movegen_total", promNamespace},
			{"job", fmt.Sprintf(`damone_movegen_total{namespace=~%q}`, promNamespace), promJob},
		} {
			var values []string
			if err := p.api("/api/v1/label/"+v.label+"/values", url.Values{"match[]": {v.match}}, &values); err != nil {
				failf("%v", err)
			} else if !slices.Contains(values, v.want) {
				failf("label %s values for %s: %q, want %q among them", v.label, v.match, values, v.want)
			}
		}
		return fails
	}
	if err := promPoll(20*time.Second, check); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d traffic rounds; %d rules healthy, %d recording rules and %d dashboard queries answered with numbers",
		rounds, loaded, len(records), len(d.Queries()))
}

// promPoll runs check every 500 ms until it reports no failure, and
// returns the last failures if within is up first.
func promPoll(within time.Duration, check func() []string) error {
	deadline := time.Now().Add(within)
	for {
		fails := check()
		if len(fails) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New(strings.Join(fails, "\n"))
		}
		time.Sleep(500 * time.Millisecond)
	}
}
