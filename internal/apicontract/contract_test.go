package apicontract

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// The JSON options of the contract: proto field names (snake_case), as the
// REST gateway is served.
var (
	marshal   = protojson.MarshalOptions{UseProtoNames: true}
	unmarshal = protojson.UnmarshalOptions{}
)

const (
	httpRulesFile = "../../proto/damone/v1/damone_http.yaml"
	openAPIFile   = "../../gen/openapiv2/damone.swagger.json"
	apiDocFile    = "../../docs/api.md"
)

func ts(t *testing.T, s string) *timestamppb.Timestamp {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return timestamppb.New(tm)
}

// A small endgame: Black to move, Red Damone h1, Black Damone a8 and
// Pedine d7, 5 plies without progress.
func endgame() *damonev1.Position {
	return &damonev1.Position{
		SideToMove: damonev1.Side_SIDE_BLACK,
		Pieces: []*damonev1.Piece{
			{Square: "h1", Side: damonev1.Side_SIDE_RED, Rank: damonev1.Rank_RANK_DAMONE},
			{Square: "d7", Side: damonev1.Side_SIDE_BLACK, Rank: damonev1.Rank_RANK_PEDINE},
			{Square: "a8", Side: damonev1.Side_SIDE_BLACK, Rank: damonev1.Rank_RANK_DAMONE},
		},
		NoProgressPlies: 5,
		Text:            "B:RMh1:BMa8,Pd7:5",
	}
}

const endgameJSON = `{"side_to_move":"SIDE_BLACK","pieces":[` +
	`{"square":"h1","side":"SIDE_RED","rank":"RANK_DAMONE"},` +
	`{"square":"d7","side":"SIDE_BLACK","rank":"RANK_PEDINE"},` +
	`{"square":"a8","side":"SIDE_BLACK","rank":"RANK_DAMONE"}],` +
	`"no_progress_plies":5,"text":"B:RMh1:BMa8,Pd7:5"}`

func captureMove() *damonev1.Move {
	return &damonev1.Move{
		Notation:       "f3xd5xb7",
		Side:           damonev1.Side_SIDE_RED,
		Rank:           damonev1.Rank_RANK_PEDINE,
		Origin:         "f3",
		LandingSquares: []string{"d5", "b7"},
		CapturedPieces: []*damonev1.Piece{
			{Square: "e4", Side: damonev1.Side_SIDE_BLACK, Rank: damonev1.Rank_RANK_PEDINE},
			{Square: "c6", Side: damonev1.Side_SIDE_BLACK, Rank: damonev1.Rank_RANK_PEDINE},
		},
	}
}

const captureMoveJSON = `{"notation":"f3xd5xb7","side":"SIDE_RED","rank":"RANK_PEDINE",` +
	`"origin":"f3","landing_squares":["d5","b7"],"captured_pieces":[` +
	`{"square":"e4","side":"SIDE_BLACK","rank":"RANK_PEDINE"},` +
	`{"square":"c6","side":"SIDE_BLACK","rank":"RANK_PEDINE"}]}`

func stepMove() *damonev1.Move {
	return &damonev1.Move{
		Notation:       "a8-b7",
		Side:           damonev1.Side_SIDE_BLACK,
		Rank:           damonev1.Rank_RANK_DAMONE,
		Origin:         "a8",
		LandingSquares: []string{"b7"},
	}
}

const stepMoveJSON = `{"notation":"a8-b7","side":"SIDE_BLACK","rank":"RANK_DAMONE",` +
	`"origin":"a8","landing_squares":["b7"]}`

func resolvedVariant() *damonev1.Variant {
	return &damonev1.Variant{
		Start:           &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_STANDARD},
		WinCondition:    damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_PIECES,
		FirstPlayer:     damonev1.Side_SIDE_RED,
		RepetitionDraw:  proto.Bool(true),
		NoProgressLimit: proto.Int32(80),
	}
}

const resolvedVariantJSON = `{"setup":"SETUP_STANDARD","win_condition":"WIN_CONDITION_CAPTURE_ALL_PIECES",` +
	`"first_player":"SIDE_RED","repetition_draw":true,"no_progress_limit":80}`

type contractCase struct {
	name string
	msg  proto.Message
	json string
}

