package main

// The reference games (internal/refgames: 598 whole games worked out
// independently from RULES.md, some with illegal or garbage moves, moves
// after the end, decided starts) through every path of the real binary:
// GameService (CreateGame, then MakeMove with real tokens), ValidateGame
// over gRPC and REST, ValidateGames over gRPC and REST NDJSON. Every path
// must give every expected field: validity, first illegal ply, plies
// played, end ply, outcome, final position, and the right refusal.
//
// The reference gives no refusal reason, so the test classifies the first
// illegal move itself, in this order:
//   - it comes after the game ended (first_illegal_ply = end_ply + 1):
//     GAME_OVER;
//   - it is not move notation (refMoveSyntax: squares a1..h8, dark ones
//     only, "-" for a step, "x" between the landing squares of a
//     capture): INVALID_REQUEST;
//   - it is a two-square capture that several legal moves of the
//     reference's final position match (origin and last landing square;
//     the legal moves come from the engine's generator, checked against
//     independent perft counts in internal/engine): AMBIGUOUS_MOVE;
//   - otherwise ILLEGAL_MOVE, with cause NO_PIECE when the reference's
//     final position has no piece on the origin and OPPONENT_PIECE when it
//     has one of the side not to move (both read from the position text by
//     refBoard, not by the engine); other causes must be one of the
//     documented ones and the same on every path.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/refgames"
)

// refKind is how the first illegal move of a reference game is refused.
type refKind int

const (
	refNone      refKind = iota // every move legal
	refGameOver                 // a move after the game ended
	refMalformed                // not move notation
	refAmbiguous                // a short form several legal moves match
	refIllegal                  // well formed, not legal here
)

var refKindNames = [...]string{"valid", "after the end", "not notation", "ambiguous", "illegal"}

// refReasons are the ErrorInfo reasons each kind must give (error_reason.proto).
var refReasons = [...]string{"", "GAME_OVER", "INVALID_REQUEST", "AMBIGUOUS_MOVE", "ILLEGAL_MOVE"}

// refOtherCauses are the documented causes of ILLEGAL_MOVE beyond the
// two the test works out from the board (docs/api.md, error model).
var refOtherCauses = []string{"CAPTURE_REQUIRED", "INCOMPLETE_CAPTURE", "CAPTURE_PRIORITY", "NOT_A_MOVE"}

// refCase is one reference game with what the test worked out about it.
type refCase struct {
	g       refgames.Game
	variant *damonev1.Variant
	kind    refKind
	move    string   // the first illegal move
	cause   string   // NO_PIECE or OPPONENT_PIECE when the board decides it
	match   []string // for refAmbiguous: the matching legal moves, sorted
	// theirs: the move's origin holds a piece of the side not to move
	// (counted for the log).
	theirs bool
}

// refMoveSyntax is move notation (docs/notation.md, Moves): a step
// origin-destination, or a capture origin x landing [x landing]...
var refMoveSyntax = regexp.MustCompile(`^[a-h][1-8](?:-[a-h][1-8]|(?:x[a-h][1-8])+)$`)

// refWellFormed: move notation on dark squares only (file index + rank
// index odd; RULES.md, Board and coordinates).
func refWellFormed(mv string) bool {
	if !refMoveSyntax.MatchString(mv) {
		return false
	}
	for i := 0; i < len(mv); i += 3 {
		if (int(mv[i]-'a')+int(mv[i+1]-'1'))%2 == 0 {
			return false
		}
	}
	return true
}

