package apicontract

// The conformance suite (issue 13, "The kind"): the error contract, read
// from the documents, produced on the real binary over gRPC and REST.
//
//   - Every `Errors` paragraph of the service protos (each RPC's, and each
//     service's, whose "every method" clauses hold for each method) is
//     parsed into claims: a code with a reason, or a code alone, and for
//     LIMIT_EXCEEDED the `limit` values it names.
//   - Each case below makes one error happen and checks it against the
//     error model of docs/api.md (errmodel_test.go): the gRPC code, the
//     ErrorInfo (domain damone.v1, the reason, the metadata with exactly
//     the keys documented for the reason, values worked out from the
//     contract), for INVALID_ARGUMENT the BadRequest field; over REST the
//     HTTP status docs/api.md's table gives and the plain google.rpc.Status
//     JSON ({"error": ...} only as a stream's last line after results).
//   - What the cases produced is recorded (RPC, surface, code, reason,
//     limit), and the suite fails when a claim, an ErrorReason value or a
//     documented `limit` value was produced by no case, on either surface
//     (REST-only reasons on REST alone; the few claims a surface cannot
//     show are listed with the reason). Every error made over gRPC is
//     made over Connect on the HTTP port too (internal/connectweb), but on
//     the bidirectional ValidateGames, which needs HTTP/2.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// claim is one error a proto comment's Errors paragraph promises.
type claim struct {
	service string // e.g. damone.v1.GameService
	rpc     string // the method's full name; "" for a service's paragraph
	// For a service's paragraph: "all" (every method), "named" (every
	// method on one game: those whose request has a name), or "" (some
	// method of the service).
	scope  string
	code   codes.Code
	reason string   // "" for a code alone
	limits []string // LIMIT_EXCEEDED: the `limit` values named
	text   string   // the clause, for messages
}

func (c claim) String() string {
	where := c.rpc
	if where == "" {
		where = c.service + " (" + map[string]string{"all": "every method", "named": "every method on one game", "": "some method"}[c.scope] + ")"
	}
	s := where + ": " + codeName(c.code)
	if c.reason != "" {
		s += " (" + c.reason + ")"
	}
	if len(c.limits) > 0 {
		s += " limit " + strings.Join(c.limits, ", ")
	}
	return s
}

// serviceComments reads each service's leading comment.
func serviceComments(t *testing.T) map[string]string {
	t.Helper()
	serviceRE := regexp.MustCompile(`^service (\w+) \{`)
	out := map[string]string{}
	for _, file := range serviceProtos {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var comment []string
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "//") {
				comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "//")))
				continue
			}
			if m := serviceRE.FindStringSubmatch(line); m != nil {
				out["damone.v1."+m[1]] = strings.Join(comment, "\n")
			}
			comment = nil
		}
	}
	return out
}

// errorsParagraph returns the paragraph of a comment that begins with
// "Errors", on one line.
func errorsParagraph(comment string) string {
	for _, p := range strings.Split(comment, "\n\n") {
		if strings.HasPrefix(p, "Errors") {
			return strings.Join(strings.Fields(p), " ")
		}
	}
	return ""
}

var (
	claimToken  = regexp.MustCompile("`[a-z_]+`|\\b[A-Z][A-Z_]*[A-Z]\\b")
	clauseBreak = regexp.MustCompile(`;|\.\s|\band may\b`)
)

// parseClaims reads the claims of one Errors paragraph: each gRPC code
// opens a claim, each ErrorReason after it gives one claim with that code,
// a code followed by no reason is a claim of the code alone, and a
// documented `limit` value belongs to the LIMIT_EXCEEDED claim before it.
func parseClaims(service, rpc, paragraph string, reasons, limitValues []string) []claim {
	var out []claim
	clauses := []string{paragraph}
	if rpc == "" {
		clauses = clauseBreak.Split(paragraph, -1)
	}
	for _, clause := range clauses {
		scope := ""
		switch {
		case rpc != "":
		case strings.Contains(clause, "every method on one game"):
			scope = "named"
		case strings.Contains(clause, "every method"):
			scope = "all"
		}
		var open *claim // a code that has no reason yet
		var last int = -1
		flush := func() {
			if open != nil {
				out = append(out, *open)
				open = nil
			}
		}
		for _, tok := range claimToken.FindAllString(clause, -1) {
			if code, ok := codeByName[tok]; ok && tok != "OK" {
				flush()
				open = &claim{service: service, rpc: rpc, scope: scope, code: code, text: clause}
				last = -1
				continue
			}
			if slices.Contains(reasons, tok) {
				var code codes.Code
				switch {
				case open != nil:
					code = open.code
				case last >= 0:
					code = out[last].code
				default:
					continue // a reason named outside a code's claim
				}
				open = nil
				out = append(out, claim{service: service, rpc: rpc, scope: scope, code: code, reason: tok, text: clause})
				last = len(out) - 1
				continue
			}
			if w := strings.Trim(tok, "`"); w != tok && slices.Contains(limitValues, w) && last >= 0 && out[last].reason == "LIMIT_EXCEEDED" {
				out[last].limits = append(out[last].limits, w)
			}
		}
		flush()
	}
	return out
}

// loadClaims parses every Errors paragraph of the service protos.
func loadClaims(t *testing.T, model errorModel) []claim {
	t.Helper()
	var reasons []string
	for r := range model.reasons {
		reasons = append(reasons, r)
	}
	limits := model.reasons["LIMIT_EXCEEDED"].limits
	var out []claim
	for service, comment := range serviceComments(t) {
		p := errorsParagraph(comment)
		if p == "" {
			t.Errorf("%s: its comment has no Errors paragraph", service)
		}
		out = append(out, parseClaims(service, "", p, reasons, limits)...)
	}
	for _, d := range loadRPCDocs(t) {
		p := errorsParagraph(d.comment)
		if p == "" {
			t.Errorf("%s.%s: its comment has no Errors paragraph", d.service, d.method)
		}
		out = append(out, parseClaims("damone.v1."+d.service, "damone.v1."+d.service+"."+d.method, p, reasons, limits)...)
	}
	return out
}