func contractCases(t *testing.T) []contractCase {
	game := &damonev1.Game{
		Name:              "games/k3v9q2m7x1",
		Variant:           resolvedVariant(),
		InitialPosition:   endgame(),
		Position:          &damonev1.Position{SideToMove: damonev1.Side_SIDE_RED, Text: "R:RMh1:BMb7,Pd7:6"},
		Moves:             []*damonev1.Move{stepMove()},
		Status:            damonev1.GameStatus_GAME_STATUS_IN_PROGRESS,
		Ply:               1,
		DrawOffer:         damonev1.Side_SIDE_RED,
		LastEventSequence: 3,
		Etag:              "3-9c2e",
		CreateTime:        ts(t, "2026-11-29T18:30:00Z"),
		UpdateTime:        ts(t, "2026-11-29T18:30:05.120Z"),
	}
	gameJSON := `{"name":"games/k3v9q2m7x1","variant":` + resolvedVariantJSON +
		`,"initial_position":` + endgameJSON +
		`,"position":{"side_to_move":"SIDE_RED","text":"R:RMh1:BMb7,Pd7:6"}` +
		`,"moves":[` + stepMoveJSON + `],"status":"GAME_STATUS_IN_PROGRESS","ply":1,` +
		`"draw_offer":"SIDE_RED","last_event_sequence":"3","etag":"3-9c2e",` +
		`"create_time":"2026-11-29T18:30:00Z","update_time":"2026-11-29T18:30:05.120Z"}`

	return []contractCase{
		// Board primitives.
		{"piece", &damonev1.Piece{Square: "h1", Side: damonev1.Side_SIDE_RED, Rank: damonev1.Rank_RANK_DAMONE},
			`{"square":"h1","side":"SIDE_RED","rank":"RANK_DAMONE"}`},
		{"position structured and text", endgame(), endgameJSON},
		{"position text only", &damonev1.Position{
			Text: "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"},
			`{"text":"R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"}`},
		{"move step", stepMove(), stepMoveJSON},
		{"move capture", captureMove(), captureMoveJSON},
		{"move with promotion", &damonev1.Move{
			Notation: "b7-a8", Side: damonev1.Side_SIDE_RED, Rank: damonev1.Rank_RANK_DAMA,
			Origin: "b7", LandingSquares: []string{"a8"}, Promotion: damonev1.Rank_RANK_DAMONE},
			`{"notation":"b7-a8","side":"SIDE_RED","rank":"RANK_DAMA","origin":"b7",` +
				`"landing_squares":["a8"],"promotion":"RANK_DAMONE"}`},

		// Variants: explicit presence tells "unset" (default) from 0/false (off).
		{"variant empty is the standard game", &damonev1.Variant{}, `{}`},
		{"variant resolved", resolvedVariant(), resolvedVariantJSON},
		{"variant rules off", &damonev1.Variant{
			Start:           &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_NO_DAMONE},
			FirstPlayer:     damonev1.Side_SIDE_BLACK,
			RepetitionDraw:  proto.Bool(false),
			NoProgressLimit: proto.Int32(0)},
			`{"setup":"SETUP_NO_DAMONE","first_player":"SIDE_BLACK","repetition_draw":false,"no_progress_limit":0}`},
		{"variant custom start", &damonev1.Variant{
			Start:        &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "B:RMh1:BMa8,Pd7:5"}},
			WinCondition: damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES},
			`{"start_position":{"text":"B:RMh1:BMa8,Pd7:5"},"win_condition":"WIN_CONDITION_CAPTURE_ALL_DAMONES"}`},

		// Outcomes.
		{"outcome win", &damonev1.Outcome{Result: damonev1.OutcomeResult_OUTCOME_RESULT_BLACK_WINS,
			Reason: damonev1.OutcomeReason_OUTCOME_REASON_STALEMATE},
			`{"result":"OUTCOME_RESULT_BLACK_WINS","reason":"OUTCOME_REASON_STALEMATE"}`},
		{"outcome draw", &damonev1.Outcome{Result: damonev1.OutcomeResult_OUTCOME_RESULT_DRAW,
			Reason: damonev1.OutcomeReason_OUTCOME_REASON_NO_PROGRESS},
			`{"result":"OUTCOME_RESULT_DRAW","reason":"OUTCOME_REASON_NO_PROGRESS"}`},

		// The game resource.
		{"game", game, gameJSON},

		// Game events, one per payload.
		{"event game created", &damonev1.GameEvent{
			Game: "games/k3v9q2m7x1", Sequence: 1, EventTime: ts(t, "2026-11-29T18:30:00Z"),
			Position: &damonev1.Position{Text: "B:RMh1:BMa8,Pd7:5"},
			Event: &damonev1.GameEvent_GameCreated_{GameCreated: &damonev1.GameEvent_GameCreated{
				Variant: resolvedVariant()}}},
			`{"game":"games/k3v9q2m7x1","sequence":"1","event_time":"2026-11-29T18:30:00Z",` +
				`"position":{"text":"B:RMh1:BMa8,Pd7:5"},"game_created":{"variant":` + resolvedVariantJSON + `}}`},
		{"event move played", &damonev1.GameEvent{
			Game: "games/k3v9q2m7x1", Sequence: 2, EventTime: ts(t, "2026-11-29T18:30:05.120Z"), Ply: 1,
			Position: &damonev1.Position{Text: "R:RMh1:BMb7,Pd7:6"},
			Event:    &damonev1.GameEvent_MovePlayed_{MovePlayed: &damonev1.GameEvent_MovePlayed{Move: stepMove()}}},
			`{"game":"games/k3v9q2m7x1","sequence":"2","event_time":"2026-11-29T18:30:05.120Z","ply":1,` +
				`"position":{"text":"R:RMh1:BMb7,Pd7:6"},"move_played":{"move":` + stepMoveJSON + `}}`},
		{"event draw offered", &damonev1.GameEvent{
			Game: "games/k3v9q2m7x1", Sequence: 3, Ply: 1,
			Event: &damonev1.GameEvent_DrawOffered_{DrawOffered: &damonev1.GameEvent_DrawOffered{
				Side: damonev1.Side_SIDE_RED}}},
			`{"game":"games/k3v9q2m7x1","sequence":"3","ply":1,"draw_offered":{"side":"SIDE_RED"}}`},
		{"event draw declined by move", &damonev1.GameEvent{
			Game: "games/k3v9q2m7x1", Sequence: 4, Ply: 1,
			Event: &damonev1.GameEvent_DrawDeclined_{DrawDeclined: &damonev1.GameEvent_DrawDeclined{
				Side: damonev1.Side_SIDE_BLACK, ByMove: true}}},
			`{"game":"games/k3v9q2m7x1","sequence":"4","ply":1,"draw_declined":{"side":"SIDE_BLACK","by_move":true}}`},
		{"event game ended", &damonev1.GameEvent{
			Game: "games/k3v9q2m7x1", Sequence: 5, Ply: 1,
			Event: &damonev1.GameEvent_GameEnded_{GameEnded: &damonev1.GameEvent_GameEnded{
				Outcome: &damonev1.Outcome{Result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS,
					Reason: damonev1.OutcomeReason_OUTCOME_REASON_RESIGNATION}}}},
			`{"game":"games/k3v9q2m7x1","sequence":"5","ply":1,"game_ended":{"outcome":` +
				`{"result":"OUTCOME_RESULT_RED_WINS","reason":"OUTCOME_REASON_RESIGNATION"}}}`},

		// RulesService requests and responses.
		{"get initial position request", &damonev1.GetInitialPositionRequest{
			Variant: &damonev1.Variant{Start: &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_NO_DAMONE}}},
			`{"variant":{"setup":"SETUP_NO_DAMONE"}}`},
		{"list legal moves response over", &damonev1.ListLegalMovesResponse{
			Outcome: &damonev1.Outcome{Result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS,
				Reason: damonev1.OutcomeReason_OUTCOME_REASON_ALL_PIECES_CAPTURED},
			Position: &damonev1.Position{SideToMove: damonev1.Side_SIDE_BLACK, Text: "B:RMh1:B:7"}},
			`{"outcome":{"result":"OUTCOME_RESULT_RED_WINS","reason":"OUTCOME_REASON_ALL_PIECES_CAPTURED"},` +
				`"position":{"side_to_move":"SIDE_BLACK","text":"B:RMh1:B:7"}}`},
		{"apply move request", &damonev1.ApplyMoveRequest{
			Position: &damonev1.Position{Text: "B:RMh1:BMa8,Pd7:5"}, Move: "a8-b7"},
			`{"position":{"text":"B:RMh1:BMa8,Pd7:5"},"move":"a8-b7"}`},
		{"apply move response", &damonev1.ApplyMoveResponse{Move: captureMove()},
			`{"move":` + captureMoveJSON + `}`},
		{"perft request", &damonev1.PerftRequest{Position: &damonev1.Position{Text: "B:RMh1:BMa8,Pd7:5"},
			Depth: 3, Divide: true},
			`{"position":{"text":"B:RMh1:BMa8,Pd7:5"},"depth":3,"divide":true}`},
		{"perft response", &damonev1.PerftResponse{Nodes: 1764, Divisions: []*damonev1.PerftResponse_Division{
			{Move: "a8-b7", Nodes: 1000}, {Move: "d7-c6", Nodes: 764}}},
			`{"nodes":"1764","divisions":[{"move":"a8-b7","nodes":"1000"},{"move":"d7-c6","nodes":"764"}]}`},

		// RulesService.ValidateGame and ValidateGames.
		{"validate game request with moves", &damonev1.ValidateGameRequest{
			Variant: &damonev1.Variant{NoProgressLimit: proto.Int32(8)}, Moves: []string{"e2-d3", "b5-c4", "d3xb5"},
			IncludePositions: true},
			`{"variant":{"no_progress_limit":8},"moves":["e2-d3","b5-c4","d3xb5"],"include_positions":true}`},
		// pdn has explicit presence: an empty PDN is given, unlike no PDN.
		{"validate game request with pdn", &damonev1.ValidateGameRequest{Pdn: proto.String("")}, `{"pdn":""}`},
		{"validate game response, over at the start", &damonev1.ValidateGameResponse{
			Valid: true,
			Outcome: &damonev1.Outcome{Result: damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS,
				Reason: damonev1.OutcomeReason_OUTCOME_REASON_ALL_PIECES_CAPTURED},
			EndPly:        proto.Int32(0),
			FinalPosition: &damonev1.Position{SideToMove: damonev1.Side_SIDE_BLACK, Text: "B:RMh1:B:0"}},
			`{"valid":true,"outcome":{"result":"OUTCOME_RESULT_RED_WINS","reason":"OUTCOME_REASON_ALL_PIECES_CAPTURED"},` +
				`"end_ply":0,"final_position":{"side_to_move":"SIDE_BLACK","text":"B:RMh1:B:0"}}`},
		{"validate game response, illegal move", &damonev1.ValidateGameResponse{
			FirstIllegalPly: 2, IllegalMove: "f3-e4", Reason: "ILLEGAL_MOVE", Cause: "CAPTURE_REQUIRED",
			Message:  `move "f3-e4": a capture is compulsory`,
			Metadata: map[string]string{"move": "f3-e4", "cause": "CAPTURE_REQUIRED", "legal_moves": "c4xa6xc8"},
			Moves:    []string{"e2-d3"}, Ply: 1,
			FinalPosition: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"},
			Positions:     []*damonev1.Position{{Text: "R:RPc4:BPb5,Pb7:0"}}},
			`{"first_illegal_ply":2,"illegal_move":"f3-e4","reason":"ILLEGAL_MOVE","cause":"CAPTURE_REQUIRED",` +
				`"message":"move \"f3-e4\": a capture is compulsory",` +
				`"metadata":{"move":"f3-e4","cause":"CAPTURE_REQUIRED","legal_moves":"c4xa6xc8"},` +
				`"moves":["e2-d3"],"ply":1,"final_position":{"text":"R:RPc4:BPb5,Pb7:0"},` +
				`"positions":[{"text":"R:RPc4:BPb5,Pb7:0"}]}`},
		{"validate games request", &damonev1.ValidateGamesRequest{Id: "g1",
			Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3", "f7-e6"}}},
			`{"id":"g1","game":{"moves":["e2-d3","f7-e6"]}}`},
		{"validate games response, verdict", &damonev1.ValidateGamesResponse{Id: "g1",
			Answer: &damonev1.ValidateGamesResponse_Result{Result: &damonev1.ValidateGameResponse{Valid: true, Ply: 2,
				Moves: []string{"e2-d3", "a4-b3"}}}},
			`{"id":"g1","result":{"valid":true,"moves":["e2-d3","a4-b3"],"ply":2}}`},
		{"validate games response, error", &damonev1.ValidateGamesResponse{Id: "g2",
			Answer: &damonev1.ValidateGamesResponse_Error{Error: &damonev1.ValidationError{
				Code: "RESOURCE_EXHAUSTED", Reason: "LIMIT_EXCEEDED", Message: "too many moves",
				Metadata: map[string]string{"limit": "game_plies", "maximum": "10000"}}}},
			`{"id":"g2","error":{"code":"RESOURCE_EXHAUSTED","reason":"LIMIT_EXCEEDED","message":"too many moves",` +
				`"metadata":{"limit":"game_plies","maximum":"10000"}}}`},
		{"validate games response, invalid request", &damonev1.ValidateGamesResponse{Id: "g3",
			Answer: &damonev1.ValidateGamesResponse_Error{Error: &damonev1.ValidationError{
				Code: "INVALID_ARGUMENT", Reason: "INVALID_REQUEST", Field: "game.variant.no_progress_limit",
				Message: "must be 0 (off) or more"}}},
			`{"id":"g3","error":{"code":"INVALID_ARGUMENT","reason":"INVALID_REQUEST",` +
				`"field":"game.variant.no_progress_limit","message":"must be 0 (off) or more"}}`},

		// GameService requests and responses.
		{"create game request", &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{
			NoProgressLimit: proto.Int32(0)}}},
			`{"game":{"variant":{"no_progress_limit":0}}}`},
		{"create game response", &damonev1.CreateGameResponse{Game: &damonev1.Game{Name: "games/k3v9q2m7x1"},
			RedToken: "r-token", BlackToken: "b-token"},
			`{"game":{"name":"games/k3v9q2m7x1"},"red_token":"r-token","black_token":"b-token"}`},
		{"list games request", &damonev1.ListGamesRequest{PageSize: 10, PageToken: "next",
			Status: damonev1.GameStatus_GAME_STATUS_FINISHED},
			`{"page_size":10,"page_token":"next","status":"GAME_STATUS_FINISHED"}`},
		{"list games response", &damonev1.ListGamesResponse{
			Games: []*damonev1.Game{{Name: "games/a1"}, {Name: "games/b2"}}, NextPageToken: "tok"},
			`{"games":[{"name":"games/a1"},{"name":"games/b2"}],"next_page_token":"tok"}`},
		{"make move request with ply", &damonev1.MakeMoveRequest{Name: "games/k3v9q2m7x1", Move: "f3xb7",
			Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0},
			RequestId:    "0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20"},
			`{"name":"games/k3v9q2m7x1","move":"f3xb7","expected_ply":0,` +
				`"request_id":"0b8f1c52-6a4e-4c1b-9d2e-7f3a5c9e1d20"}`},
		{"make move request with etag", &damonev1.MakeMoveRequest{Name: "games/k3v9q2m7x1", Move: "e2-d3",
			Precondition: &damonev1.MakeMoveRequest_Etag{Etag: "3-9c2e"}},
			`{"name":"games/k3v9q2m7x1","move":"e2-d3","etag":"3-9c2e"}`},
		{"make move response", &damonev1.MakeMoveResponse{Move: stepMove(),
			Game: &damonev1.Game{Name: "games/k3v9q2m7x1", Ply: 1}, EventSequence: 2},
			`{"move":` + stepMoveJSON + `,"game":{"name":"games/k3v9q2m7x1","ply":1},"event_sequence":"2"}`},
		{"answer draw offer request", &damonev1.AnswerDrawOfferRequest{Name: "games/k3v9q2m7x1", Accept: true},
			`{"name":"games/k3v9q2m7x1","accept":true}`},
		{"watch game request", &damonev1.WatchGameRequest{Name: "games/k3v9q2m7x1", SinceSequence: 7},
			`{"name":"games/k3v9q2m7x1","since_sequence":"7"}`},
		{"game with the engine as Black", &damonev1.Game{Name: "games/k3v9q2m7x1", EngineOpponent: &damonev1.EngineOpponent{
			Side: damonev1.Side_SIDE_BLACK, Strength: &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(1500 * time.Millisecond)}}},
			`{"name":"games/k3v9q2m7x1","engine_opponent":{"side":"SIDE_BLACK","move_time":"1.500s"}}`},
		{"analyze position request", &damonev1.AnalyzePositionRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"},
			Limit: &damonev1.AnalyzePositionRequest_Nodes{Nodes: 100000}, Lines: 2},
			`{"position":{"text":"R:RPc4:BPb5,Pb7:0"},"nodes":"100000","lines":2}`},
		{"analyze position response", &damonev1.AnalyzePositionResponse{Depth: 3, Nodes: 420, NodesPerSecond: 2100000,
			Elapsed: durationpb.New(200 * time.Microsecond), Lines: []*damonev1.AnalysisLine{
				{Score: &damonev1.Score{Value: &damonev1.Score_WinInPlies{WinInPlies: 1}}, Moves: []string{"c4xa6xc8"}},
				{Score: &damonev1.Score{Value: &damonev1.Score_Centipedines{Centipedines: -35}}, Moves: []string{"e2-d3", "b5-c4"}},
			}, Final: true, BestMove: stepMove()},
			`{"depth":3,"nodes":"420","nodes_per_second":"2100000","elapsed":"0.000200s","lines":[` +
				`{"score":{"win_in_plies":1},"moves":["c4xa6xc8"]},{"score":{"centipedines":-35},"moves":["e2-d3","b5-c4"]}],` +
				`"final":true,"best_move":` + stepMoveJSON + `}`},
	}
}