// refBoard reads a position text (docs/notation.md, Positions) into the
// side to move and the side of the piece on each square: "R" or "B".
func refBoard(t *testing.T, text string) (string, map[string]string) {
	t.Helper()
	f := strings.Split(text, ":")
	if len(f) != 4 || (f[0] != "R" && f[0] != "B") || !strings.HasPrefix(f[1], "R") || !strings.HasPrefix(f[2], "B") {
		t.Fatalf("reference position %q is not side:Rpieces:Bpieces:count", text)
	}
	board := map[string]string{}
	for _, side := range f[1:3] {
		if len(side) == 1 {
			continue
		}
		for _, pc := range strings.Split(side[1:], ",") {
			if len(pc) != 3 || !strings.ContainsRune("MDP", rune(pc[0])) {
				t.Fatalf("reference position %q: piece %q", text, pc)
			}
			board[pc[1:]] = side[:1]
		}
	}
	return f[0], board
}

// refPlyCount is the no-progress count of a position text.
func refPlyCount(t *testing.T, text string) int {
	t.Helper()
	n, err := strconv.Atoi(text[strings.LastIndexByte(text, ':')+1:])
	if err != nil {
		t.Fatalf("position %q: %v", text, err)
	}
	return n
}

func loadRefCases(t *testing.T) []*refCase {
	t.Helper()
	games, err := refgames.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 598 {
		t.Fatalf("%d reference games, want the 598 of internal/refgames", len(games))
	}
	out := make([]*refCase, len(games))
	for i, g := range games {
		c := &refCase{g: g, variant: &damonev1.Variant{}}
		if err := protojson.Unmarshal(g.Variant, c.variant); err != nil {
			t.Fatalf("%s: variant %s: %v", g.ID, g.Variant, err)
		}
		e := g.Expected
		if e.Valid != (e.FirstIllegalPly == 0) || (e.Outcome == nil) != (e.EndPly == nil) {
			t.Fatalf("%s: inconsistent reference %+v", g.ID, e)
		}
		if !e.Valid {
			c.move = g.Moves[e.FirstIllegalPly-1]
			stm, board := refBoard(t, e.FinalPosition)
			if refWellFormed(c.move) {
				side, ok := board[c.move[:2]]
				c.theirs = ok && side != stm
			}
			switch {
			case e.EndPly != nil && e.FirstIllegalPly == *e.EndPly+1:
				c.kind = refGameOver
			case !refWellFormed(c.move):
				c.kind = refMalformed
			default:
				c.kind = refIllegal
				if strings.Count(c.move, "x") == 1 {
					p, err := engine.ParsePosition(e.FinalPosition)
					if err != nil {
						t.Fatalf("%s: final position: %v", g.ID, err)
					}
					for _, m := range p.LegalMoves() {
						s := m.String()
						if m.IsCapture() && s[:2] == c.move[:2] && s[len(s)-2:] == c.move[3:] {
							c.match = append(c.match, s)
						}
					}
					if len(c.match) == 1 {
						t.Fatalf("%s: %s matches exactly one legal move %v, yet the reference calls it illegal", g.ID, c.move, c.match)
					}
					if len(c.match) > 1 {
						c.kind = refAmbiguous
						sort.Strings(c.match)
					}
				}
				if c.kind == refIllegal {
					switch side, ok := board[c.move[:2]]; {
					case !ok:
						c.cause = "NO_PIECE"
					case side != stm:
						c.cause = "OPPONENT_PIECE"
					}
				}
			}
		}
		out[i] = c
	}
	return out
}

// refVerdict is a verdict in one shape, from whichever path gave it.
type refVerdict struct {
	valid           bool
	firstIllegalPly int
	illegalMove     string
	reason, cause   string
	metadata        map[string]string
	moves           []string
	ply             int
	endPly          *int
	result, ending  string // outcome names, "" if none
	final           string
	finalSide       string // final_position.side_to_move
	finalCount      int    // final_position.no_progress_plies
	positions       []string
}