// TestErrorsParagraphsParse: the parser reads the known shapes of the
// Errors paragraphs as meant (so a claim the suite asks for is one the
// comment makes).
func TestErrorsParagraphsParse(t *testing.T) {
	reasons := []string{"INVALID_REQUEST", "LIMIT_EXCEEDED", "ETAG_MISMATCH", "PLY_MISMATCH", "GAME_OVER", "NOT_YOUR_TURN", "GAME_NOT_FOUND"}
	limits := []string{"game_plies", "request_bytes", "analyses"}
	got := func(cs []claim) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.String())
		}
		return out
	}
	for _, c := range []struct {
		rpc, text string
		want      []string
	}{
		{"r", "Errors: INVALID_ARGUMENT (INVALID_REQUEST) for x; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `game_plies`) for y, or (`limit` = `request_bytes`) for z.",
			[]string{"r: INVALID_ARGUMENT (INVALID_REQUEST)", "r: RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) limit game_plies, request_bytes"}},
		{"r", "Errors: ABORTED (ETAG_MISMATCH or PLY_MISMATCH) when; FAILED_PRECONDITION with reason GAME_OVER (x), NOT_YOUR_TURN (y, e.g. cause OPPONENT_PIECE); DEADLINE_EXCEEDED if late.",
			[]string{"r: ABORTED (ETAG_MISMATCH)", "r: ABORTED (PLY_MISMATCH)", "r: FAILED_PRECONDITION (GAME_OVER)", "r: FAILED_PRECONDITION (NOT_YOUR_TURN)", "r: DEADLINE_EXCEEDED"}},
		{"", "Errors: every method returns INVALID_ARGUMENT (reason INVALID_REQUEST) for x, e.g. a `name`; every method on one game returns NOT_FOUND (GAME_NOT_FOUND). Any method may return RESOURCE_EXHAUSTED (LIMIT_EXCEEDED), UNAVAILABLE or CANCELLED.",
			[]string{"s (every method): INVALID_ARGUMENT (INVALID_REQUEST)", "s (every method on one game): NOT_FOUND (GAME_NOT_FOUND)",
				"s (some method): RESOURCE_EXHAUSTED (LIMIT_EXCEEDED)", "s (some method): UNAVAILABLE", "s (some method): CANCELLED"}},
		{"", "Errors: every method returns INVALID_ARGUMENT (reason INVALID_REQUEST) for x, and may return RESOURCE_EXHAUSTED (reason LIMIT_EXCEEDED) with `limit` (`analyses`).",
			[]string{"s (every method): INVALID_ARGUMENT (INVALID_REQUEST)", "s (some method): RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) limit analyses"}},
	} {
		if g := got(parseClaims("s", c.rpc, c.text, reasons, limits)); !slices.Equal(g, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, g, c.want)
		}
	}
}

// observation is an error a case produced.
type observation struct {
	rpc, surface string
	code         codes.Code
	reason       string
	limit        string
}

// suite runs cases and records what they produced.
type suite struct {
	model errorModel
	mu    sync.Mutex
	seen  []observation
}

// confCase is one error, made over both surfaces.
type confCase struct {
	name string
	mk   func(t *testing.T) call
	want wantError // code, reason, BadRequest field, metadata (every entry)
	// The error comes as a stream's last line after results over REST
	// (a stream that fails after it started).
	midStream bool
	grpcOnly  string // why the case has no REST form
}

func (s *suite) run(t *testing.T, srv *binServer, c confCase) {
	t.Helper()
	t.Run(c.name, func(t *testing.T) {
		cl := c.mk(t)
		s.checkAnswer(t, "gRPC", cl.method, c.want, false, srv.grpcCall(t, cl))
		// Connect on the HTTP port answers as gRPC does (but for the
		// bidirectional ValidateGames, which needs HTTP/2).
		if !methodDesc(t, cl.method).IsStreamingClient() {
			cl = c.mk(t)
			s.checkAnswer(t, "Connect", cl.method, c.want, false, srv.connectCall(t, cl))
		}
		if c.grpcOnly != "" {
			t.Logf("REST: none (%s)", c.grpcOnly)
			return
		}
		cl = c.mk(t)
		s.checkAnswer(t, "REST", cl.method, c.want, c.midStream, srv.restCall(t, cl))
	})
}

func (s *suite) checkAnswer(t *testing.T, surface, rpc string, want wantError, midStream bool, a answer) {
	t.Helper()
	failed := t.Failed()
	if surface != "REST" { // gRPC, or Connect: the same status
		if a.st.Code() == codes.OK {
			t.Errorf("%s: served; want %v %s", surface, want.code, want.reason)
			return
		}
		if want.reason == "" {
			if a.st.Code() != want.code {
				t.Errorf("%s: %v; want %v", surface, a.st.Proto(), want.code)
			}
			if info := errorInfo(a.st); info != nil && info.GetDomain() == "damone.v1" {
				t.Errorf("%s: %v carries reason %s; docs/api.md: other codes carry no reason of ours", surface, want.code, info.GetReason())
			}
		} else {
			checkStatus(t, surface, a.st, want)
			if info := errorInfo(a.st); info != nil {
				s.model.checkMetadataKeys(t, surface, want.reason, info.GetMetadata())
			}
		}
	} else {
		if a.errJSON == nil {
			t.Errorf("REST: served (HTTP %d, %d messages); want %v %s", a.http, len(a.msgs), want.code, want.reason)
			return
		}
		if midStream {
			if !a.inStream || a.http != http.StatusOK {
				t.Errorf("REST: HTTP %d, in a stream's line %v; want the stream's last line after results", a.http, a.inStream)
			}
		} else if h := s.model.httpStatus(t, want.code, want.reason, want.metadata["limit"]); a.http != h || a.inStream {
			t.Errorf("REST: HTTP %d (in a stream's line %v); docs/api.md says %d, with the status JSON as the body", a.http, a.inStream, h)
		}
		checkStatusJSONShape(t, a.errJSON)
		var st restStatus
		json.Unmarshal(a.errJSON, &st)
		if want.reason == "" {
			if st.Code != int(want.code) {
				t.Errorf("REST: status %s; want code %d (%v)", a.errJSON, want.code, want.code)
			}
			for _, d := range st.Details {
				if d.Domain == "damone.v1" {
					t.Errorf("REST: %v carries reason %s; docs/api.md: other codes carry no reason of ours", want.code, d.Reason)
				}
			}
		} else {
			checkRESTStatus(t, "REST", a.errJSON, want)
			for _, d := range st.Details {
				if d.Type == "type.googleapis.com/google.rpc.ErrorInfo" {
					s.model.checkMetadataKeys(t, "REST", want.reason, d.Metadata)
				}
			}
		}
	}
	if t.Failed() && !failed {
		return // not recorded: the case did not produce what it claims
	}
	s.mu.Lock()
	s.seen = append(s.seen, observation{rpc: rpc, surface: surface, code: want.code, reason: want.reason, limit: want.metadata["limit"]})
	s.mu.Unlock()
}

// checkStatusJSONShape: a REST error is the plain google.rpc.Status JSON:
// code, message and details, each detail an ErrorInfo or a BadRequest.
func checkStatusJSONShape(t *testing.T, body []byte) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Errorf("REST: status %s: %v", body, err)
		return
	}
	for k := range top {
		if k != "code" && k != "message" && k != "details" {
			t.Errorf("REST: status JSON has a key %q; want code, message and details only: %s", k, body)
		}
	}
	if _, ok := top["code"]; !ok {
		t.Errorf("REST: status JSON without a code: %s", body)
	}
	var details []map[string]json.RawMessage
	json.Unmarshal(top["details"], &details)
	for _, d := range details {
		var typ string
		json.Unmarshal(d["@type"], &typ)
		if typ != "type.googleapis.com/google.rpc.ErrorInfo" && typ != "type.googleapis.com/google.rpc.BadRequest" {
			t.Errorf("REST: a detail of type %q: %s", typ, body)
		}
	}
}

// Claims a surface cannot show, and why.
var surfaceExemptions = map[string]string{
	"REST|damone.v1.AnalysisService|UNAVAILABLE": "while the server stops its HTTP listener is closed: a REST client gets no answer at all; " +
		"an analysis running at shutdown ends with its final message",
}