// jsonValue decodes JSON for a comparison that ignores whitespace (protojson
// adds some at random on purpose) but not names, values or types.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkKeys fails on any JSON object key that is not snake_case.
func checkKeys(t *testing.T, v any, path string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !snakeCase.MatchString(k) {
				t.Errorf("%s: JSON key %q is not snake_case", path, k)
			}
			checkKeys(t, e, path+"."+k)
		}
	case []any:
		for _, e := range v {
			checkKeys(t, e, path+"[]")
		}
	}
}

func TestJSONContract(t *testing.T) {
	for _, c := range contractCases(t) {
		t.Run(c.name, func(t *testing.T) {
			got, err := marshal.Marshal(c.msg)
			if err != nil {
				t.Fatal(err)
			}
			gotV, wantV := jsonValue(t, string(got)), jsonValue(t, c.json)
			if !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("JSON of %T:\n got %s\nwant %s", c.msg, got, c.json)
			}
			checkKeys(t, gotV, "$")

			// Round trip: the documented JSON decodes to the same message.
			back := c.msg.ProtoReflect().New().Interface()
			if err := unmarshal.Unmarshal([]byte(c.json), back); err != nil {
				t.Fatalf("decoding %s: %v", c.json, err)
			}
			if !proto.Equal(back, c.msg) {
				t.Errorf("round trip of %T changed it:\n got %v\nwant %v", c.msg, back, c.msg)
			}
		})
	}
}