func verdictFromProto(v *damonev1.ValidateGameResponse) refVerdict {
	out := refVerdict{
		valid: v.GetValid(), firstIllegalPly: int(v.GetFirstIllegalPly()), illegalMove: v.GetIllegalMove(),
		reason: v.GetReason(), cause: v.GetCause(), metadata: v.GetMetadata(), moves: v.GetMoves(), ply: int(v.GetPly()),
		final: v.GetFinalPosition().GetText(), finalSide: v.GetFinalPosition().GetSideToMove().String(),
		finalCount: int(v.GetFinalPosition().GetNoProgressPlies()),
	}
	if v.EndPly != nil {
		out.endPly = ptrTo(int(v.GetEndPly()))
	}
	if o := v.GetOutcome(); o != nil {
		out.result, out.ending = o.GetResult().String(), o.GetReason().String()
	}
	for _, p := range v.GetPositions() {
		out.positions = append(out.positions, p.GetText())
	}
	return out
}

// refRESTVerdict is ValidateGameResponse in the documented JSON
// (snake_case names; decoded with unknown fields refused, so a name in
// another case fails).
type refRESTVerdict struct {
	Valid           bool              `json:"valid"`
	FirstIllegalPly int               `json:"first_illegal_ply"`
	IllegalMove     string            `json:"illegal_move"`
	Reason          string            `json:"reason"`
	Cause           string            `json:"cause"`
	Message         string            `json:"message"`
	Metadata        map[string]string `json:"metadata"`
	Moves           []string          `json:"moves"`
	Ply             int               `json:"ply"`
	Outcome         *struct {
		Result string `json:"result"`
		Reason string `json:"reason"`
	} `json:"outcome"`
	EndPly        *int              `json:"end_ply"`
	FinalPosition refRESTPosition   `json:"final_position"`
	Positions     []refRESTPosition `json:"positions"`
}

type refRESTPosition struct {
	SideToMove string `json:"side_to_move"`
	Pieces     []struct {
		Square string `json:"square"`
		Side   string `json:"side"`
		Rank   string `json:"rank"`
	} `json:"pieces"`
	NoProgressPlies int    `json:"no_progress_plies"`
	Text            string `json:"text"`
}

func (v *refRESTVerdict) verdict() refVerdict {
	out := refVerdict{
		valid: v.Valid, firstIllegalPly: v.FirstIllegalPly, illegalMove: v.IllegalMove, reason: v.Reason,
		cause: v.Cause, metadata: v.Metadata, moves: v.Moves, ply: v.Ply, endPly: v.EndPly,
		final: v.FinalPosition.Text, finalSide: v.FinalPosition.SideToMove, finalCount: v.FinalPosition.NoProgressPlies,
	}
	if v.Outcome != nil {
		out.result, out.ending = v.Outcome.Result, v.Outcome.Reason
	}
	for _, p := range v.Positions {
		out.positions = append(out.positions, p.Text)
	}
	return out
}

func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// refSameMove: a legal ply as the service records it (full notation) is
// the move as given, or, for a capture given in the short form or by an
// equivalent path, has its origin and last landing square.
func refSameMove(given, full string) bool {
	if given == full {
		return true
	}
	return strings.Contains(given, "x") && strings.Contains(full, "x") && len(given) >= 5 && len(full) >= 5 &&
		given[:2] == full[:2] && given[len(given)-2:] == full[len(full)-2:]
}

