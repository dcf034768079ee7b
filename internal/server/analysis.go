package server

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/search"
	"github.com/damone-rules/damone/internal/tracing"
)

// AnalysisObserver counts analyses and the nodes they search.
type AnalysisObserver interface {
	AnalysisStarted()
	AnalysisEnded(nodes int64)
}

// AnalysisServer serves damone.v1.AnalysisService with the search.
type AnalysisServer struct {
	damonev1.UnimplementedAnalysisServiceServer
	pool       *search.Pool
	maxTime    time.Duration
	maxRunning int64
	running    atomic.Int64
	observe    AnalysisObserver
	stopping   <-chan struct{}
	tables     Tables
}

// NewAnalysisServer returns the analysis service: each analysis runs at
// most maxTime, and at most maxRunning run at once.
func NewAnalysisServer(pool *search.Pool, maxTime time.Duration, maxRunning int, observe AnalysisObserver, stopping <-chan struct{}) *AnalysisServer {
	return &AnalysisServer{pool: pool, maxTime: maxTime, maxRunning: int64(maxRunning), observe: observe, stopping: stopping}
}

// WithTables makes analyses report the endgame tables' verdict for
// positions they hold (nil: none).
func (s *AnalysisServer) WithTables(t Tables) *AnalysisServer {
	s.tables = t
	return s
}

// verdict is the tables' answer for pos under v, or nil when no served
// table holds it (or the tables fail: an analysis does not depend on them).
func (s *AnalysisServer) verdict(pos *engine.Position, v engine.Variant) *damonev1.TablebaseVerdict {
	if s.tables == nil {
		return nil
	}
	set, _ := s.tables()
	if set == nil || !set.Has(v.WinCondition) || len(pos.Pieces()) > set.Pieces() {
		return nil
	}
	r, err := set.Report(pos, v.WinCondition, v.NoProgressLimit)
	if err != nil {
		return nil
	}
	return tablebaseVerdictToProto(r)
}

func tablebaseVerdictToProto(r egtb.Report) *damonev1.TablebaseVerdict {
	out := &damonev1.TablebaseVerdict{Category: categoryToProto[r.Answer.Category]}
	if r.Answer.HasDTC {
		d := int32(r.Answer.DTC)
		out.Dtc = &d
	}
	if r.Spare >= 0 {
		sp := int32(r.Spare)
		out.PliesToSpare = &sp
	}
	return out
}

