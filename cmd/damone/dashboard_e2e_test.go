package main

// The Grafana dashboard (k8s/grafana/damone.json) against the real server:
// every metric its queries and variables read is in a scrape of `damone
// serve` after traffic that reaches every part of the service, with the
// labels the queries group by, name in legends and match on.
// prometheus_e2e_test.go runs the same queries on a real Prometheus.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/k8s/grafana"
)

// monTargetLabels are the labels Prometheus adds to every series of a
// target (job, instance; namespace and pod from the ServiceMonitor, or
// from the scrape config of prometheus_e2e_test.go), so no scrape has them.
var monTargetLabels = []string{"job", "instance", "namespace", "pod"}

// monPromSeries are series Prometheus makes itself for each target; the
// server does not serve them.
var monPromSeries = []string{"up"}

// monClockGames creates two games with a 1 s per-move clock (the default
// --min-clock-time) that end by their clocks within about a second: one
// nobody moves in (aborted: Red's first move did not come in time) and one
// where Red moves and Black does not (timeout).
func monClockGames(ctx context.Context, s *svServer) error {
	tc := &damonev1.TimeControl{PerMove: durationpb.New(time.Second)}
	if _, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{TimeControl: tc}}); err != nil {
		return fmt.Errorf("CreateGame with a clock: %w", err)
	}
	cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{TimeControl: tc}})
	if err != nil {
		return fmt.Errorf("CreateGame with a clock: %w", err)
	}
	if _, err := s.games.MakeMove(svAuth(ctx, cr.GetRedToken()), &damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: "e2-d3"}); err != nil {
		return fmt.Errorf("MakeMove in a game with a clock: %w", err)
	}
	return nil
}

// monTraffic is one round of traffic through every part of the service
// the metrics watch: RulesService calls of each move generation operation
// (over gRPC and REST), a game with a watcher, a move, its retry (the
// store's request lookup), an illegal move, a missing game, a listing, a
// game against the engine (its move time and queue wait) and an analysis.
// It reports the first call that did not go as expected.
func monTraffic(ctx context.Context, s *svServer) error {
	start := &damonev1.Position{Text: svStartPos}
	for range 40 { // list_legal_moves is timed 1 call in 8
		if _, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: start}); err != nil {
			return fmt.Errorf("ListLegalMoves: %w", err)
		}
	}
	for range 16 {
		if _, err := s.rules.ApplyMove(ctx, &damonev1.ApplyMoveRequest{Position: start, Move: "e2-d3"}); err != nil {
			return fmt.Errorf("ApplyMove: %w", err)
		}
		if _, err := s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: []string{"e2-d3", "c6-d5"}}); err != nil {
			return fmt.Errorf("ValidateGame: %w", err)
		}
	}
	if _, err := s.rules.Perft(ctx, &damonev1.PerftRequest{Position: start, Depth: 3}); err != nil {
		return fmt.Errorf("Perft: %w", err)
	}
	if err := monREST(ctx, "POST", s.url("/v1/rules:listLegalMoves"), `{"position": {"text": "`+svStartPos+`"}}`, 200); err != nil {
		return err
	}

	cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		return fmt.Errorf("CreateGame: %w", err)
	}
	name := cr.GetGame().GetName()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	watch, err := s.games.WatchGame(wctx, &damonev1.WatchGameRequest{Name: name})
	if err != nil {
		return fmt.Errorf("WatchGame: %w", err)
	}
	if _, err := watch.Recv(); err != nil { // game_created
		return fmt.Errorf("WatchGame: %w", err)
	}
	red := svAuth(ctx, cr.GetRedToken())
	move := &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3", RequestId: "monitoring-1"}
	for range 2 { // the second is a retry, answered from the store's record
		if _, err := s.games.MakeMove(red, move); err != nil {
			return fmt.Errorf("MakeMove with a request id: %w", err)
		}
	}
	if _, err := watch.Recv(); err != nil { // move_played
		return fmt.Errorf("WatchGame: %w", err)
	}
	// c6-b7 steps a Black Pedina north-west, its backward diagonal, which
	// RULES.md forbids: ILLEGAL_MOVE.
	_, err = s.games.MakeMove(svAuth(ctx, cr.GetBlackToken()), &damonev1.MakeMoveRequest{Name: name, Move: "c6-b7"})
	if status.Code(err) != codes.FailedPrecondition {
		return fmt.Errorf("an illegal move: %v, want FAILED_PRECONDITION", err)
	}
	if _, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name}); err != nil {
		return fmt.Errorf("GetGame: %w", err)
	}
	if _, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: "games/nosuchgame"}); status.Code(err) != codes.NotFound {
		return fmt.Errorf("GetGame of a missing game: %v, want NOT_FOUND", err)
	}
	if _, err := s.games.ListGames(ctx, &damonev1.ListGamesRequest{PageSize: 10}); err != nil {
		return fmt.Errorf("ListGames: %w", err)
	}
	if err := monREST(ctx, "GET", s.url("/v1/"+name), "", 200); err != nil {
		return err
	}
	stopWatch()

	// The engine plays Black: Red's move makes it search, and its reply
	// comes on the watch stream.
	eg, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{EngineOpponent: &damonev1.EngineOpponent{
		Side: damonev1.Side_SIDE_BLACK, Strength: &damonev1.EngineOpponent_Depth{Depth: 3}}}})
	if err != nil {
		return fmt.Errorf("CreateGame against the engine: %w", err)
	}
	ectx, stopEngineWatch := context.WithTimeout(ctx, 20*time.Second)
	defer stopEngineWatch()
	ew, err := s.games.WatchGame(ectx, &damonev1.WatchGameRequest{Name: eg.GetGame().GetName()})
	if err != nil {
		return fmt.Errorf("WatchGame: %w", err)
	}
	if _, err := s.games.MakeMove(svAuth(ctx, eg.GetRedToken()), &damonev1.MakeMoveRequest{Name: eg.GetGame().GetName(), Move: "e2-d3"}); err != nil {
		return fmt.Errorf("MakeMove against the engine: %w", err)
	}
	for {
		ev, err := ew.Recv()
		if err != nil {
			return fmt.Errorf("waiting for the engine's move: %w", err)
		}
		if ev.GetMovePlayed().GetMove().GetSide() == damonev1.Side_SIDE_BLACK {
			break
		}
	}
	stopEngineWatch()

	an, err := damonev1.NewAnalysisServiceClient(s.conn).AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{Position: start,
		Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 4}})
	if err != nil {
		return fmt.Errorf("AnalyzePosition: %w", err)
	}
	for {
		if _, err := an.Recv(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("AnalyzePosition: %w", err)
		}
	}
	return nil
}