// check compares a verdict with the reference; path names where it came
// from. It returns false if anything differed.
func (c *refCase) check(t *testing.T, path string, v refVerdict) bool {
	t.Helper()
	e := c.g.Expected
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if v.valid != e.Valid || v.firstIllegalPly != e.FirstIllegalPly || v.ply != e.Ply {
		fail("valid %v, first illegal ply %d, ply %d; want %v, %d, %d", v.valid, v.firstIllegalPly, v.ply, e.Valid, e.FirstIllegalPly, e.Ply)
	}
	switch {
	case e.Outcome == nil && (v.result != "" || v.endPly != nil):
		fail("outcome %s %s at ply %v; want the game to go on", v.result, v.ending, derefOr(v.endPly))
	case e.Outcome != nil && (v.result != e.Outcome.Result || v.ending != e.Outcome.Reason || v.endPly == nil || *v.endPly != *e.EndPly):
		fail("outcome %q %q at ply %v; want %s %s at %d", v.result, v.ending, derefOr(v.endPly), e.Outcome.Result, e.Outcome.Reason, *e.EndPly)
	}
	if v.final != e.FinalPosition {
		fail("final position %s; want %s", v.final, e.FinalPosition)
	}
	if stm, _ := refBoard(t, e.FinalPosition); v.finalSide != map[string]string{"R": "SIDE_RED", "B": "SIDE_BLACK"}[stm] ||
		v.finalCount != refPlyCount(t, e.FinalPosition) {
		fail("final position's structured form: side %s, no-progress %d; the text says %s", v.finalSide, v.finalCount, e.FinalPosition)
	}
	if len(v.moves) != v.ply {
		fail("%d moves for ply %d", len(v.moves), v.ply)
	}
	for i := 0; i < min(len(v.moves), len(c.g.Moves)); i++ {
		if !refSameMove(c.g.Moves[i], v.moves[i]) {
			fail("ply %d: %s recorded for the given %s", i+1, v.moves[i], c.g.Moves[i])
		}
	}
	if v.positions != nil && (len(v.positions) != v.ply || (v.ply > 0 && v.positions[v.ply-1] != e.FinalPosition)) {
		fail("%d positions for %d plies, last %v; want the last to be %s", len(v.positions), v.ply, v.positions[max(0, len(v.positions)-1):], e.FinalPosition)
	}
	wantCause := c.cause
	if v.illegalMove != c.move || v.reason != refReasons[c.kind] {
		fail("refused %q with %q; want %q with %s (%s)", v.illegalMove, v.reason, c.move, refReasons[c.kind], refKindNames[c.kind])
	}
	switch c.kind {
	case refIllegal:
		if wantCause == "" && !slices.Contains(refOtherCauses, v.cause) {
			fail("cause %q; want one of %v", v.cause, refOtherCauses)
		}
		if wantCause != "" && v.cause != wantCause {
			fail("cause %q; want %s", v.cause, wantCause)
		}
		if v.metadata["move"] != c.move || v.metadata["cause"] != v.cause {
			fail("metadata %v; want move %q and the cause", v.metadata, c.move)
		}
	case refAmbiguous:
		got := strings.Split(v.metadata["matching_moves"], ",")
		sort.Strings(got)
		if !slices.Equal(got, c.match) || v.cause != "" {
			fail("matching moves %v, cause %q; want %v and no cause", got, v.cause, c.match)
		}
	case refGameOver:
		if v.metadata["result"] != e.Outcome.Result || v.metadata["reason"] != e.Outcome.Reason || v.cause != "" {
			fail("metadata %v, cause %q; want result %s, reason %s", v.metadata, v.cause, e.Outcome.Result, e.Outcome.Reason)
		}
	default:
		if v.cause != "" {
			fail("cause %q; want none", v.cause)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s %s (%s, variant %s, moves %d): %s", path, c.g.ID, refKindNames[c.kind], c.g.Variant, len(c.g.Moves), strings.Join(bad, "; "))
		return false
	}
	return true
}

func derefOr(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}

// refTally counts the games by ending and by refusal, for the log.
func refTally(cases []*refCase) string {
	endings := map[string]int{}
	kinds := map[string]int{}
	decided, theirs := 0, 0
	for _, c := range cases {
		e := c.g.Expected
		if e.Outcome != nil {
			endings[strings.TrimPrefix(e.Outcome.Reason, "OUTCOME_REASON_")]++
			if *e.EndPly == 0 {
				decided++
			}
		} else {
			endings["none"]++
		}
		if !e.Valid {
			kinds[refKindNames[c.kind]]++
			if c.theirs {
				theirs++
			}
		}
	}
	invalid := 0
	for _, n := range kinds {
		invalid += n
	}
	return fmt.Sprintf("%d games: endings %v (%d decided at the start); %d invalid: %v (%d of them a move of the other side's piece)",
		len(cases), endings, decided, invalid, kinds, theirs)
}

// refGameServiceResult is what the GameService path saw of one game.
type refGameServiceResult struct {
	moves     []string // recorded notations
	positions []string // after each ply
	cause     string   // of the refusal, if any
}

// refPlayGame plays one reference game through GameService and checks it.
func refPlayGame(t *testing.T, ctx context.Context, s *svServer, c *refCase) *refGameServiceResult {
	t.Helper()
	e := c.g.Expected
	res := &refGameServiceResult{}
	cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: c.variant}})
	if err != nil {
		t.Errorf("GameService %s: CreateGame: %v", c.g.ID, err)
		return nil
	}
	game := cr.GetGame()
	name := game.GetName()
	tokens := map[damonev1.Side]string{damonev1.Side_SIDE_RED: cr.GetRedToken(), damonev1.Side_SIDE_BLACK: cr.GetBlackToken()}
	decided := e.EndPly != nil && *e.EndPly == 0
	if got := game.GetStatus() == damonev1.GameStatus_GAME_STATUS_FINISHED; got != decided || game.GetPly() != 0 {
		t.Errorf("GameService %s: created with status %v at ply %d; want finished=%v at ply 0 (RULES.md: a decided start is over at ply 0)",
			c.g.ID, game.GetStatus(), game.GetPly(), decided)
	}
	if decided && (game.GetOutcome().GetResult().String() != e.Outcome.Result || game.GetOutcome().GetReason().String() != e.Outcome.Reason) {
		t.Errorf("GameService %s: decided start created with outcome %v; want %s %s", c.g.ID, game.GetOutcome(), e.Outcome.Result, e.Outcome.Reason)
	}
	refusedAt := 0
	for i, mv := range c.g.Moves {
		// The token of the side to move, whoever's piece the move names:
		// a move of the other side's piece is then judged as a move
		// (ILLEGAL_MOVE, cause OPPONENT_PIECE), as the reference counts
		// it, not refused as NOT_YOUR_TURN.
		side := game.GetPosition().GetSideToMove()
		mr, err := s.games.MakeMove(svAuth(ctx, tokens[side]), &damonev1.MakeMoveRequest{Name: name, Move: mv})
		if err != nil {
			refusedAt = i + 1
			res.cause = refCheckRefusal(t, c, err)
			break
		}
		if !refSameMove(mv, mr.GetMove().GetNotation()) || mr.GetGame().GetPly() != int32(i+1) {
			t.Errorf("GameService %s: ply %d: played %s to ply %d for the given %s", c.g.ID, i+1, mr.GetMove().GetNotation(), mr.GetGame().GetPly(), mv)
		}
		game = mr.GetGame()
		res.moves = append(res.moves, mr.GetMove().GetNotation())
		res.positions = append(res.positions, game.GetPosition().GetText())
	}
	if refusedAt != e.FirstIllegalPly {
		t.Errorf("GameService %s: first refused move at ply %d; want %d (%s)", c.g.ID, refusedAt, e.FirstIllegalPly, refKindNames[c.kind])
	}
	final, err := s.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
	if err != nil {
		t.Errorf("GameService %s: GetGame: %v", c.g.ID, err)
		return nil
	}
	var bad []string
	if int(final.GetPly()) != e.Ply || len(final.GetMoves()) != e.Ply {
		bad = append(bad, fmt.Sprintf("ply %d with %d moves; want %d", final.GetPly(), len(final.GetMoves()), e.Ply))
	}
	if final.GetPosition().GetText() != e.FinalPosition {
		bad = append(bad, fmt.Sprintf("position %s; want %s", final.GetPosition().GetText(), e.FinalPosition))
	}
	over := final.GetStatus() == damonev1.GameStatus_GAME_STATUS_FINISHED
	switch {
	case e.Outcome == nil && (over || final.GetOutcome() != nil):
		bad = append(bad, fmt.Sprintf("status %v, outcome %v; want in progress", final.GetStatus(), final.GetOutcome()))
	case e.Outcome != nil && (!over || final.GetOutcome().GetResult().String() != e.Outcome.Result ||
		final.GetOutcome().GetReason().String() != e.Outcome.Reason):
		bad = append(bad, fmt.Sprintf("status %v, outcome %v; want finished, %s %s", final.GetStatus(), final.GetOutcome(), e.Outcome.Result, e.Outcome.Reason))
	}
	if len(bad) > 0 {
		t.Errorf("GameService %s: %s", c.g.ID, strings.Join(bad, "; "))
	}
	return res
}

