// Package metrics holds the service's Prometheus metrics on a registry of
// its own: engine move-generation latency, gRPC server metrics, games,
// watchers and moves, and the Go, process and build-info collectors.
// No label ever carries a game id or a token.
package metrics

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/damone-rules/damone/internal/games"
)

// Metrics is the service's set of metrics.
type Metrics struct {
	Registry *prometheus.Registry
	// GRPC is the gRPC server metrics provider: its interceptors count
	// calls by method and code and time them.
	GRPC *grpcprom.ServerMetrics

	movegen      *prometheus.HistogramVec
	movegenByOp  map[string]prometheus.Observer
	movegenCalls map[string]prometheus.Counter
	watchers     prometheus.Gauge
	movesPlayed  prometheus.Counter
	movesRefused *prometheus.CounterVec
	store        *storeMetrics

	analyses    prometheus.Gauge
	searchNodes prometheus.Counter
	engineMove  prometheus.Histogram
	engineWait  prometheus.Histogram
	engineQueue prometheus.Gauge

	requestTimeouts map[string]prometheus.Counter // by transport

	clockEnds map[string]prometheus.Counter // by reason: timeout, aborted
	clockLag  prometheus.Histogram
}

// Transports of damone_request_arrival_timeouts_total: gRPC calls, and
// REST calls (their bodies, and a validateGames body's first line).
const (
	TransportGRPC = "grpc"
	TransportREST = "rest"
)

// Operations of damone_movegen_total and damone_movegen_duration_seconds:
// the RulesService calls, and make_move, a move played in a game
// (GameService.MakeMove or the engine's move), which replays the game and
// checks the move.
var operations = []string{"list_legal_moves", "apply_move", "perft", "validate_game", "make_move"}

// New registers every metric on a new registry. countGames reports the
// games held (read at scrape time).
func New(countGames func(context.Context) (int, error)) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		GRPC: grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram(
			grpcprom.WithHistogramBuckets([]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}),
		)),
		movegen: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "damone_movegen_duration_seconds",
			Help: "Time the engine spent per call generating, checking or counting moves, by operation (list_legal_moves, apply_move, perft, validate_game: one whole game, make_move: a move in a game, with the replay of its moves); the RPC around it is not included. list_legal_moves, apply_move and validate_game are sampled, 1 call in 8: damone_movegen_total counts every call.",
			// 50 ns to about 1 ms, doubling.
			Buckets: prometheus.ExponentialBuckets(50e-9, 2, 15),
			// Native histogram buckets about 10% wide for scrapers that
			// negotiate them.
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  160,
			NativeHistogramMinResetDuration: time.Hour,
		}, []string{"operation"}),
		watchers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "damone_watch_streams", Help: "Open WatchGame streams.",
		}),
		movesPlayed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "damone_moves_played_total", Help: "Moves played in stateful games.",
		}),
		movesRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "damone_moves_rejected_total", Help: "MakeMove calls refused, by ErrorInfo reason.",
		}, []string{"reason"}),
	}
	gamesHeld := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "damone_games", Help: "Games held by the store.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, err := countGames(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	})
	movegenTotal := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "damone_movegen_total",
		Help: "Engine calls that generate, check or count moves, every one counted, by operation (as damone_movegen_duration_seconds, which samples some).",
	}, []string{"operation"})
	reg.MustRegister(
		movegenTotal,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
		m.GRPC, m.movegen, m.watchers, m.movesPlayed, m.movesRefused, gamesHeld,
	)
	m.store = newStoreMetrics(reg)
	m.analyses = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "damone_analyses_running", Help: "AnalyzePosition calls searching now.",
	})
	m.searchNodes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "damone_search_nodes_total",
		Help: "Nodes searched by analyses; rate() of it is the service's search speed in nodes per second.",
	})
	m.engineMove = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "damone_engine_move_duration_seconds",
		Help:    "Time the engine thought before each of its moves in games against it.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 15), // 1 ms to about 16 s
	})
	m.engineWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "damone_engine_queue_wait_seconds",
		Help: "Time each engine move in games waited for a search slot (--max-analyses of them search at once), from the move that made the engine to move to the start of its search.",
		// 1 ms to about 9 minutes: up to --max-engine-queue moves of up
		// to --max-engine-move-time each may be ahead.
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 20),
	})
	m.engineQueue = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "damone_engine_moves_queued", Help: "Engine moves in games waiting for a search slot now (at most --max-engine-queue, besides moves found waiting after a restart).",
	})
	requestTimeouts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "damone_request_arrival_timeouts_total",
		Help: "Calls ended because their request did not arrive within --max-call-duration of their start (or by a shutdown's grace), by transport: grpc (a call's request, a stream's first message) or rest (a request's whole body, a validateGames body's first line).",
	}, []string{"transport"})
	reg.MustRegister(m.analyses, m.searchNodes, m.engineMove, m.engineWait, m.engineQueue, requestTimeouts)
	// Both series exist from the start, so a rate over them is never
	// missing before the first timeout.
	m.requestTimeouts = map[string]prometheus.Counter{}
	for _, tr := range []string{TransportGRPC, TransportREST} {
		m.requestTimeouts[tr] = requestTimeouts.WithLabelValues(tr)
	}
	clockEnds := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "damone_games_ended_by_clock_total",
		Help: "Games ended by their clocks, by reason: timeout (the side to move ran out of time) or aborted (a side's first move did not come in time).",
	}, []string{"reason"})
	m.clockLag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "damone_clock_end_lag_seconds",
		Help: "Time from a game's clock deadline to the commit of its end by the clock (timeout or abort): how late the server ended it.",
		// 1 ms to about 65 s: a restart after an outage can be late by much.
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 17),
	})
	reg.MustRegister(clockEnds, m.clockLag)
	m.clockEnds = map[string]prometheus.Counter{}
	for _, r := range []string{"timeout", "aborted"} {
		m.clockEnds[r] = clockEnds.WithLabelValues(r)
	}
	// Resolve each label once, so observing is a plain histogram update.
	m.movegenByOp = make(map[string]prometheus.Observer, len(operations))
	m.movegenCalls = make(map[string]prometheus.Counter, len(operations))
	for _, op := range operations {
		m.movegenByOp[op] = m.movegen.WithLabelValues(op)
		m.movegenCalls[op] = movegenTotal.WithLabelValues(op)
	}
	return m
}