// Limit values a surface cannot show, and why.
var limitExemptions = map[string]string{
	"REST|watch_buffer": "the gateway reads a REST watcher's gRPC stream into its own connection's flow-control window " +
		"(which grows to megabytes) and TCP's buffers: a REST client that stops reading is cut off only tens of thousands of events behind",
}

// Reasons no run of the binary can show on demand, and why.
var reasonExemptions = map[string]string{}

// Claims no server behaviour can show, and why.
var claimExemptions = map[codes.Code]string{
	codes.Canceled: "the client's own cancellation, which its gRPC library reports whatever the server does",
}

// TestConformance produces every documented error.
func TestConformance(t *testing.T) {
	model := loadErrorModel(t)
	claims := loadClaims(t, model)
	s := &suite{model: model}
	start := time.Now()
	t.Run("main", func(t *testing.T) { confMain(t, s) })
	t.Run("limits", func(t *testing.T) { confLimits(t, s) })
	t.Run("watch buffer", func(t *testing.T) { confWatchBuffer(t, s) })
	t.Run("engine queue", func(t *testing.T) { confEngineQueue(t, s) })
	t.Run("shutdown", func(t *testing.T) { confShutdown(t, s) })
	t.Run("tablebase loading", func(t *testing.T) { confTablebaseLoading(t, s) })
	t.Logf("%d claims in the Errors paragraphs, %d errors produced, in %v", len(claims), len(s.seen), time.Since(start).Round(time.Millisecond))
	if t.Failed() {
		return // coverage is judged on a suite whose cases pass
	}
	checkCoverage(t, model, claims, s.seen)
	checkConnectLikeGRPC(t, s.seen)
}

// Limits Connect calls cannot be made to show, and why.
var connectExemptions = map[string]string{
	"watch_buffer": "HTTP/1.1 has no flow-control window: a Connect watcher that stops reading is cut off once the kernel's socket " +
		"buffers are full, which on loopback varied from some 150 to over 4000 events in tests; the bound is the same code as gRPC's",
}

// checkConnectLikeGRPC fails for each error a case produced over gRPC but
// not over Connect, on a method Connect serves on HTTP/1.1 (all but the
// client-streaming ones).
func checkConnectLikeGRPC(t *testing.T, seen []observation) {
	t.Helper()
	n := 0
	for _, o := range seen {
		if o.surface != "gRPC" || o.rpc == "" || methodDesc(t, o.rpc).IsStreamingClient() {
			continue
		}
		c := o
		c.surface = "Connect"
		if why, ok := connectExemptions[o.limit]; ok && o.limit != "" {
			t.Logf("Connect: not produced: limit %s: %s", o.limit, why)
			continue
		}
		if !slices.Contains(seen, c) {
			t.Errorf("Connect: %s %v %s (limit %q) was produced over gRPC, not over Connect", o.rpc, o.code, o.reason, o.limit)
		}
		n++
	}
	if n == 0 {
		t.Error("no error produced over gRPC on a method Connect serves: the comparison checked nothing")
	}
	t.Logf("%d errors over gRPC, each also over Connect", n)
}

// checkCoverage fails for each claim, reason and limit value no case
// produced.
func checkCoverage(t *testing.T, model errorModel, claims []claim, seen []observation) {
	t.Helper()
	methods := map[string][]string{} // service -> its methods
	named := map[string]bool{}       // methods whose request has a name
	for _, fd := range []protoreflect.FileDescriptor{damonev1.File_damone_v1_rules_service_proto,
		damonev1.File_damone_v1_game_service_proto, damonev1.File_damone_v1_analysis_service_proto} {
		for i := range fd.Services().Len() {
			sd := fd.Services().Get(i)
			for j := range sd.Methods().Len() {
				m := sd.Methods().Get(j)
				methods[string(sd.FullName())] = append(methods[string(sd.FullName())], string(m.FullName()))
				if m.Input().Fields().ByName("name") != nil {
					named[string(m.FullName())] = true
				}
			}
		}
	}
	produced := func(surface string, rpcs []string, c claim, limit string) bool {
		for _, o := range seen {
			if o.surface == surface && slices.Contains(rpcs, o.rpc) && o.code == c.code &&
				(c.reason == "" || o.reason == c.reason) && (limit == "" || o.limit == limit) {
				return true
			}
		}
		return false
	}
	var missing []string
	for _, c := range claims {
		if why, ok := claimExemptions[c.code]; ok && c.reason == "" {
			t.Logf("not produced: %s: %s", c, why)
			continue
		}
		// The sets of methods the claim needs a case on (any one of each).
		var need [][]string
		switch {
		case c.rpc != "":
			need = [][]string{{c.rpc}}
		case c.scope == "":
			need = [][]string{methods[c.service]}
		default:
			for _, m := range methods[c.service] {
				if c.scope == "all" || named[m] {
					need = append(need, []string{m})
				}
			}
		}
		for _, surface := range []string{"gRPC", "REST"} {
			if why, ok := surfaceExemptions[surface+"|"+c.service+"|"+codeName(c.code)]; ok && c.reason == "" {
				if why != "" {
					t.Logf("%s: not produced: %s: %s", surface, c, why)
				}
				if surface == "REST" {
					continue
				}
			}
			limits := c.limits
			if len(limits) == 0 {
				limits = []string{""}
			}
			for _, rpcs := range need {
				for _, l := range limits {
					if !produced(surface, rpcs, c, l) {
						w := c.String()
						if len(need) > 1 {
							w += " on " + rpcs[0]
						}
						if l != "" {
							w += " with limit " + l
						}
						missing = append(missing, surface+": "+w)
					}
				}
			}
		}
	}
	// Every ErrorReason, on both surfaces (REST-only ones on REST).
	comments := reasonComments(t)
	for reason := range model.reasons {
		if why, ok := reasonExemptions[reason]; ok {
			t.Logf("not produced: reason %s: %s", reason, why)
			continue
		}
		for _, surface := range []string{"gRPC", "REST"} {
			if surface == "gRPC" && strings.Contains(comments[reason], "REST only") {
				continue
			}
			if !slices.ContainsFunc(seen, func(o observation) bool { return o.surface == surface && o.reason == reason }) {
				missing = append(missing, fmt.Sprintf("%s: reason %s", surface, reason))
			}
		}
	}
	for _, l := range model.reasons["LIMIT_EXCEEDED"].limits {
		for _, surface := range []string{"gRPC", "REST"} {
			if why, ok := limitExemptions[surface+"|"+l]; ok {
				t.Logf("%s: not produced: limit %s: %s", surface, l, why)
				continue
			}
			if !slices.ContainsFunc(seen, func(o observation) bool { return o.surface == surface && o.limit == l }) {
				missing = append(missing, fmt.Sprintf("%s: LIMIT_EXCEEDED with limit %s", surface, l))
			}
		}
	}
	sort.Strings(missing)
	for _, m := range slices.Compact(missing) {
		t.Errorf("no case produces %s", m)
	}
}

