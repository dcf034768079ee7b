// Package tracing sets up OpenTelemetry tracing for damone serve: an OTLP
// exporter over gRPC, off unless an endpoint is given (--otlp-endpoint or
// the standard OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT variables),
// and spans around the calls the service makes below an RPC: store calls
// and engine searches (README, The service; docs/operations.md).
//
// The RPC spans themselves come from otelgrpc and otelhttp, installed by
// the server when tracing is on. No span carries a request's metadata or
// headers, so no side token reaches a trace.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// Name is the instrumentation scope of damone's own spans.
const Name = "github.com/damone-rules/damone"

var tracer = otel.Tracer(Name)

// Enabled reports whether tracing is asked for: an endpoint given, or one
// in the standard variables, and OTEL_TRACES_EXPORTER not "none".
func Enabled(endpoint string) bool {
	if strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") || strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	return endpoint != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Start installs a tracer provider that exports spans over OTLP/gRPC to
// endpoint (a URL: http://host:4317 is plaintext, https:// is TLS; empty:
// the OTEL_* variables decide), with W3C trace-context propagation, and
// returns its shutdown, which flushes what is pending. The exporter reads
// the other OTEL_EXPORTER_OTLP_* and OTEL_BSP_* variables itself; the
// service is named "damone" unless OTEL_SERVICE_NAME says otherwise.
func Start(ctx context.Context, endpoint, version string, log *slog.Logger) (shutdown func(context.Context) error, err error) {
	var opts []otlptracegrpc.Option
	if endpoint != "" { // checked by the caller (CheckEndpoint), with the other settings
		opts = append(opts, otlptracegrpc.WithEndpointURL(endpoint))
	}
	// The exporter's failures (a collector down) go to the service's log,
	// in its format, not to a plain-text logger of their own.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing", "err", err) }))
	exp, err := otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp exporter for %q: %w", Redacted(endpoint), err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "damone"), attribute.String("service.version", version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithHost())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// CheckEndpoint checks an --otlp-endpoint: a URL with the scheme http
// (plaintext) or https (TLS) and a host, e.g. http://otel-collector:4317.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want a URL such as http://otel-collector:4317 (https:// for TLS), got %q", Redacted(endpoint))
	}
	return nil
}

// Redacted returns endpoint for logs and errors: a URL's password is
// "xxxxx", and a string that does not parse as a URL is not shown at all
// (which part of it is a password cannot be told).
func Redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(not a URL)"
	}
	return u.Redacted()
}

// TraceID returns the id of the sampled trace ctx is in, or "": for log
// lines and exemplars, which must lead to a trace that was sent.
func TraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && sc.IsSampled() {
		return sc.TraceID().String()
	}
	return ""
}

// span starts a child span of ctx's, if ctx is in a trace: a store call or
// a search outside any trace (a sweep, the clocks' poll) makes none.
func span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, trace.SpanFromContext(ctx) // a no-op span
	}
	return tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

func end(sp trace.Span, err error) {
	// A missing game or request record, a lost race and a replayed
	// request are answers, not failures (as damone_store_errors_total).
	if err != nil && !errors.Is(err, games.ErrNotFound) && !errors.Is(err, games.ErrConflict) && !errors.Is(err, games.ErrDuplicateRequest) {
		sp.RecordError(err)
		sp.SetStatus(codes.Error, err.Error())
	}
	sp.End()
}

// Store returns s with a span around each call made within a trace,
// named "store." and the operation ("store.get", "store.update", …), with
// the game's id as an attribute where there is one.
func Store(s games.Store) games.Store { return games.Wrap(s, &store{s}) }

type store struct{ s games.Store }

var gameAttr = attribute.Key("damone.game")

func (t *store) Create(ctx context.Context, g *games.Game, events []games.Event) (err error) {
	ctx, sp := span(ctx, "store.create", gameAttr.String(g.ID))
	defer func() { end(sp, err) }()
	return t.s.Create(ctx, g, events)
}

func (t *store) Get(ctx context.Context, id string) (g *games.Game, err error) {
	ctx, sp := span(ctx, "store.get", gameAttr.String(id))
	defer func() { end(sp, err) }()
	return t.s.Get(ctx, id)
}

func (t *store) List(ctx context.Context, q games.ListQuery) (gs []*games.Game, err error) {
	ctx, sp := span(ctx, "store.list", attribute.Int("damone.limit", q.Limit))
	defer func() { end(sp, err) }()
	return t.s.List(ctx, q)
}

func (t *store) Update(ctx context.Context, g *games.Game, events []games.Event, req *games.RequestRecord) (err error) {
	ctx, sp := span(ctx, "store.update", gameAttr.String(g.ID), attribute.Int("damone.events", len(events)))
	defer func() { end(sp, err) }()
	return t.s.Update(ctx, g, events, req)
}

func (t *store) Events(ctx context.Context, id string, after int64, limit int) (evs []games.Event, err error) {
	ctx, sp := span(ctx, "store.events", gameAttr.String(id), attribute.Int64("damone.after", after))
	defer func() { end(sp, err) }()
	return t.s.Events(ctx, id, after, limit)
}

func (t *store) Request(ctx context.Context, id, requestID string) (r games.RequestRecord, err error) {
	// The request id is the client's: not recorded.
	ctx, sp := span(ctx, "store.request", gameAttr.String(id))
	defer func() { end(sp, err) }()
	return t.s.Request(ctx, id, requestID)
}

func (t *store) CreateRequested(ctx context.Context, g *games.Game, events []games.Event, req *games.CreateRecord) (err error) {
	ctx, sp := span(ctx, "store.create", gameAttr.String(g.ID))
	defer func() { end(sp, err) }()
	return t.s.CreateRequested(ctx, g, events, req)
}

func (t *store) CreateRequest(ctx context.Context, key string) (r games.CreateRecord, err error) {
	// Not even the key (a digest of the client's id) is recorded.
	ctx, sp := span(ctx, "store.request")
	defer func() { end(sp, err) }()
	return t.s.CreateRequest(ctx, key)
}

func (t *store) Count(ctx context.Context) (n int, err error) {
	ctx, sp := span(ctx, "store.count")
	defer func() { end(sp, err) }()
	return t.s.Count(ctx)
}

func (t *store) Due(ctx context.Context, until time.Time, limit int) (ids []string, err error) {
	ctx, sp := span(ctx, "store.due")
	defer func() { end(sp, err) }()
	return t.s.Due(ctx, until, limit)
}

// Mover returns m with a span around each engine search made within a
// trace ("engine.best_move", with its limits).
func Mover(m games.EngineMover) games.EngineMover { return mover{m} }

type mover struct{ m games.EngineMover }

func (t mover) BestMove(ctx context.Context, pos engine.Position, history []engine.Position, v engine.Variant,
	moveTime time.Duration, depth int) (engine.Move, bool) {
	// Always a span: the engine's move in a game runs on its own, after
	// the call that made it due, so it starts a trace of its own.
	ctx, sp := tracer.Start(ctx, "engine.best_move", trace.WithAttributes(
		attribute.Int64("damone.move_time_ms", moveTime.Milliseconds()), attribute.Int("damone.depth", depth)))
	defer sp.End()
	return t.m.BestMove(ctx, pos, history, v, moveTime, depth)
}

// Search starts a span for an engine search within ctx's trace (an
// analysis); end it with the returned func.
func Search(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, func()) {
	ctx, sp := span(ctx, name, attrs...)
	return ctx, func() { sp.End() }
}
