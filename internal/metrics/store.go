package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/damone-rules/damone/internal/games"
)

// storeMetrics time every store call and count its failures by operation.
type storeMetrics struct {
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

// storeOperations are the operation labels of the store metrics, one per
// games.Store method.
var storeOperations = []string{"create", "get", "list", "update", "events", "request", "count", "due"}

func newStoreMetrics(reg prometheus.Registerer) *storeMetrics {
	m := &storeMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "damone_store_duration_seconds",
			Help: "Time of game store calls, by operation (create, get, list, update, events, request, count, due).",
			// 10 µs to about 9.3 s: past the 5 s bound on a store call.
			Buckets: prometheus.ExponentialBuckets(10e-6, 2.5, 16),
		}, []string{"operation"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "damone_store_errors_total",
			Help: "Game store calls that failed for a reason other than a missing game, a lost race or a reused request id, by operation.",
		}, []string{"operation"}),
	}
	reg.MustRegister(m.duration, m.errors)
	// Every operation's error series exists from the start at 0, so that a
	// rate() over it (an alert on store errors) has data before the first
	// failure.
	for _, op := range storeOperations {
		m.errors.WithLabelValues(op)
	}
	return m
}

func (m *storeMetrics) observe(op string, start time.Time, err error) {
	m.duration.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil && !errors.Is(err, games.ErrNotFound) && !errors.Is(err, games.ErrConflict) &&
		!errors.Is(err, games.ErrDuplicateRequest) && !errors.Is(err, context.Canceled) {
		m.errors.WithLabelValues(op).Inc()
	}
}

// instrumentedStore wraps a store with its metrics.
type instrumentedStore struct {
	s games.Store
	m *storeMetrics
}

// InstrumentStore returns s with every call timed and its failures
// counted. The result keeps s's optional abilities (games.Notifier,
// games.Pinger) and has no others.
func (m *Metrics) InstrumentStore(s games.Store) games.Store {
	return games.Wrap(s, &instrumentedStore{s: s, m: m.store})
}

func (i *instrumentedStore) Create(ctx context.Context, g *games.Game, events []games.Event) (err error) {
	defer func(t time.Time) { i.m.observe("create", t, err) }(time.Now())
	return i.s.Create(ctx, g, events)
}

func (i *instrumentedStore) Get(ctx context.Context, id string) (g *games.Game, err error) {
	defer func(t time.Time) { i.m.observe("get", t, err) }(time.Now())
	return i.s.Get(ctx, id)
}

func (i *instrumentedStore) List(ctx context.Context, q games.ListQuery) (gs []*games.Game, err error) {
	defer func(t time.Time) { i.m.observe("list", t, err) }(time.Now())
	return i.s.List(ctx, q)
}

func (i *instrumentedStore) Update(ctx context.Context, g *games.Game, events []games.Event, req *games.RequestRecord) (err error) {
	defer func(t time.Time) { i.m.observe("update", t, err) }(time.Now())
	return i.s.Update(ctx, g, events, req)
}

func (i *instrumentedStore) Events(ctx context.Context, id string, after int64, limit int) (evs []games.Event, err error) {
	defer func(t time.Time) { i.m.observe("events", t, err) }(time.Now())
	return i.s.Events(ctx, id, after, limit)
}

// A create under a request id, and its lookup, count as the create and
// request operations they are.
func (i *instrumentedStore) CreateRequested(ctx context.Context, g *games.Game, events []games.Event, req *games.CreateRecord) (err error) {
	defer func(t time.Time) { i.m.observe("create", t, err) }(time.Now())
	return i.s.CreateRequested(ctx, g, events, req)
}

func (i *instrumentedStore) CreateRequest(ctx context.Context, key string) (r games.CreateRecord, err error) {
	defer func(t time.Time) { i.m.observe("request", t, err) }(time.Now())
	return i.s.CreateRequest(ctx, key)
}

func (i *instrumentedStore) Request(ctx context.Context, id, requestID string) (r games.RequestRecord, err error) {
	defer func(t time.Time) { i.m.observe("request", t, err) }(time.Now())
	return i.s.Request(ctx, id, requestID)
}

func (i *instrumentedStore) Count(ctx context.Context) (n int, err error) {
	defer func(t time.Time) { i.m.observe("count", t, err) }(time.Now())
	return i.s.Count(ctx)
}

func (i *instrumentedStore) Due(ctx context.Context, until time.Time, limit int) (ids []string, err error) {
	defer func(t time.Time) { i.m.observe("due", t, err) }(time.Now())
	return i.s.Due(ctx, until, limit)
}