// TestJSONAcceptsCamelCase: clients that send lowerCamelCase names (the
// protojson default) are understood too.
func TestJSONAcceptsCamelCase(t *testing.T) {
	var got damonev1.Variant
	in := `{"winCondition":"WIN_CONDITION_CAPTURE_ALL_DAMONES","noProgressLimit":0,"startPosition":{"text":"B:RMh1:BMa8,Pd7:5"}}`
	if err := unmarshal.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	if got.GetWinCondition() != damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES ||
		got.NoProgressLimit == nil || got.GetNoProgressLimit() != 0 ||
		got.GetStartPosition().GetText() != "B:RMh1:BMa8,Pd7:5" {
		t.Errorf("decoded %v", &got)
	}
}

// TestExplicitPresence: an unset no-progress limit or repetition rule (use
// the default) is not the same as 0 or false (rule off).
func TestExplicitPresence(t *testing.T) {
	var unset, off damonev1.Variant
	if err := unmarshal.Unmarshal([]byte(`{}`), &unset); err != nil {
		t.Fatal(err)
	}
	if err := unmarshal.Unmarshal([]byte(`{"no_progress_limit":0,"repetition_draw":false}`), &off); err != nil {
		t.Fatal(err)
	}
	if unset.NoProgressLimit != nil || unset.RepetitionDraw != nil {
		t.Errorf("unset fields are present: %v", &unset)
	}
	if off.NoProgressLimit == nil || off.RepetitionDraw == nil {
		t.Errorf("0/false fields are absent: %v", &off)
	}
	if proto.Equal(&unset, &off) {
		t.Error("unset and off variants are equal")
	}
}