func (s *AnalysisServer) AnalyzePosition(req *damonev1.AnalyzePositionRequest, stream grpc.ServerStreamingServer[damonev1.AnalyzePositionResponse]) error {
	pos, v, err := positionAndVariant(req.GetPosition(), req.GetVariant())
	if err != nil {
		return toStatus(err)
	}
	lines := int(req.GetLines())
	if lines == 0 {
		lines = 1
	}
	if lines < 1 || lines > search.MaxLines {
		return toStatus(badField("lines", "must be 1..%d, got %d", search.MaxLines, req.GetLines()))
	}
	var lim search.Limits
	switch l := req.GetLimit().(type) {
	case *damonev1.AnalyzePositionRequest_Depth:
		if l.Depth < 1 || l.Depth > search.MaxDepth {
			return toStatus(badField("depth", "must be 1..%d, got %d", search.MaxDepth, l.Depth))
		}
		lim.Depth = int(l.Depth)
	case *damonev1.AnalyzePositionRequest_Nodes:
		if l.Nodes < 1 {
			return toStatus(badField("nodes", "must be 1 or more, got %d", l.Nodes))
		}
		lim.Nodes = l.Nodes
	case *damonev1.AnalyzePositionRequest_MoveTime:
		if err := l.MoveTime.CheckValid(); err != nil || l.MoveTime.AsDuration() <= 0 {
			return toStatus(badField("move_time", "must be a duration above 0, e.g. \"1.5s\""))
		}
		if d := l.MoveTime.AsDuration(); d > s.maxTime {
			return limitExceeded("analysis_time", s.maxTime,
				"move_time %v is above the server's cap of %v per analysis (setting max-analysis-time)", d, s.maxTime)
		}
		lim.MoveTime = l.MoveTime.AsDuration()
	case *damonev1.AnalyzePositionRequest_Infinite:
		if !l.Infinite {
			return toStatus(badField("infinite", "must be true when set"))
		}
	default:
		return toStatus(badField("limit", "give one of depth, nodes, move_time or infinite"))
	}
	// Every analysis stops at the server's time cap.
	if lim.MoveTime == 0 || lim.MoveTime > s.maxTime {
		lim.MoveTime = s.maxTime
	}
	// A decided position has no best move to search for: the answer is
	// its outcome, the same one ListLegalMoves gives (RULES.md, End of the
	// game).
	if o := v.PositionOutcome(&pos); o.Over() {
		return stream.Send(&damonev1.AnalyzePositionResponse{Final: true, Outcome: outcomeToProto(o), Elapsed: durationpb.New(0)})
	}
	tb := s.verdict(&pos, v)
	if n := s.running.Add(1); n > s.maxRunning {
		s.running.Add(-1)
		return limitExceeded("analyses", s.maxRunning,
			"the server already runs its maximum of %d analyses (setting max-analyses); try again later", s.maxRunning)
	}
	defer s.running.Add(-1)
	s.observe.AnalysisStarted()

	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	done := ctx.Done()
	go func() { // a stopping server ends analyses at once
		select {
		case <-s.stopping:
			cancel()
		case <-done:
		}
	}()
	var sendErr error
	// A context of its own: the watcher above must not read a variable
	// this assignment changes (a data race under -race).
	sctx, endSpan := tracing.Search(ctx, "engine.analyze", attribute.Int("damone.lines", lines))
	defer endSpan()
	res := s.pool.Search(sctx, pos, search.Options{Lines: lines, Variant: v}, lim, func(info search.Info) {
		if sendErr == nil {
			msg := analysisToProto(&pos, &info, false, nil)
			msg.Tablebase = tb
			sendErr = stream.Send(msg)
			if sendErr != nil {
				cancel()
			}
		}
	})
	s.observe.AnalysisEnded(res.Info.Nodes)
	if sendErr != nil {
		return sendErr
	}
	if err := stream.Context().Err(); err != nil {
		return toStatus(err) // the client went away: no final message
	}
	var best *engine.Move
	if res.HasBest {
		best = &res.Best
	}
	msg := analysisToProto(&pos, &res.Info, true, best)
	msg.Tablebase = tb
	return stream.Send(msg)
}

func analysisToProto(pos *engine.Position, info *search.Info, final bool, best *engine.Move) *damonev1.AnalyzePositionResponse {
	out := &damonev1.AnalyzePositionResponse{
		Depth:          int32(info.Depth),
		Nodes:          info.Nodes,
		NodesPerSecond: int64(info.NodesPerSecond()),
		Elapsed:        durationpb.New(info.Elapsed),
		Final:          final,
	}
	for _, l := range info.Lines {
		if len(l.PV) == 0 {
			continue
		}
		line := &damonev1.AnalysisLine{Score: scoreToProto(l.Score)}
		for _, m := range l.PV {
			line.Moves = append(line.Moves, m.String())
		}
		out.Lines = append(out.Lines, line)
	}
	if best != nil {
		out.BestMove = moveToProto(pos, best)
	}
	return out
}

func scoreToProto(s search.Score) *damonev1.Score {
	if n, forced := s.Plies(); forced {
		if s > 0 {
			return &damonev1.Score{Value: &damonev1.Score_WinInPlies{WinInPlies: int32(n)}}
		}
		return &damonev1.Score{Value: &damonev1.Score_LossInPlies{LossInPlies: int32(n)}}
	}
	return &damonev1.Score{Value: &damonev1.Score_Centipedines{Centipedines: int32(s)}}
}