// monREST makes one REST call and checks its status.
func monREST(ctx context.Context, method, url, body string, want int) error {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s, want %d", method, url, resp.StatusCode, b, want)
	}
	return nil
}

// monSample is one sample line of a scrape: its name and labels.
type monSample struct {
	name   string
	labels map[string]string
}

// monParseScrape reads the sample lines of a text-format scrape (comments
// skipped), with label values unescaped.
func monParseScrape(text string) ([]monSample, error) {
	var out []monSample
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.IndexAny(line, "{ ")
		if i < 0 {
			return nil, fmt.Errorf("scrape line %q: no value", line)
		}
		smp := monSample{name: line[:i], labels: map[string]string{}}
		if line[i] == '{' {
			rest := line[i+1:]
			for {
				rest = strings.TrimLeft(rest, ", ")
				if strings.HasPrefix(rest, "}") {
					break
				}
				eq := strings.Index(rest, `="`)
				if eq < 0 {
					return nil, fmt.Errorf("scrape line %q: a label without a value", line)
				}
				label := rest[:eq]
				var val bytes.Buffer
				j := eq + 2
				for ; j < len(rest) && rest[j] != '"'; j++ {
					if rest[j] == '\\' && j+1 < len(rest) {
						j++
						if rest[j] == 'n' {
							val.WriteByte('\n')
							continue
						}
					}
					val.WriteByte(rest[j])
				}
				if j >= len(rest) {
					return nil, fmt.Errorf("scrape line %q: a label value not terminated", line)
				}
				smp.labels[label] = val.String()
				rest = rest[j+1:]
			}
		}
		out = append(out, smp)
	}
	return out, nil
}