// TestExplicitPresenceOfVerdictFields: a verdict's end_ply 0 (the start
// was already decided) is sent, unlike an unset one (the game goes on);
// an empty pdn is a given, empty PDN, unlike none.
func TestExplicitPresenceOfVerdictFields(t *testing.T) {
	decided, _ := marshal.Marshal(&damonev1.ValidateGameResponse{EndPly: proto.Int32(0)})
	goesOn, _ := marshal.Marshal(&damonev1.ValidateGameResponse{})
	if !reflect.DeepEqual(jsonValue(t, string(decided)), map[string]any{"end_ply": float64(0)}) ||
		!reflect.DeepEqual(jsonValue(t, string(goesOn)), map[string]any{}) {
		t.Errorf("end_ply 0 marshals to %s, unset to %s; want {\"end_ply\":0} and {}", decided, goesOn)
	}
	var empty, none damonev1.ValidateGameRequest
	if err := unmarshal.Unmarshal([]byte(`{"pdn":""}`), &empty); err != nil {
		t.Fatal(err)
	}
	if err := unmarshal.Unmarshal([]byte(`{"moves":[]}`), &none); err != nil {
		t.Fatal(err)
	}
	if empty.Pdn == nil || none.Pdn != nil {
		t.Errorf(`{"pdn":""} gives pdn %v, {"moves":[]} gives %v; want present and absent`, empty.Pdn, none.Pdn)
	}
}