// SampleMovegen reports whether to time this call of a fast operation.
//
// Why sample: listing or applying moves takes a few hundred nanoseconds
// (BenchmarkGenerateMoves), while reading the clock twice and updating the
// histogram costs 100-160 ns here (BenchmarkObserveMovegen). Timing one
// call in 8, chosen by the runtime's cheap per-thread random source (a few
// nanoseconds, no shared counter), keeps the cost of measuring far below
// the work measured while the distribution stays representative; the call
// count comes from damone_movegen_total (CountMovegen, an atomic add).
// Perft, which takes milliseconds, is always timed.
func (m *Metrics) SampleMovegen() bool { return rand.Uint32()&7 == 0 }

// CountMovegen counts one engine call of the operation.
func (m *Metrics) CountMovegen(operation string) {
	if c, ok := m.movegenCalls[operation]; ok {
		c.Inc()
	}
}

// ObserveMovegen records how long one engine call took (its count is
// CountMovegen's).
func (m *Metrics) ObserveMovegen(operation string, d time.Duration) {
	if o, ok := m.movegenByOp[operation]; ok {
		o.Observe(d.Seconds())
	}
}

// MoveChecked counts and times a move played or refused in a game
// (operation make_move): every one is timed, as it costs far more than
// timing it.
func (m *Metrics) MoveChecked(d time.Duration) {
	m.movegenCalls["make_move"].Inc()
	m.movegenByOp["make_move"].Observe(d.Seconds())
}

// GameFlagged counts a game ended by its clock and how late after its
// deadline.
func (m *Metrics) GameFlagged(reason string, lag time.Duration) {
	if c, ok := m.clockEnds[reason]; ok {
		c.Inc()
	}
	m.clockLag.Observe(max(0, lag.Seconds()))
}

// MovePlayed counts a move played in a game.
func (m *Metrics) MovePlayed() { m.movesPlayed.Inc() }

// MoveRejected counts a refused move by its reason.
func (m *Metrics) MoveRejected(reason string) {
	if reason == "" {
		reason = "OTHER"
	}
	m.movesRefused.WithLabelValues(reason).Inc()
}

// WatchersChanged moves the open-streams gauge.
func (m *Metrics) WatchersChanged(delta int) { m.watchers.Add(float64(delta)) }

// AnalysisStarted and AnalysisEnded move the running-analyses gauge.
func (m *Metrics) AnalysisStarted() { m.analyses.Inc() }

// AnalysisEnded records the end of an analysis that searched nodes.
func (m *Metrics) AnalysisEnded(nodes int64) {
	m.analyses.Dec()
	m.searchNodes.Add(float64(nodes))
}

// EngineMoved records how long the engine thought before a move.
func (m *Metrics) EngineMoved(d time.Duration) { m.engineMove.Observe(d.Seconds()) }

// Metrics times the engine's moves in games (the interface is optional:
// without this check a missing method would only drop the metrics).
var _ games.EngineObserver = (*Metrics)(nil)

// EngineWaited records how long an engine move waited for a search slot.
func (m *Metrics) EngineWaited(d time.Duration) { m.engineWait.Observe(d.Seconds()) }

// EngineQueueLength sets the gauge of engine moves waiting for a slot.
func (m *Metrics) EngineQueueLength(n int) { m.engineQueue.Set(float64(n)) }

// RequestTimedOut counts a call of the transport (TransportGRPC or
// TransportREST) ended because its request did not arrive in time; other
// transports are ignored.
func (m *Metrics) RequestTimedOut(transport string) {
	if c, ok := m.requestTimeouts[transport]; ok {
		c.Inc()
	}
}

// Handler serves the registry, OpenMetrics included.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{EnableOpenMetrics: true, Registry: m.Registry})
}