// Positions of the cases, each worked out from RULES.md.
const (
	// Red's c4xa6 takes Black's last piece: Red wins.
	lastCapture = "R:RPc4:BPb5:0"
	// Black has no piece: the game is over, Red has won.
	blackGone = "R:RPc4:B:0"
	// docs/notation.md: d1xf7 is d1xb3xd5xf7 or d1xf3xd5xf7.
	ambiguousStart = "R:RPd1:BPc2,Pc4,Pe2,Pe4,Pe6:0"
	// Red's legal moves at the standard start, sorted (see
	// cmd/damone/serve_e2e_test.go, svOpening).
	opening = "d1-c2,e2-d3,f1-g2,f3-e4,g4-f5,h1-g2,h3-g2,h5-g6"
)

var (
	redWins   = map[string]string{"result": "OUTCOME_RESULT_RED_WINS", "reason": "OUTCOME_REASON_ALL_PIECES_CAPTURED"}
	badName   = "games/bad!id" // fits the route games/*, not the name's form
	noSuch    = "games/no-such-game"
	invalid   = func(field string) wantError { return *badArg(field) }
	limitErr  = func(limit, max string) wantError { return *limitExceeded(limit, max) }
	notFound  = wantError{code: codes.NotFound, reason: "GAME_NOT_FOUND", metadata: map[string]string{"name": noSuch}}
	noToken   = wantError{code: codes.Unauthenticated, reason: "MISSING_TOKEN"}
	wrongTok  = wantError{code: codes.PermissionDenied, reason: "WRONG_TOKEN"}
	gameOver  = wantError{code: codes.FailedPrecondition, reason: "GAME_OVER", metadata: redWins}
	bearer    = func(token string) string { return "Bearer " + token }
	anyBearer = bearer("not-a-token-of-any-game")
)

// gameSetup creates games on a server over gRPC.
type gameSetup struct {
	t     *testing.T
	games damonev1.GameServiceClient
}

func (g gameSetup) create(start string, v *damonev1.Variant) *damonev1.CreateGameResponse {
	g.t.Helper()
	if v == nil {
		v = &damonev1.Variant{}
	}
	if start != "" {
		v.Start = &damonev1.Variant_StartPosition{StartPosition: textPos(start)}
	}
	r, err := g.games.CreateGame(context.Background(), &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: v}})
	if err != nil {
		g.t.Fatal(err)
	}
	return r
}

func (g gameSetup) move(cr *damonev1.CreateGameResponse, token, mv, requestID string) *damonev1.Game {
	g.t.Helper()
	r, err := g.games.MakeMove(withToken(context.Background(), token), &damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: mv, RequestId: requestID})
	if err != nil {
		g.t.Fatalf("%s: %v", mv, err)
	}
	return r.GetGame()
}

// the calls of each GameService method on a game.
func gameCall(method, name, auth string) call {
	var req proto.Message
	switch method {
	case rpcGetGame:
		req = &damonev1.GetGameRequest{Name: name}
	case rpcMakeMove:
		req = &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3"}
	case rpcResign:
		req = &damonev1.ResignRequest{Name: name}
	case rpcOfferDraw:
		req = &damonev1.OfferDrawRequest{Name: name}
	case rpcAnswerDraw:
		req = &damonev1.AnswerDrawOfferRequest{Name: name, Accept: true}
	case rpcWatch:
		req = &damonev1.WatchGameRequest{Name: name}
	case rpcExportPdn:
		req = &damonev1.ExportPdnRequest{Name: name}
	}
	return call{method: method, req: req, auth: auth}
}