// TestEnumZeroValues: every enum of the package has an _UNSPECIFIED zero
// value named after the enum, and the enum names in JSON are the value names.
func TestEnumZeroValues(t *testing.T) {
	fds := []protoreflect.FileDescriptor{
		damonev1.File_damone_v1_board_proto, damonev1.File_damone_v1_variant_proto,
		damonev1.File_damone_v1_outcome_proto, damonev1.File_damone_v1_game_proto,
		damonev1.File_damone_v1_error_reason_proto,
	}
	n := 0
	for _, fd := range fds {
		for i := range fd.Enums().Len() {
			e := fd.Enums().Get(i)
			zero := e.Values().ByNumber(0)
			if zero == nil || !strings.HasSuffix(string(zero.Name()), "_UNSPECIFIED") {
				t.Errorf("%s: zero value is %v, want *_UNSPECIFIED", e.FullName(), zero)
			}
			n++
		}
	}
	if n != 9 {
		t.Errorf("found %d enums, want 9 (Side, Rank, Setup, WinCondition, OutcomeResult, OutcomeReason, GameStatus, GameView, ErrorReason): update this test", n)
	}
}

// httpRule is one rule of damone_http.yaml.
type httpRule struct {
	Selector string `yaml:"selector"`
	Get      string `yaml:"get"`
	Post     string `yaml:"post"`
	Body     string `yaml:"body"`
}