// TestDashboardMetricsInScrape: the dashboard's queries read only what the
// server serves. After traffic through every part of the service, a
// scrape has a sample of every metric the dashboard's queries and
// variables select; of every metric in a query, a sample with each label
// the query groups by or its legend names (unless Prometheus adds that
// label to every series); and for each matcher on a fixed value (such as
// grpc_type="unary"), a sample of that metric with that value.
func TestDashboardMetricsInScrape(t *testing.T) {
	d, err := grafana.Parse(grafana.JSON)
	if err != nil {
		t.Fatal(err)
	}
	s := svStart(t)
	ctx := svCtx(t)
	if err := monClockGames(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := monTraffic(ctx, s); err != nil {
		t.Fatal(err)
	}
	samples, err := monParseScrape(s.metrics(t))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]map[string]string{}
	for _, smp := range samples {
		byName[smp.name] = append(byName[smp.name], smp.labels)
	}
	hasLabel := func(metric, label string, value *string) bool {
		return slices.ContainsFunc(byName[metric], func(ls map[string]string) bool {
			v, ok := ls[label]
			return ok && (value == nil || v == *value)
		})
	}

	checked := map[string]bool{}
	checkMetric := func(where, metric string) bool {
		if slices.Contains(monPromSeries, metric) {
			return false
		}
		checked[metric] = true
		if len(byName[metric]) == 0 {
			t.Errorf("%s reads %s, which the server's scrape does not have (docs/api.md, Metrics)", where, metric)
			return false
		}
		return true
	}
	for _, q := range d.Queries() {
		where := fmt.Sprintf("panel %q query %s", q.Panel, q.RefID)
		sels, err := grafana.Selectors(q.Expr)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		var metrics []string
		for _, sel := range sels {
			if !checkMetric(where, sel.Metric) {
				continue
			}
			metrics = append(metrics, sel.Metric)
			for _, m := range sel.Matchers {
				if slices.Contains(monTargetLabels, m.Label) {
					continue
				}
				var value *string
				if m.Op == "=" {
					value = &m.Value
				}
				if !hasLabel(sel.Metric, m.Label, value) {
					t.Errorf("%s: %s{%s%s%q}: no sample of %s has that label value", where, sel.Metric, m.Label, m.Op, m.Value, sel.Metric)
				}
			}
		}
		grouping, _ := grafana.GroupingLabels(q.Expr)
		for _, label := range append(grafana.LegendLabels(q.Legend), grouping...) {
			if slices.Contains(monTargetLabels, label) || label == "le" && slices.ContainsFunc(metrics, func(m string) bool { return strings.HasSuffix(m, "_bucket") }) {
				continue
			}
			if len(metrics) > 0 && !slices.ContainsFunc(metrics, func(m string) bool { return hasLabel(m, label, nil) }) {
				t.Errorf("%s names label %s, which no sample of %v has", where, label, metrics)
			}
		}
	}
	for _, v := range d.Variables() {
		if v.Type != "query" {
			continue
		}
		q, err := v.QueryText()
		if err != nil {
			t.Error(err)
			continue
		}
		names, err := grafana.VariableMetrics(q)
		if err != nil {
			t.Errorf("variable %s: %v", v.Name, err)
		}
		for _, name := range names {
			checkMetric("variable "+v.Name, name)
		}
	}
	// The dashboard covers the service: the metrics docs/api.md lists for
	// each area are read (histograms through their buckets).
	for _, want := range []string{
		"grpc_server_handled_total", "grpc_server_handling_seconds_bucket",
		"damone_movegen_duration_seconds_bucket", "damone_movegen_total",
		"damone_games", "damone_watch_streams", "damone_moves_played_total", "damone_moves_rejected_total",
		"damone_store_duration_seconds_bucket", "damone_store_errors_total",
		"damone_analyses_running", "damone_search_nodes_total", "damone_engine_move_duration_seconds_bucket",
		"damone_engine_queue_wait_seconds_bucket", "damone_engine_moves_queued",
		"damone_games_ended_by_clock_total", "damone_clock_end_lag_seconds_bucket",
		"damone_request_arrival_timeouts_total",
	} {
		if !checked[want] {
			t.Errorf("no dashboard query reads %s", want)
		}
	}
	t.Logf("%d queries read %d metrics of the server", len(d.Queries()), len(checked))
}