// confMain: the errors of a server with small caps.
func confMain(t *testing.T, s *suite) {
	srv := startBinary(t, "--max-perft-depth", "8", "--max-game-plies", "6", "--max-position-plies", "2", "--max-request-bytes", "4096",
		"--max-analysis-time", "2s", "--max-analyses", "1")
	g := gameSetup{t, damonev1.NewGameServiceClient(srv.conn)}
	fresh := g.create("", nil)
	moved := g.create("", nil)
	etag0 := moved.GetGame().GetEtag()
	after := g.move(moved, moved.GetRedToken(), "e2-d3", "first-move")
	won := g.create(lastCapture, nil)
	g.move(won, won.GetRedToken(), "c4xa6", "")
	offered := g.create("", nil)
	if _, err := g.games.OfferDraw(withToken(context.Background(), offered.GetRedToken()), &damonev1.OfferDrawRequest{Name: offered.GetGame().GetName()}); err != nil {
		t.Fatal(err)
	}
	// Request ids: Red resigned a game with one; a CreateGame with one.
	resigned := g.create("", nil)
	if _, err := g.games.Resign(withToken(context.Background(), resigned.GetRedToken()),
		&damonev1.ResignRequest{Name: resigned.GetGame().GetName(), RequestId: "resigned-1"}); err != nil {
		t.Fatal(err)
	}
	const createID = "7d3f2a10-5c4b-4e8d-9f1a-0b6c2e4d8a37"
	if _, err := g.games.CreateGame(context.Background(), &damonev1.CreateGameRequest{Game: &damonev1.Game{}, RequestId: createID}); err != nil {
		t.Fatal(err)
	}
	ambiguous := g.create(ambiguousStart, nil)
	// A game at the server's length limit (--max-game-plies 6).
	capped := g.create("", nil)
	for i, mv := range []string{"e2-d3", "a4-b3", "d3-c4", "b5xd3", "d1-c2", "d3xb1"} {
		tok := capped.GetRedToken()
		if i%2 == 1 {
			tok = capped.GetBlackToken()
		}
		g.move(capped, tok, mv, "")
	}
	name := fresh.GetGame().GetName()
	red, black := bearer(fresh.GetRedToken()), bearer(fresh.GetBlackToken())
	with := func(c call, f func(*call)) func(*testing.T) call {
		return func(*testing.T) call { f(&c); return c }
	}
	moveReq := func(cr *damonev1.CreateGameResponse, token, mv string) func(*testing.T) call {
		return fixedCall(call{method: rpcMakeMove, auth: token, req: &damonev1.MakeMoveRequest{Name: cr.GetGame().GetName(), Move: mv}})
	}
	bigMove := strings.Repeat("x", 5000)
	cases := []confCase{
		// RulesService.
		{name: "GetInitialPosition: malformed start", mk: fixedCall(call{method: rpcGetInitial, req: &damonev1.GetInitialPositionRequest{
			Variant: &damonev1.Variant{Start: &damonev1.Variant_StartPosition{StartPosition: textPos("R:RPa1:BPb5:0")}}}}),
			want: invalid("variant.start_position.text")},
		{name: "ListLegalMoves: no position", mk: fixedCall(call{method: rpcListMoves, req: &damonev1.ListLegalMovesRequest{}}),
			want: invalid("position")},
		{name: "ApplyMove: not notation", mk: fixedCall(call{method: rpcApplyMove, req: &damonev1.ApplyMoveRequest{Position: textPos(standardText), Move: "e2-e9"}}),
			want: invalid("move")},
		// A Pedine does not step backward: no other cause fits.
		{name: "ApplyMove: illegal", mk: fixedCall(call{method: rpcApplyMove, req: &damonev1.ApplyMoveRequest{Position: textPos(standardText), Move: "f3-g2"}}),
			want: wantError{code: codes.FailedPrecondition, reason: "ILLEGAL_MOVE", metadata: map[string]string{"move": "f3-g2", "legal_moves": opening, "cause": "NOT_A_MOVE"}}},
		{name: "ApplyMove: ambiguous", mk: fixedCall(call{method: rpcApplyMove, req: &damonev1.ApplyMoveRequest{Position: textPos(ambiguousStart), Move: "d1xf7"}}),
			want: wantError{code: codes.FailedPrecondition, reason: "AMBIGUOUS_MOVE", metadata: map[string]string{"move": "d1xf7", "matching_moves": "d1xb3xd5xf7,d1xf3xd5xf7"}}},
		{name: "ApplyMove: game over", mk: fixedCall(call{method: rpcApplyMove, req: &damonev1.ApplyMoveRequest{Position: textPos(blackGone), Move: "c4-d5"}}),
			want: gameOver},
		{name: "Perft: depth 0", mk: fixedCall(call{method: rpcPerft, req: &damonev1.PerftRequest{Position: textPos(standardText)}}),
			want: invalid("depth")},
		{name: "Perft: above the cap", mk: fixedCall(call{method: rpcPerft, req: &damonev1.PerftRequest{Position: textPos(standardText), Depth: 9}}),
			want: limitErr("perft_depth", "8")},
		{name: "ValidateGame: moves and pdn", mk: fixedCall(call{method: rpcValidate, req: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}, Pdn: proto.String("1. e2-d3 *")}}),
			want: invalid("pdn")},
		{name: "ValidateGame: above max-game-plies", mk: fixedCall(call{method: rpcValidate, req: &damonev1.ValidateGameRequest{
			Moves: []string{"e2-d3", "a4-b3", "d3-c4", "b5xd3", "d1-c2", "d3xb1", "h1-g2"}}}),
			want: limitErr("game_plies", "6")},
		{name: "ValidateGame: positions above max-position-plies", mk: fixedCall(call{method: rpcValidate, req: &damonev1.ValidateGameRequest{
			Moves: []string{"e2-d3", "a4-b3", "d3-c4"}, IncludePositions: true}}),
			want: limitErr("position_plies", "2")},
		{name: "ValidateGame: above max-request-bytes", mk: fixedCall(call{method: rpcValidate, req: &damonev1.ValidateGameRequest{Moves: []string{bigMove}}}),
			want: limitErr("request_bytes", "4096")},
		// ValidateGames: a request that does not decode (bytes ff ff ff ff
		// 0f: a field number out of range), or above the size limit, ends
		// the stream before any answer.
		{name: "ValidateGames: undecodable", mk: with(call{method: rpcValidates, rawGRPC: []byte{0xff, 0xff, 0xff, 0xff, 0x0f},
			req: &damonev1.ValidateGamesRequest{}}, func(c *call) { b := "{bad"; c.restBody = &b }),
			want: invalid("body")},
		{name: "ValidateGames: above max-request-bytes", mk: fixedCall(call{method: rpcValidates, req: &damonev1.ValidateGamesRequest{Id: "big",
			Game: &damonev1.ValidateGameRequest{Moves: []string{bigMove}}}}),
			want: limitErr("request_bytes", "4096")},

		// GameService.
		{name: "CreateGame: invalid variant", mk: fixedCall(call{method: rpcCreate, req: &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: limitVariant(-1)}}}),
			want: invalid("game.variant.no_progress_limit")},
		// REST: the body is the game, the request id a query parameter.
		{name: "CreateGame: request id reused with other settings", mk: with(call{method: rpcCreate, req: &damonev1.CreateGameRequest{
			Game: &damonev1.Game{Variant: &damonev1.Variant{FirstPlayer: damonev1.Side_SIDE_BLACK}}, RequestId: createID}},
			func(c *call) { q := "request_id=" + createID; c.restQuery = &q }),
			want: invalid("request_id")},
		{name: "CreateGame: request id too short", mk: with(call{method: rpcCreate, req: &damonev1.CreateGameRequest{Game: &damonev1.Game{}, RequestId: "short"}},
			func(c *call) { q := "request_id=short"; c.restQuery = &q }),
			want: invalid("request_id")},
		{name: "OfferDraw: request id used by Resign", mk: fixedCall(call{method: rpcOfferDraw, auth: bearer(resigned.GetRedToken()),
			req: &damonev1.OfferDrawRequest{Name: resigned.GetGame().GetName(), RequestId: "resigned-1"}}), want: invalid("request_id")},
		{name: "AnswerDrawOffer: request id too long", mk: fixedCall(call{method: rpcAnswerDraw, auth: black,
			req: &damonev1.AnswerDrawOfferRequest{Name: name, RequestId: strings.Repeat("r", 65)}}), want: invalid("request_id")},
		{name: "ListGames: negative page size", mk: fixedCall(call{method: rpcListGames, req: &damonev1.ListGamesRequest{PageSize: -1}}),
			want: invalid("page_size")},
		{name: "ListGames: page token not ours", mk: fixedCall(call{method: rpcListGames, req: &damonev1.ListGamesRequest{PageToken: "x"}}),
			want: invalid("page_token")},
		{name: "MakeMove: not notation", mk: moveReq(fresh, red, "e2-e3"), want: invalid("move")},
		{name: "MakeMove: no token", mk: moveReq(fresh, "", "e2-d3"), want: noToken},
		{name: "MakeMove: not a bearer token", mk: moveReq(fresh, "Basic "+fresh.GetRedToken(), "e2-d3"), want: noToken},
		{name: "MakeMove: neither side's token", mk: moveReq(fresh, anyBearer, "e2-d3"), want: wrongTok},
		{name: "MakeMove: request id reused for another move", mk: fixedCall(call{method: rpcMakeMove, auth: bearer(moved.GetRedToken()),
			req: &damonev1.MakeMoveRequest{Name: moved.GetGame().GetName(), Move: "f3-e4", RequestId: "first-move"}}),
			want: invalid("request_id")},
		{name: "MakeMove: stale etag", mk: fixedCall(call{method: rpcMakeMove, auth: bearer(moved.GetBlackToken()),
			req: &damonev1.MakeMoveRequest{Name: moved.GetGame().GetName(), Move: "a4-b3", Precondition: &damonev1.MakeMoveRequest_Etag{Etag: etag0}}}),
			want: wantError{code: codes.Aborted, reason: "ETAG_MISMATCH", metadata: map[string]string{"etag": after.GetEtag(), "ply": "1"}}},
		{name: "MakeMove: stale ply", mk: fixedCall(call{method: rpcMakeMove, auth: bearer(moved.GetBlackToken()),
			req: &damonev1.MakeMoveRequest{Name: moved.GetGame().GetName(), Move: "a4-b3", Precondition: &damonev1.MakeMoveRequest_ExpectedPly{ExpectedPly: 0}}}),
			want: wantError{code: codes.Aborted, reason: "PLY_MISMATCH", metadata: map[string]string{"ply": "1", "etag": after.GetEtag()}}},
		{name: "MakeMove: game over", mk: moveReq(won, bearer(won.GetRedToken()), "a6-b7"), want: gameOver},
		{name: "MakeMove: not your turn", mk: moveReq(fresh, black, "a4-b3"),
			want: wantError{code: codes.FailedPrecondition, reason: "NOT_YOUR_TURN", metadata: map[string]string{"side": "SIDE_BLACK", "side_to_move": "SIDE_RED"}}},
		{name: "MakeMove: the opponent's piece", mk: moveReq(fresh, red, "a4-b3"),
			want: wantError{code: codes.FailedPrecondition, reason: "ILLEGAL_MOVE", metadata: map[string]string{"move": "a4-b3", "legal_moves": opening, "cause": "OPPONENT_PIECE"}}},
		{name: "MakeMove: at max-game-plies", mk: moveReq(capped, bearer(capped.GetRedToken()), "h1-g2"),
			want: limitErr("game_plies", "6")},
		{name: "MakeMove: unknown view", mk: fixedCall(call{method: rpcMakeMove, auth: red,
			req: &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3", View: damonev1.GameView(7)}}),
			want: invalid("view")},
		{name: "GetGame: unknown view", mk: fixedCall(call{method: rpcGetGame, req: &damonev1.GetGameRequest{Name: name, View: damonev1.GameView(7)}}),
			want: invalid("view")},
		{name: "ListGames: unknown view", mk: fixedCall(call{method: rpcListGames, req: &damonev1.ListGamesRequest{View: damonev1.GameView(7)}}),
			want: invalid("view")},
		{name: "MakeMove: ambiguous", mk: moveReq(ambiguous, bearer(ambiguous.GetRedToken()), "d1xf7"),
			want: wantError{code: codes.FailedPrecondition, reason: "AMBIGUOUS_MOVE", metadata: map[string]string{"move": "d1xf7", "matching_moves": "d1xb3xd5xf7,d1xf3xd5xf7"}}},
		{name: "Resign: game over", mk: fixedCall(gameCall(rpcResign, won.GetGame().GetName(), bearer(won.GetBlackToken()))), want: gameOver},
		{name: "OfferDraw: game over", mk: fixedCall(gameCall(rpcOfferDraw, won.GetGame().GetName(), bearer(won.GetBlackToken()))), want: gameOver},
		{name: "OfferDraw: already offered", mk: fixedCall(gameCall(rpcOfferDraw, offered.GetGame().GetName(), bearer(offered.GetBlackToken()))),
			want: wantError{code: codes.FailedPrecondition, reason: "DRAW_ALREADY_OFFERED", metadata: map[string]string{"draw_offer": "SIDE_RED"}}},
		{name: "AnswerDrawOffer: game over", mk: fixedCall(gameCall(rpcAnswerDraw, won.GetGame().GetName(), bearer(won.GetBlackToken()))), want: gameOver},
		{name: "AnswerDrawOffer: no offer", mk: fixedCall(gameCall(rpcAnswerDraw, name, black)),
			want: wantError{code: codes.FailedPrecondition, reason: "NO_DRAW_OFFER", metadata: map[string]string{"side": "SIDE_BLACK"}}},
		{name: "WatchGame: negative since_sequence", mk: fixedCall(call{method: rpcWatch, req: &damonev1.WatchGameRequest{Name: name, SinceSequence: -1}}),
			want: invalid("since_sequence")},
		{name: "WatchGame: since_sequence past the last event", mk: fixedCall(call{method: rpcWatch, req: &damonev1.WatchGameRequest{Name: name, SinceSequence: 2}}),
			want: wantError{code: codes.OutOfRange, reason: "SEQUENCE_OUT_OF_RANGE", metadata: map[string]string{"last_event_sequence": "1"}}},

		// AnalysisService.
		{name: "AnalyzePosition: no limit", mk: fixedCall(call{method: rpcAnalyze, req: &damonev1.AnalyzePositionRequest{Position: textPos(standardText)}}),
			want: invalid("limit")},
		{name: "AnalyzePosition: move_time above the cap", mk: fixedCall(call{method: rpcAnalyze, req: &damonev1.AnalyzePositionRequest{
			Position: textPos(standardText), Limit: &damonev1.AnalyzePositionRequest_MoveTime{MoveTime: durationpb.New(3 * time.Second)}}}),
			want: limitErr("analysis_time", "2s")},
		// TablebaseService on a server started without --egtb-dir: no
		// tables, so every position is refused (max_pieces 0), after the
		// request is checked.
		{name: "ProbePosition: no position", mk: fixedCall(call{method: rpcProbe, req: &damonev1.ProbePositionRequest{}}),
			want: invalid("position")},
		{name: "ProbePosition: no tables served", mk: fixedCall(call{method: rpcProbe, req: &damonev1.ProbePositionRequest{Position: "R:RPd3,Pb1:BPe4,Pa6:0"}}),
			want: wantError{code: codes.FailedPrecondition, reason: "NOT_IN_TABLEBASE",
				metadata: map[string]string{"pieces": "4", "max_pieces": "0", "win_condition": "WIN_CONDITION_CAPTURE_ALL_PIECES"}}},
		{name: "GetMainline: malformed position", mk: fixedCall(call{method: rpcMainline, req: &damonev1.GetMainlineRequest{Position: "R:RPd3"}}),
			want: invalid("position")},
		{name: "GetMainline: no tables served", mk: fixedCall(call{method: rpcMainline, req: &damonev1.GetMainlineRequest{Position: "R:RPd3:BPe4:0"}}),
			want: wantError{code: codes.FailedPrecondition, reason: "NOT_IN_TABLEBASE",
				metadata: map[string]string{"pieces": "2", "max_pieces": "0", "win_condition": "WIN_CONDITION_CAPTURE_ALL_PIECES"}}},
	}
	// Every method on one game: a malformed name, and an unknown game (with
	// a token where the method needs one: the token comes first).
	for _, m := range []string{rpcGetGame, rpcMakeMove, rpcResign, rpcOfferDraw, rpcAnswerDraw, rpcWatch, rpcExportPdn} {
		auth := ""
		if m == rpcMakeMove || m == rpcResign || m == rpcOfferDraw || m == rpcAnswerDraw {
			auth = anyBearer
			cases = append(cases,
				confCase{name: short(m) + ": no token", mk: fixedCall(gameCall(m, name, "")), want: noToken},
				confCase{name: short(m) + ": neither side's token", mk: fixedCall(gameCall(m, name, anyBearer)), want: wrongTok})
		}
		cases = append(cases,
			confCase{name: short(m) + ": malformed name", mk: fixedCall(gameCall(m, badName, auth)), want: invalid("name")},
			confCase{name: short(m) + ": unknown game", mk: fixedCall(gameCall(m, noSuch, auth)), want: notFound})
	}
	for _, c := range cases {
		s.run(t, srv, c)
	}

	// max-analyses 1: a second analysis while one runs.
	t.Run("AnalyzePosition: max-analyses", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		busy, err := damonev1.NewAnalysisServiceClient(srv.conn).AnalyzePosition(ctx, &damonev1.AnalyzePositionRequest{
			Position: textPos(standardText), Limit: &damonev1.AnalyzePositionRequest_Infinite{Infinite: true}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := busy.Recv(); err != nil {
			t.Fatal(err)
		}
		s.run(t, srv, confCase{name: "second", mk: fixedCall(call{method: rpcAnalyze, req: &damonev1.AnalyzePositionRequest{
			Position: textPos(standardText), Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 1}}}),
			want: limitErr("analyses", "1")})
	})

	// REST only: no route, or a route for another method.
	t.Run("REST: no route", func(t *testing.T) {
		s.checkAnswer(t, "REST", "", wantError{code: codes.NotFound, reason: "ROUTE_NOT_FOUND",
			metadata: map[string]string{"method": "GET", "path": "/v1/nothing"}}, false, srv.rawREST(t, "GET", "/v1/nothing", ""))
	})
	t.Run("REST: another method's route", func(t *testing.T) {
		s.checkAnswer(t, "REST", "", wantError{code: codes.Unimplemented, reason: "METHOD_NOT_ALLOWED",
			metadata: map[string]string{"method": "GET", "path": "/v1/rules:perft"}}, false, srv.rawREST(t, "GET", "/v1/rules:perft", ""))
	})
}