func loadHTTPRules(t *testing.T) []httpRule {
	t.Helper()
	data, err := os.ReadFile(httpRulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Type string `yaml:"type"`
		HTTP struct {
			Rules []httpRule `yaml:"rules"`
		} `yaml:"http"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Type != "google.api.Service" || len(cfg.HTTP.Rules) == 0 {
		t.Fatalf("%s: not a google.api.Service with HTTP rules", httpRulesFile)
	}
	return cfg.HTTP.Rules
}

// openAPIPath turns an HTTP rule path into the path the OpenAPI document
// shows (protoc-gen-openapiv2 with expand_slashed_path_patterns).
func openAPIPath(t *testing.T, p string) string {
	t.Helper()
	p = strings.ReplaceAll(p, "{name=games/*}", "games/{game}")
	if strings.Contains(p, "=") {
		t.Fatalf("path %q has a pattern this test does not know: teach openAPIPath", p)
	}
	return p
}

// TestHTTPRulesCoverEveryMethod: every RPC has exactly one HTTP rule.
func TestHTTPRulesCoverEveryMethod(t *testing.T) {
	want := map[string]bool{}
	for _, fd := range []protoreflect.FileDescriptor{
		damonev1.File_damone_v1_rules_service_proto, damonev1.File_damone_v1_game_service_proto,
		damonev1.File_damone_v1_analysis_service_proto, damonev1.File_damone_v1_tablebase_service_proto,
	} {
		for i := range fd.Services().Len() {
			s := fd.Services().Get(i)
			for j := range s.Methods().Len() {
				want[string(s.Methods().Get(j).FullName())] = true
			}
		}
	}
	got := map[string]bool{}
	for _, r := range loadHTTPRules(t) {
		if got[r.Selector] {
			t.Errorf("%s has two HTTP rules", r.Selector)
		}
		got[r.Selector] = true
		if !want[r.Selector] {
			t.Errorf("HTTP rule for unknown method %s", r.Selector)
		}
		if (r.Get == "") == (r.Post == "") {
			t.Errorf("%s: want exactly one of get, post", r.Selector)
		}
	}
	for m := range want {
		if !got[m] {
			t.Errorf("method %s has no HTTP rule", m)
		}
	}
}

// TestOpenAPIListsEveryRoute: the generated OpenAPI document has exactly the
// routes of damone_http.yaml, each with the right operation, and the
// side-token security on the methods that need a token.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	data, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Swagger string `json:"swagger"`
		Paths   map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Security    []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" {
		t.Errorf("swagger = %q, want 2.0", doc.Swagger)
	}

	want := map[string]string{} // "METHOD path" -> operationId
	for _, r := range loadHTTPRules(t) {
		method, path := "get", r.Get
		if r.Post != "" {
			method, path = "post", r.Post
		}
		parts := strings.Split(r.Selector, ".")
		want[method+" "+openAPIPath(t, path)] = parts[len(parts)-2] + "_" + parts[len(parts)-1]
	}
	got := map[string]string{}
	needsToken := map[string]bool{
		"GameService_MakeMove": true, "GameService_Resign": true,
		"GameService_OfferDraw": true, "GameService_AnswerDrawOffer": true,
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			got[method+" "+path] = op.OperationID
			hasToken := len(op.Security) == 1 && op.Security[0]["SideToken"] != nil
			if hasToken != needsToken[op.OperationID] {
				t.Errorf("%s: security %v, want side token: %v", op.OperationID, op.Security, needsToken[op.OperationID])
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("OpenAPI routes differ from %s:\n got %v\nwant %v", httpRulesFile, sortedKeys(got), sortedKeys(want))
		for k, v := range want {
			if got[k] != v {
				t.Errorf("missing or wrong: %s -> %s (got %q)", k, v, got[k])
			}
		}
	}
	if len(want) != 18 {
		t.Errorf("%d routes, want 18 (6 RulesService + 9 GameService + 1 AnalysisService + 2 TablebaseService)", len(want))
	}
}

// TestErrorReasonsDocumented: every ErrorInfo reason is in docs/api.md.
func TestErrorReasonsDocumented(t *testing.T) {
	data, err := os.ReadFile(apiDocFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for i := range damonev1.ErrorReason(0).Descriptor().Values().Len() {
		v := damonev1.ErrorReason(0).Descriptor().Values().Get(i)
		if v.Number() == 0 {
			continue
		}
		reason := strings.TrimPrefix(string(v.Name()), "ERROR_REASON_")
		if !strings.Contains(doc, "`"+reason+"`") {
			t.Errorf("reason %s is not documented in docs/api.md", reason)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rpcDoc is one RPC's leading comment in a service proto.
type rpcDoc struct {
	service, method, comment string
}

var serviceProtos = []string{
	"../../proto/damone/v1/rules_service.proto",
	"../../proto/damone/v1/game_service.proto",
	"../../proto/damone/v1/analysis_service.proto",
}

// loadRPCDocs reads every RPC's comment from the service protos (the
// generated descriptors carry no comments).
func loadRPCDocs(t *testing.T) []rpcDoc {
	t.Helper()
	serviceRE := regexp.MustCompile(`^service (\w+) \{`)
	rpcRE := regexp.MustCompile(`^rpc (\w+)\(`)
	var out []rpcDoc
	for _, file := range serviceProtos {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var service string
		var comment []string
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "//"):
				comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "//")))
				continue
			case serviceRE.MatchString(line):
				service = serviceRE.FindStringSubmatch(line)[1]
			case rpcRE.MatchString(line):
				out = append(out, rpcDoc{service, rpcRE.FindStringSubmatch(line)[1], strings.Join(comment, "\n")})
			}
			comment = nil
		}
	}
	return out
}

// TestEveryRPCDocumentsErrorsAndRoute: every RPC's comment has an Errors
// paragraph whose codes and reasons exist (gRPC codes, ErrorReason), whose
// `limit` values are documented with LIMIT_EXCEEDED in error_reason.proto
// and docs/api.md, and an HTTP line giving the route of damone_http.yaml,
// which docs/api.md's table of REST routes lists too.
func TestEveryRPCDocumentsErrorsAndRoute(t *testing.T) {
	docs := loadRPCDocs(t)
	methods := 0
	for _, fd := range []protoreflect.FileDescriptor{damonev1.File_damone_v1_rules_service_proto,
		damonev1.File_damone_v1_game_service_proto, damonev1.File_damone_v1_analysis_service_proto} {
		for i := range fd.Services().Len() {
			methods += fd.Services().Get(i).Methods().Len()
		}
	}
	if len(docs) != methods {
		t.Fatalf("found %d rpc comments in the service protos, the descriptors have %d methods", len(docs), methods)
	}
	codes := map[string]bool{}
	for _, c := range []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
		"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
		"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"} {
		codes[c] = true
	}
	reasons := map[string]bool{}
	for i := range damonev1.ErrorReason(0).Descriptor().Values().Len() {
		reasons[strings.TrimPrefix(string(damonev1.ErrorReason(0).Descriptor().Values().Get(i).Name()), "ERROR_REASON_")] = true
	}
	reasonProto, err := os.ReadFile("../../proto/damone/v1/error_reason.proto")
	if err != nil {
		t.Fatal(err)
	}
	_, limitDoc, _ := strings.Cut(string(reasonProto), "RESOURCE_EXHAUSTED: a server limit was reached.")
	limitDoc, _, _ = strings.Cut(limitDoc, "ERROR_REASON_LIMIT_EXCEEDED")
	apiDoc, err := os.ReadFile(apiDocFile)
	if err != nil {
		t.Fatal(err)
	}
	var apiLimitRow, apiRoutes string
	for _, line := range strings.Split(string(apiDoc), "\n") {
		if strings.Contains(line, "| `LIMIT_EXCEEDED` |") {
			apiLimitRow = line
		}
		if strings.HasPrefix(line, "| `") && (strings.Contains(line, "` | `POST /v1/") || strings.Contains(line, "` | `GET /v1/")) {
			apiRoutes += line + "\n"
		}
	}
	routes := map[string]string{}
	for _, r := range loadHTTPRules(t) {
		if r.Post != "" {
			routes[r.Selector] = "POST " + r.Post
		} else {
			routes[r.Selector] = "GET " + r.Get
		}
	}
	pairRE := regexp.MustCompile(`\b([A-Z][A-Z_]+[A-Z])\s+(?:\(|with reason\s+)([A-Z][A-Z_]+[A-Z])\b`)
	limitRE := regexp.MustCompile("`limit` = `([a-z_]+)`")
	httpRE := regexp.MustCompile("HTTP: `((?:GET|POST) [^`?]+)")
	nPairs, nLimits := 0, 0
	defer func() {
		t.Logf("%d RPCs: %d documented code (reason) pairs, %d `limit` values", len(docs), nPairs, nLimits)
	}()
	for _, d := range docs {
		name := "damone.v1." + d.service + "." + d.method
		_, errorsPart, ok := strings.Cut(d.comment, "Errors")
		if !ok {
			t.Errorf("%s: no Errors paragraph in its comment", name)
		}
		errorsPart, _, _ = strings.Cut(errorsPart, "HTTP:")
		pairs := pairRE.FindAllStringSubmatch(errorsPart, -1)
		if ok && len(pairs) == 0 {
			t.Errorf("%s: its Errors paragraph names no CODE (REASON)", name)
		}
		nPairs += len(pairs)
		for _, p := range pairs {
			if !codes[p[1]] || !reasons[p[2]] {
				t.Errorf("%s: documents %s (%s): want a gRPC code and an ErrorReason", name, p[1], p[2])
			}
		}
		for _, l := range limitRE.FindAllStringSubmatch(d.comment, -1) {
			nLimits++
			if !strings.Contains(limitDoc, "`"+l[1]+"`") {
				t.Errorf("%s: limit %q is not documented with LIMIT_EXCEEDED in error_reason.proto", name, l[1])
			}
			if !strings.Contains(apiLimitRow, "`"+l[1]+"`") {
				t.Errorf("%s: limit %q is not in docs/api.md's LIMIT_EXCEEDED row", name, l[1])
			}
		}
		h := httpRE.FindStringSubmatch(d.comment)
		if h == nil || h[1] != routes[name] {
			t.Errorf("%s: comment's HTTP line %v; damone_http.yaml has %q", name, h, routes[name])
		}
		if !strings.Contains(apiRoutes, "| `"+d.service+"."+d.method+"` | `"+routes[name]) {
			t.Errorf("%s: docs/api.md's REST routes table has no row `%s.%s` | `%s`", name, d.service, d.method, routes[name])
		}
	}
}
