package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"google.golang.org/grpc/codes"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// Error reasons of TablebaseService (error_reason.proto).
const (
	reasonNotInTablebase   = "NOT_IN_TABLEBASE"
	reasonTablebaseLoading = "TABLEBASE_LOADING"
)

// maxMainlinePlies bounds a mainline: a win under the rule ends within
// the limit after its last conversion, but a draw with the rule off, or a
// cursed win, has no natural end.
const maxMainlinePlies = 400

// Tables gives the endgame tables to serve: the set, or nil with loading
// true while they are still being loaded or built, or nil and false when
// none are served.
type Tables func() (set *egtb.Set, loading bool)

// TablebaseServer serves damone.v1.TablebaseService from internal/egtb.
type TablebaseServer struct {
	damonev1.UnimplementedTablebaseServiceServer
	tables Tables
}

// NewTablebaseServer returns the tablebase service over tables (nil: none
// served).
func NewTablebaseServer(tables Tables) *TablebaseServer {
	if tables == nil {
		tables = func() (*egtb.Set, bool) { return nil, false }
	}
	return &TablebaseServer{tables: tables}
}

var categoryToProto = [...]damonev1.TablebaseCategory{
	egtb.Unknown:     damonev1.TablebaseCategory_TABLEBASE_CATEGORY_UNKNOWN,
	egtb.Win:         damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN,
	egtb.CursedWin:   damonev1.TablebaseCategory_TABLEBASE_CATEGORY_CURSED_WIN,
	egtb.Draw:        damonev1.TablebaseCategory_TABLEBASE_CATEGORY_DRAW,
	egtb.BlessedLoss: damonev1.TablebaseCategory_TABLEBASE_CATEGORY_BLESSED_LOSS,
	egtb.Loss:        damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS,
}

// tablebaseRequest checks a request's position and variant and finds the
// set that holds the position.
func (s *TablebaseServer) tablebaseRequest(text string, v *damonev1.Variant) (*egtb.Set, engine.Position, engine.Variant, error) {
	if text == "" {
		return nil, engine.Position{}, engine.Variant{}, badField("position", "is required")
	}
	pos, err := engine.ParsePosition(text)
	if err != nil {
		return nil, pos, engine.Variant{}, badField("position", "%v", err)
	}
	variant, err := variantFromProto("variant", v)
	if err != nil {
		return nil, pos, variant, err
	}
	set, loading := s.tables()
	if set == nil && loading {
		return nil, pos, variant, withInfo(codes.Unavailable, "the endgame tables are still loading; retry later", reasonTablebaseLoading, nil)
	}
	pieces := len(pos.Pieces())
	notIn := func(msg string, maxPieces int) error {
		return withInfo(codes.FailedPrecondition, msg, reasonNotInTablebase, map[string]string{
			"pieces": strconv.Itoa(pieces), "max_pieces": strconv.Itoa(maxPieces), "win_condition": winConditionName(variant.WinCondition)})
	}
	switch {
	case set == nil:
		return nil, pos, variant, notIn("this server serves no endgame tables", 0)
	case !set.Has(variant.WinCondition):
		return nil, pos, variant, notIn(fmt.Sprintf("the endgame tables were not built for %s", winConditionName(variant.WinCondition)), set.Pieces())
	case pieces > set.Pieces():
		return nil, pos, variant, notIn(fmt.Sprintf("the position has %d pieces; the endgame tables hold up to %d", pieces, set.Pieces()), set.Pieces())
	}
	return set, pos, variant, nil
}

func winConditionName(wc engine.WinCondition) string {
	if wc == engine.CaptureAllDamones {
		return damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES.String()
	}
	return damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_PIECES.String()
}

// tablebaseError maps what internal/egtb refuses: a position it does not
// hold (a material the set lacks) is NOT_IN_TABLEBASE, anything else (a
// corrupt entry) INTERNAL.
func tablebaseError(err error) error {
	if errors.Is(err, egtb.ErrNotInTables) {
		return withInfo(codes.FailedPrecondition, err.Error(), reasonNotInTablebase, nil)
	}
	return toStatus(err)
}

func tablebaseMovesToProto(ms []egtb.MoveAnswer) []*damonev1.TablebaseMove {
	out := make([]*damonev1.TablebaseMove, len(ms))
	msgs := make([]damonev1.TablebaseMove, len(ms))
	for i := range ms {
		m := &msgs[i]
		m.Notation = ms[i].Move.String()
		m.Conversion = ms[i].Conversion
		m.Category = categoryToProto[ms[i].Answer.Category]
		if ms[i].Answer.HasDTC {
			d := int32(ms[i].Answer.DTC)
			m.Dtc = &d
		}
		out[i] = m
	}
	return out
}

func (s *TablebaseServer) ProbePosition(ctx context.Context, req *damonev1.ProbePositionRequest) (*damonev1.ProbePositionResponse, error) {
	set, pos, variant, err := s.tablebaseRequest(req.GetPosition(), req.GetVariant())
	if err != nil {
		return nil, toStatus(err)
	}
	r, err := set.Report(&pos, variant.WinCondition, variant.NoProgressLimit)
	if err != nil {
		return nil, tablebaseError(err)
	}
	v := tablebaseVerdictToProto(r)
	return &damonev1.ProbePositionResponse{Category: v.Category, Dtc: v.Dtc, PliesToSpare: v.PliesToSpare, Moves: tablebaseMovesToProto(r.Moves)}, nil
}

func (s *TablebaseServer) GetMainline(ctx context.Context, req *damonev1.GetMainlineRequest) (*damonev1.GetMainlineResponse, error) {
	set, pos, variant, err := s.tablebaseRequest(req.GetPosition(), req.GetVariant())
	if err != nil {
		return nil, toStatus(err)
	}
	a, line, end, err := set.Mainline(&pos, variant.WinCondition, variant.NoProgressLimit, maxMainlinePlies)
	if err != nil {
		return nil, tablebaseError(err)
	}
	return &damonev1.GetMainlineResponse{Category: categoryToProto[a.Category], Moves: tablebaseMovesToProto(line), FinalPosition: end.String()}, nil
}