func fixedCall(c call) func(*testing.T) call { return func(*testing.T) call { return c } }

// short is a method's name without the package, e.g. GameService.GetGame.
func short(method string) string { return strings.TrimPrefix(method, "damone.v1.") }

// confLimits: the server's limits on games and watchers, and the call
// deadline.
func confLimits(t *testing.T, s *suite) {
	srv := startBinary(t, "--max-games", "3", "--max-watchers", "2", "--max-watchers-per-game", "1", "--max-call-duration", "250ms",
		"--max-perft-depth", "9")
	g := gameSetup{t, damonev1.NewGameServiceClient(srv.conn)}
	x, y := g.create("", nil), g.create("", nil)
	g.create("", nil)
	s.run(t, srv, confCase{name: "CreateGame: max-games", mk: fixedCall(call{method: rpcCreate, req: &damonev1.CreateGameRequest{}}),
		want: limitErr("games", "3")})

	// A watcher that stays, until the test ends.
	hold := func(name string) {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		w, err := g.games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	watch := func(name string) func(*testing.T) call {
		return fixedCall(call{method: rpcWatch, req: &damonev1.WatchGameRequest{Name: name}})
	}
	hold(x.GetGame().GetName()) // 1 watcher in all, 1 on x
	s.run(t, srv, confCase{name: "WatchGame: max-watchers-per-game", mk: watch(x.GetGame().GetName()),
		want: limitErr("watchers_per_game", "1")})
	hold(y.GetGame().GetName()) // 2 in all
	s.run(t, srv, confCase{name: "WatchGame: max-watchers", mk: watch(y.GetGame().GetName()), want: limitErr("watchers", "2")})

	// A perft of depth 9 (some 250 million leaves) takes longer than the
	// call's deadline of 250ms: the server stops counting
	// (rules_service.proto).
	s.run(t, srv, confCase{name: "Perft: past the call's deadline", mk: fixedCall(call{method: rpcPerft, req: &damonev1.PerftRequest{
		Position: textPos(standardText), Depth: 9}}), want: wantError{code: codes.DeadlineExceeded}})
	// "DEADLINE_EXCEEDED ... as in any gRPC call": a deadline already
	// past (over REST, the Grpc-Timeout header the gateway honours).
	s.run(t, srv, confCase{name: "GetGame: deadline past", mk: fixedCall(call{method: rpcGetGame, timeout: time.Nanosecond,
		req: &damonev1.GetGameRequest{Name: x.GetGame().GetName()}}), want: wantError{code: codes.DeadlineExceeded}})
}

// confTablebaseLoading: a server whose default tables (2 pieces, under a
// cache directory of the test's) wait for another process's build of
// them, since the test holds the directory's build lock as that process
// would (docs/deploy.md), answers TABLEBASE_LOADING on both methods.
func confTablebaseLoading(t *testing.T, s *suite) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "damone", "egtb-2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".build.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	srv := startBinaryEnv(t, []string{"XDG_CACHE_HOME=" + cache}, "--egtb-pieces", "2")
	want := wantError{code: codes.Unavailable, reason: "TABLEBASE_LOADING"}
	s.run(t, srv, confCase{name: "ProbePosition: tables loading", mk: fixedCall(call{method: rpcProbe, req: &damonev1.ProbePositionRequest{Position: "R:RPd3:BPe4:0"}}),
		want: want})
	s.run(t, srv, confCase{name: "GetMainline: tables loading", mk: fixedCall(call{method: rpcMainline, req: &damonev1.GetMainlineRequest{Position: "R:RPd3:BPe4:0"}}),
		want: want})
}