// refCheckRefusal checks MakeMove's refusal of the first illegal move and
// returns its cause. MakeMove checks INVALID_ARGUMENT before GAME_OVER
// (docs/api.md, error model), so malformed notation after the end is
// INVALID_ARGUMENT there.
func refCheckRefusal(t *testing.T, c *refCase, err error) string {
	t.Helper()
	st := status.Convert(err)
	var info *errdetails.ErrorInfo
	var fields []string
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
		}
	}
	if c.kind == refNone {
		t.Errorf("GameService %s: a move of a valid game refused: %v", c.g.ID, err)
		return ""
	}
	// MakeMove's checks come in the documented order (docs/api.md, error
	// model): INVALID_ARGUMENT, then (the token being one of the game's)
	// FAILED_PRECONDITION: GAME_OVER, NOT_YOUR_TURN (never here: the token
	// is the side to move's), then the move. The token alone decides the
	// side (WRONG_TOKEN is only for a token that is neither of the game's),
	// so a move of the other side's piece is judged as a move: ILLEGAL_MOVE
	// with cause OPPONENT_PIECE, as ValidateGame says.
	wantCode, wantReason := codes.FailedPrecondition, refReasons[c.kind]
	if c.kind == refMalformed || (c.kind == refGameOver && !refWellFormed(c.move)) {
		wantCode, wantReason = codes.InvalidArgument, "INVALID_REQUEST"
	}
	if st.Code() != wantCode || info == nil || info.GetReason() != wantReason || info.GetDomain() != "damone.v1" {
		t.Errorf("GameService %s: %q refused with %v %v (%s); want %v %s (%s)", c.g.ID, c.move, st.Code(), info, st.Message(), wantCode, wantReason, refKindNames[c.kind])
		return ""
	}
	md := info.GetMetadata()
	switch {
	case wantCode == codes.InvalidArgument:
		if !slices.Equal(fields, []string{"move"}) {
			t.Errorf("GameService %s: %q: field violations %v; want [move]", c.g.ID, c.move, fields)
		}
	case c.kind == refGameOver:
		if md["result"] != c.g.Expected.Outcome.Result || md["reason"] != c.g.Expected.Outcome.Reason {
			t.Errorf("GameService %s: GAME_OVER metadata %v; want %s %s", c.g.ID, md, c.g.Expected.Outcome.Result, c.g.Expected.Outcome.Reason)
		}
	case c.kind == refAmbiguous:
		got := strings.Split(md["matching_moves"], ",")
		sort.Strings(got)
		if md["move"] != c.move || !slices.Equal(got, c.match) {
			t.Errorf("GameService %s: AMBIGUOUS_MOVE metadata %v; want move %s, matching %v", c.g.ID, md, c.move, c.match)
		}
	case c.kind == refIllegal:
		if md["move"] != c.move || (c.cause != "" && md["cause"] != c.cause) || (c.cause == "" && !slices.Contains(refOtherCauses, md["cause"])) {
			t.Errorf("GameService %s: ILLEGAL_MOVE metadata %v; want move %s, cause %s", c.g.ID, md, c.move, cmpOr(c.cause, "one of "+strings.Join(refOtherCauses, ",")))
		}
	}
	return md["cause"]
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// refRunGameService plays every case on s, workers at a time, and returns
// what it saw, by game id.
func refRunGameService(t *testing.T, s *svServer, cases []*refCase, workers int) map[string]*refGameServiceResult {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := make(map[string]*refGameServiceResult, len(cases))
	var mu sync.Mutex
	next := make(chan *refCase)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				r := refPlayGame(t, ctx, s, c)
				mu.Lock()
				out[c.g.ID] = r
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		next <- c
	}
	close(next)
	wg.Wait()
	return out
}