// confEngineQueue: with one engine search at a time and no move allowed
// to wait (--max-engine-queue 0), while the engine searches (a minute) in
// a game it opened, a call that would make it move again is refused:
// CreateGame with the engine to open, MakeMove the engine would answer.
func confEngineQueue(t *testing.T, s *suite) {
	srv := startBinary(t, "--max-analyses", "1", "--max-engine-queue", "0", "--max-engine-move-time", "1m")
	g := gameSetup{t, damonev1.NewGameServiceClient(srv.conn)}
	engineGame := func(side damonev1.Side) *damonev1.CreateGameRequest {
		return &damonev1.CreateGameRequest{Game: &damonev1.Game{EngineOpponent: &damonev1.EngineOpponent{
			Side: side, Strength: &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(time.Minute)}}}}
	}
	player, err := g.games.CreateGame(context.Background(), engineGame(damonev1.Side_SIDE_BLACK))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.games.CreateGame(context.Background(), engineGame(damonev1.Side_SIDE_RED)); err != nil {
		t.Fatal(err) // the engine opens: it searches from now on
	}
	want := limitErr("engine_queue", "0")
	s.run(t, srv, confCase{name: "CreateGame: the engine to open", mk: fixedCall(call{method: rpcCreate, req: engineGame(damonev1.Side_SIDE_RED)}),
		want: want})
	s.run(t, srv, confCase{name: "MakeMove: the engine to answer", mk: fixedCall(call{method: rpcMakeMove, auth: bearer(player.GetRedToken()),
		req: &damonev1.MakeMoveRequest{Name: player.GetGame().GetName(), Move: "e2-d3"}}), want: want})
}

// crowded: 22 pieces (so each event is large), the Damones h1 and a8 free
// to step to g2 and b7 and back, rows 4 and 5 empty between the sides: no
// capture is ever possible.
const crowded = "R:RMh1,Pb1,Pd1,Pf1,Pa2,Pc2,Pe2,Pb3,Pd3,Pf3,Ph3:BMa8,Pc8,Pe8,Pg8,Pd7,Pf7,Ph7,Pa6,Pc6,Pe6,Pg6:0"

// shuffle is a variant in which the Damones can step back and forth for
// ever: no draw rule applies.
func shuffle() *damonev1.Variant {
	return &damonev1.Variant{RepetitionDraw: proto.Bool(false), NoProgressLimit: proto.Int32(0)}
}

var shuffleMoves = []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8"}

// confWatchBuffer: a watcher that does not read falls behind the moves
// and is cut off with LIMIT_EXCEEDED (watch_buffer). (Over REST the
// gateway reads the stream for the client: see limitExemptions.)
func confWatchBuffer(t *testing.T, s *suite) {
	srv := startBinary(t, "--watch-buffer", "1")
	g := gameSetup{t, damonev1.NewGameServiceClient(srv.conn)}
	want := limitErr("watch_buffer", "1")
	play := func(cr *damonev1.CreateGameResponse, n int) {
		tokens := []string{cr.GetRedToken(), cr.GetBlackToken()}
		for i := range n {
			g.move(cr, tokens[i%2], shuffleMoves[i%4], "")
		}
	}

	t.Run("gRPC", func(t *testing.T) {
		cr := g.create(crowded, shuffle())
		// A connection with fixed 64 KiB windows: the server can send
		// only that much to a watcher that does not read.
		conn, err := grpc.NewClient(srv.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithInitialWindowSize(1<<16), grpc.WithInitialConnWindowSize(1<<16))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		w, err := damonev1.NewGameServiceClient(conn).WatchGame(ctx, &damonev1.WatchGameRequest{Name: cr.GetGame().GetName()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil {
			t.Fatal(err)
		}
		play(cr, 500) // it is cut some 320 events behind
		var a answer
		for {
			ev, err := w.Recv()
			if err != nil {
				a.st = status.Convert(err)
				break
			}
			a.msgs = append(a.msgs, ev)
		}
		if len(a.msgs) >= 500 {
			t.Fatalf("the watcher got all %d events: never cut off", len(a.msgs))
		}
		s.checkAnswer(t, "gRPC", rpcWatch, want, false, a)
	})
}

// lineReader reads newline-delimited lines of any length.
type lineReader struct {
	r   io.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: r} }

func (l *lineReader) line() ([]byte, error) {
	for {
		if i := strings.IndexByte(string(l.buf), '\n'); i >= 0 {
			out := l.buf[:i]
			l.buf = l.buf[i+1:]
			return out, nil
		}
		chunk := make([]byte, 4096)
		n, err := l.r.Read(chunk)
		l.buf = append(l.buf, chunk[:n]...)
		if err != nil && n == 0 {
			return nil, err
		}
	}
}

// confShutdown: a server that shuts down ends watch streams and
// ValidateGames streams with UNAVAILABLE, and refuses new calls.
func confShutdown(t *testing.T, s *suite) {
	srv := startBinary(t, "--drain-timeout", "500ms")
	g := gameSetup{t, damonev1.NewGameServiceClient(srv.conn)}
	cr := g.create("", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	unavailable := wantError{code: codes.Unavailable}

	// Open: a gRPC watch, a REST watch, a gRPC and a REST ValidateGames
	// stream, each past its first message.
	w, err := g.games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: cr.GetGame().GetName()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recv(); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 15 * time.Second}
	restWatch, err := client.Get("http://" + srv.httpAddr + "/v1/" + cr.GetGame().GetName() + ":watch")
	if err != nil {
		t.Fatal(err)
	}
	defer restWatch.Body.Close()
	watchLines := newLineReader(restWatch.Body)
	if _, err := watchLines.line(); err != nil {
		t.Fatal(err)
	}
	vg, err := damonev1.NewRulesServiceClient(srv.conn).ValidateGames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := vg.Send(&damonev1.ValidateGamesRequest{Id: "1", Game: &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := vg.Recv(); err != nil {
		t.Fatal(err)
	}
	// A REST ValidateGames stream, its body still open.
	bodyR, bodyW := io.Pipe()
	defer bodyW.Close()
	go bodyW.Write([]byte(`{"id":"1","game":{"moves":["e2-d3"]}}` + "\n"))
	restVG, err := client.Post("http://"+srv.httpAddr+"/v1/rules:validateGames", "application/x-ndjson", bodyR)
	if err != nil {
		t.Fatal(err)
	}
	defer restVG.Body.Close()
	vgLines := newLineReader(restVG.Body)
	if _, err := vgLines.line(); err != nil {
		t.Fatal(err)
	}

	// A Connect watch, past its first event.
	cw := connect.NewClient[damonev1.WatchGameRequest, damonev1.GameEvent](connectHTTP1,
		"http://"+srv.httpAddr+"/damone.v1.GameService/WatchGame")
	cwStream, err := cw.CallServerStream(ctx, connect.NewRequest(&damonev1.WatchGameRequest{Name: cr.GetGame().GetName()}))
	if err != nil {
		t.Fatal(err)
	}
	defer cwStream.Close()
	if !cwStream.Receive() {
		t.Fatal(cwStream.Err())
	}

	srv.terminate(t)

	t.Run("WatchGame: Connect", func(t *testing.T) {
		var a answer
		for cwStream.Receive() {
			a.msgs = append(a.msgs, cwStream.Msg())
		}
		a.st = status.New(codes.OK, "")
		if err := cwStream.Err(); err != nil {
			a.st = connectStatus(err)
		}
		s.checkAnswer(t, "Connect", rpcWatch, unavailable, false, a)
	})
	t.Run("WatchGame: gRPC", func(t *testing.T) {
		_, err := w.Recv()
		s.checkAnswer(t, "gRPC", rpcWatch, unavailable, false, answer{st: status.Convert(err)})
	})
	t.Run("WatchGame: REST", func(t *testing.T) {
		s.checkAnswer(t, "REST", rpcWatch, unavailable, true, restLastLine(t, watchLines, restWatch.StatusCode))
	})
	t.Run("ValidateGames: gRPC", func(t *testing.T) {
		_, err := vg.Recv()
		s.checkAnswer(t, "gRPC", rpcValidates, unavailable, false, answer{st: status.Convert(err)})
	})
	t.Run("ValidateGames: REST", func(t *testing.T) {
		s.checkAnswer(t, "REST", rpcValidates, unavailable, true, restLastLine(t, vgLines, restVG.StatusCode))
	})
	// A new call once the server has stopped: the client library's
	// UNAVAILABLE, to retry with backoff (no REST answer: the listener
	// is closed).
	t.Run("AnalyzePosition: gRPC", func(t *testing.T) {
		select {
		case <-srv.exited:
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not exit within 10s of SIGTERM")
		}
		a := srv.grpcCall(t, call{method: rpcAnalyze, req: &damonev1.AnalyzePositionRequest{Position: textPos(standardText),
			Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 1}}})
		s.checkAnswer(t, "gRPC", rpcAnalyze, unavailable, false, a)
		// Connect's client says the same of a refused connection.
		a = srv.connectCall(t, call{method: rpcAnalyze, req: &damonev1.AnalyzePositionRequest{Position: textPos(standardText),
			Limit: &damonev1.AnalyzePositionRequest_Depth{Depth: 1}}})
		s.checkAnswer(t, "Connect", rpcAnalyze, unavailable, false, a)
	})
}

// restLastLine reads a REST stream's lines to its {"error": ...} line.
func restLastLine(t *testing.T, lines *lineReader, httpStatus int) answer {
	t.Helper()
	a := answer{http: httpStatus}
	for {
		l, err := lines.line()
		if err != nil {
			t.Errorf("the stream ended (%v) after %d more results, without an error line", err, len(a.msgs))
			return a
		}
		var line struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		if line.Error != nil {
			a.errJSON, a.inStream = line.Error, true
			return a
		}
		a.msgs = append(a.msgs, nil)
	}
}