// refCompareWithGameService: the validation paths record the same plies,
// positions and refusal cause as the games the GameService played.
func refCompareWithGameService(t *testing.T, path string, c *refCase, v refVerdict, gs map[string]*refGameServiceResult) {
	t.Helper()
	r := gs[c.g.ID]
	if r == nil {
		return
	}
	if !slices.Equal(v.moves, r.moves) {
		t.Errorf("%s %s: moves %v; GameService recorded %v", path, c.g.ID, v.moves, r.moves)
	}
	if v.positions != nil && !slices.Equal(v.positions, r.positions) {
		t.Errorf("%s %s: positions %v; GameService had %v", path, c.g.ID, v.positions, r.positions)
	}
	if c.kind == refIllegal && v.cause != r.cause {
		t.Errorf("%s %s: cause %q; MakeMove gave %q", path, c.g.ID, v.cause, r.cause)
	}
}

func TestRefGamesEveryPath(t *testing.T) {
	svSkip(t)
	cases := loadRefCases(t)
	t.Logf("reference: %s", refTally(cases))

	// GameService: every game on the memory store, and every 10th game and
	// every decided start on the embedded store too. All 598 games on the
	// embedded store took 44-54 s on a 2-core machine (a sync to disk per
	// move), too long for one test; on the memory store about 8 s, the
	// embedded sample about 4 s.
	s := svStart(t)
	var gs map[string]*refGameServiceResult
	t.Run("GameService/memory", func(t *testing.T) {
		start := time.Now()
		gs = refRunGameService(t, s, cases, 2)
		t.Logf("%d games played through GameService (memory store) in %v", len(cases), time.Since(start).Round(time.Millisecond))
	})
	t.Run("GameService/embedded", func(t *testing.T) {
		se := svStart(t, "--store", "embedded", "--data-dir", t.TempDir())
		var sample []*refCase
		for i, c := range cases {
			if e := c.g.Expected; i%10 == 0 || e.EndPly != nil && *e.EndPly == 0 {
				sample = append(sample, c)
			}
		}
		start := time.Now()
		refRunGameService(t, se, sample, 4)
		t.Logf("%d games (every 10th, every decided start) played through GameService (embedded store) in %v; %s",
			len(sample), time.Since(start).Round(time.Millisecond), refTally(sample))
	})

	t.Run("ValidateGame/gRPC", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, c := range cases {
			resp, err := s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Variant: c.variant, Moves: c.g.Moves, IncludePositions: true})
			if err != nil {
				t.Errorf("ValidateGame %s: %v", c.g.ID, err)
				continue
			}
			v := verdictFromProto(resp)
			c.check(t, "ValidateGame/gRPC", v)
			refCompareWithGameService(t, "ValidateGame/gRPC", c, v, gs)
		}
	})
	t.Run("ValidateGame/REST", func(t *testing.T) {
		for _, c := range cases {
			body, _ := json.Marshal(map[string]any{"variant": c.g.Variant, "moves": c.g.Moves})
			resp, err := http.Post(s.url("/v1/rules:validateGame"), "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var rv refRESTVerdict
			if resp.StatusCode != 200 {
				t.Errorf("POST /v1/rules:validateGame %s: %d %s", c.g.ID, resp.StatusCode, b)
				continue
			}
			if err := decodeStrict(b, &rv); err != nil {
				t.Errorf("POST /v1/rules:validateGame %s: %v in %s", c.g.ID, err, b)
				continue
			}
			v := rv.verdict()
			c.check(t, "ValidateGame/REST", v)
			refCompareWithGameService(t, "ValidateGame/REST", c, v, gs)
		}
	})
	t.Run("ValidateGames/gRPC", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		stream, err := s.rules.ValidateGames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sendErr := make(chan error, 1)
		go func() {
			for _, c := range cases {
				if err := stream.Send(&damonev1.ValidateGamesRequest{Id: c.g.ID,
					Game: &damonev1.ValidateGameRequest{Variant: c.variant, Moves: c.g.Moves}}); err != nil {
					sendErr <- err
					return
				}
			}
			sendErr <- stream.CloseSend()
		}()
		for i := 0; ; i++ {
			resp, err := stream.Recv()
			if err == io.EOF {
				if i != len(cases) {
					t.Errorf("stream ended after %d answers; want %d", i, len(cases))
				}
				break
			}
			if err != nil {
				t.Fatalf("stream failed after %d answers: %v", i, err)
			}
			if i >= len(cases) {
				t.Fatalf("answer %d (id %q) beyond the %d requests", i+1, resp.GetId(), len(cases))
			}
			c := cases[i]
			if resp.GetId() != c.g.ID {
				t.Fatalf("answer %d has id %q; want %q (answers come in request order)", i+1, resp.GetId(), c.g.ID)
			}
			if resp.GetResult() == nil {
				t.Errorf("ValidateGames %s: no verdict: %v", c.g.ID, resp.GetError())
				continue
			}
			v := verdictFromProto(resp.GetResult())
			c.check(t, "ValidateGames/gRPC", v)
			refCompareWithGameService(t, "ValidateGames/gRPC", c, v, gs)
		}
		if err := <-sendErr; err != nil {
			t.Errorf("sending: %v", err)
		}
	})
	t.Run("ValidateGames/REST", func(t *testing.T) {
		var body bytes.Buffer
		for _, c := range cases {
			line, _ := json.Marshal(map[string]any{"id": c.g.ID, "game": map[string]any{"variant": c.g.Variant, "moves": c.g.Moves}})
			body.Write(line)
			body.WriteByte('\n')
		}
		resp, err := http.Post(s.url("/v1/rules:validateGames"), "application/x-ndjson", &body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST /v1/rules:validateGames: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		i := 0
		for ; sc.Scan(); i++ {
			var line struct {
				Result *struct {
					ID     string          `json:"id"`
					Result *refRESTVerdict `json:"result"`
					Error  json.RawMessage `json:"error"`
				} `json:"result"`
				Error json.RawMessage `json:"error"`
			}
			if err := decodeStrict(sc.Bytes(), &line); err != nil {
				t.Fatalf("line %d: %v in %s", i+1, err, sc.Bytes())
			}
			if line.Result == nil {
				t.Fatalf("line %d is not a result: %s", i+1, sc.Bytes())
			}
			if i >= len(cases) || line.Result.ID != cases[i].g.ID {
				t.Fatalf("line %d has id %q; want the %d ids in request order", i+1, line.Result.ID, len(cases))
			}
			c := cases[i]
			if line.Result.Result == nil {
				t.Errorf("ValidateGames/REST %s: no verdict: %s", c.g.ID, line.Result.Error)
				continue
			}
			v := line.Result.Result.verdict()
			c.check(t, "ValidateGames/REST", v)
			refCompareWithGameService(t, "ValidateGames/REST", c, v, gs)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if i != len(cases) {
			t.Errorf("%d lines; want %d", i, len(cases))
		}
	})
}
