package main

// End-to-end test that no secret leaves the service: a run of the real
// binary with a DSN that carries a password, an OTLP endpoint that
// carries credentials, side tokens, bad tokens and request ids (one
// reused for another move), and failing calls; then every endpoint
// (/metrics, every /debug/pprof/ page, /healthz, /readyz, the REST error
// bodies, the gRPC statuses), the exported traces and the whole log are
// searched for each secret (docs/deploy.md, Secrets).

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// secretWord returns a distinctive string that cannot occur by chance:
// prefix and 16 random hex digits (letters and digits only, so no
// escaping in JSON, URLs or logs can hide it).
func secretWord(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

// secretScan gathers everything the service showed during a run, by
// where it came from, to be searched for the run's secrets.
type secretScan struct {
	t       *testing.T
	secrets map[string]string // secret -> what it is
	seen    map[string][]byte // source -> what it showed
}

func newSecretScan(t *testing.T) *secretScan {
	return &secretScan{t: t, secrets: map[string]string{}, seen: map[string][]byte{}}
}

func (sc *secretScan) secret(what, prefix string) string {
	s := secretWord(sc.t, prefix)
	sc.secrets[s] = what
	return s
}

func (sc *secretScan) add(source string, b []byte) {
	sc.seen[source] = append(sc.seen[source], b...)
	sc.seen[source] = append(sc.seen[source], '\n')
}

// addStatus keeps a gRPC error's whole status: message and details.
func (sc *secretScan) addStatus(source string, err error) {
	st, _ := status.FromError(err)
	b, _ := protojson.Marshal(st.Proto())
	sc.add(source, b)
}

// check fails for every secret found in any source.
func (sc *secretScan) check() {
	sc.t.Helper()
	total := 0
	for _, b := range sc.seen {
		total += len(b)
	}
	sc.t.Logf("searched %d sources, %d bytes, for %d secrets", len(sc.seen), total, len(sc.secrets))
	for source, b := range sc.seen {
		for s, what := range sc.secrets {
			if i := bytes.Index(b, []byte(s)); i >= 0 {
				from, to := max(0, i-200), min(len(b), i+len(s)+100)
				sc.t.Errorf("%s shows %s:\n…%s…", source, what, b[from:to])
			}
		}
	}
}

// get fetches url and keeps its body (gunzipped if it is a profile).
func (sc *secretScan) get(source, url string) (int, []byte) {
	sc.t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		sc.t.Fatalf("%s: %v", source, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		sc.t.Fatalf("%s: %v", source, err)
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			sc.t.Fatalf("%s: %v", source, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			sc.t.Fatalf("%s: %v", source, err)
		}
	}
	sc.add(source, b)
	return resp.StatusCode, b
}

// rest makes a REST call, keeps its answer if it is an error (a created
// game's answer holds its tokens, for the caller) and returns its status.
func (sc *secretScan) rest(s *svServer, method, path, auth string, body any) (int, []byte) {
	sc.t.Helper()
	code, b := svHTTPAuth(sc.t, method, s.url(path), auth, body)
	if code >= 300 {
		sc.add(fmt.Sprintf("REST %s %s answered %d", method, path, code), b)
	}
	return code, b
}

// svHTTPAuth is svHTTP with the whole Authorization header given.
func svHTTPAuth(t *testing.T, method, url, auth string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// secretsStart starts damone serve with --pprof and tracing to a receiver
// in the test, whose endpoint URL carries credentials.
func secretsStart(t *testing.T, sc *secretScan, args ...string) (*svServer, *otlpReceiver) {
	t.Helper()
	rec, endpoint := startOTLPReceiver(t)
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("otlp", sc.secret("the OTLP endpoint's password", "otlppw"))
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	s := svStart(t, append([]string{"--pprof", "--otlp-endpoint", u.String()}, args...)...)
	return s, rec
}

// secretCalls makes calls that carry secrets, most of them failing, and
// keeps every answer.
func secretCalls(t *testing.T, sc *secretScan, s *svServer) {
	t.Helper()
	ctx := svCtx(t)
	badToken := sc.secret("a bad token", "badtoken")
	reqID := sc.secret("a request id", "reqid")
	reqID2 := sc.secret("a request id", "reqidgrpc")
	reqID3 := sc.secret("a request id", "reqidillegal")
	longID := sc.secret("an overlong request id", "reqidlong") + strings.Repeat("x", 60)
	sc.secrets[longID] = "an overlong request id"

	// REST: a game, a move with an id, its retry, the id reused for
	// another move, a bad token, a token in another scheme.
	code, body := sc.rest(s, "POST", "/v1/games", "", map[string]any{})
	var cr struct {
		Game       struct{ Name string }
		RedToken   string `json:"red_token"`
		BlackToken string `json:"black_token"`
	}
	if err := json.Unmarshal(body, &cr); err != nil || code != 200 || cr.RedToken == "" {
		t.Fatalf("REST create: %d %s", code, body)
	}
	sc.secrets[cr.RedToken], sc.secrets[cr.BlackToken] = "Red's token", "Black's token"
	move := "/v1/" + cr.Game.Name + ":move"
	for range 2 {
		if code, body := sc.rest(s, "POST", move, "Bearer "+cr.RedToken, map[string]any{"move": "e2-d3", "request_id": reqID}); code != 200 {
			t.Fatalf("REST move with a request id: %d %s", code, body)
		}
	}
	if code, body := sc.rest(s, "POST", move, "Bearer "+cr.RedToken, map[string]any{"move": "f3-e4", "request_id": reqID}); code != 400 || !bytes.Contains(body, []byte("request_id")) {
		t.Fatalf("REST request id reused for another move: %d %s, want 400 naming request_id", code, body)
	}
	if code, body := sc.rest(s, "POST", move, "Bearer "+badToken, map[string]any{"move": "a6-b7", "request_id": reqID}); code != 403 {
		t.Fatalf("REST move with a bad token: %d %s, want 403", code, body)
	}
	if code, body := sc.rest(s, "POST", move, "Basic "+badToken, map[string]any{"move": "a6-b7"}); code != 401 {
		t.Fatalf("REST move with a token in another scheme: %d %s, want 401", code, body)
	}
	if code, body := sc.rest(s, "POST", "/v1/"+cr.Game.Name+":resign", "Bearer "+badToken, map[string]any{}); code != 403 {
		t.Fatalf("REST resign with a bad token: %d %s, want 403", code, body)
	}
	// Black's own request ids: the same id is a new request.
	if code, body := sc.rest(s, "POST", move, "Bearer "+cr.BlackToken, map[string]any{"move": "a6-b7", "request_id": reqID}); code != 200 {
		t.Fatalf("REST Black's move with the same id: %d %s", code, body)
	}

	// gRPC: the same, and ids the contract refuses.
	g, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sc.secrets[g.GetRedToken()], sc.secrets[g.GetBlackToken()] = "Red's token", "Black's token"
	name := g.GetGame().GetName()
	red := svAuth(ctx, g.GetRedToken())
	if _, err := s.games.MakeMove(red, &damonev1.MakeMoveRequest{Name: name, Move: "e2-d3", RequestId: reqID2}); err != nil {
		t.Fatal(err)
	}
	failing := []struct {
		what string
		code codes.Code
		call func() error
	}{
		{"request id reused for another move", codes.InvalidArgument, func() error {
			_, err := s.games.MakeMove(red, &damonev1.MakeMoveRequest{Name: name, Move: "f3-e4", RequestId: reqID2})
			return err
		}},
		{"overlong request id", codes.InvalidArgument, func() error {
			_, err := s.games.MakeMove(red, &damonev1.MakeMoveRequest{Name: name, Move: "f3-e4", RequestId: longID})
			return err
		}},
		{"illegal move with a request id", codes.FailedPrecondition, func() error {
			_, err := s.games.MakeMove(svAuth(ctx, g.GetBlackToken()), &damonev1.MakeMoveRequest{Name: name, Move: "h7-g6", RequestId: reqID3})
			return err
		}},
		{"bad token", codes.PermissionDenied, func() error {
			_, err := s.games.MakeMove(svAuth(ctx, badToken), &damonev1.MakeMoveRequest{Name: name, Move: "a6-b7", RequestId: reqID3})
			return err
		}},
		{"bad token, offer draw", codes.PermissionDenied, func() error {
			_, err := s.games.OfferDraw(svAuth(ctx, badToken), &damonev1.OfferDrawRequest{Name: name})
			return err
		}},
		{"two authorization values", codes.Unauthenticated, func() error {
			two := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+badToken, "authorization", "Bearer "+g.GetBlackToken())
			_, err := s.games.Resign(two, &damonev1.ResignRequest{Name: name})
			return err
		}},
	}
	for _, f := range failing {
		err := f.call()
		if status.Code(err) != f.code {
			t.Fatalf("gRPC %s: %v, want %v", f.what, err, f.code)
		}
		sc.addStatus("gRPC status of "+f.what, err)
	}
}

// secretScrape reads every page the service serves to operators.
func secretScrape(t *testing.T, sc *secretScan, s *svServer) {
	t.Helper()
	metrics := "http://" + s.metricsAddr
	sc.get("/metrics", metrics+"/metrics")
	sc.add("/metrics (OpenMetrics)", openMetrics(t, s))
	sc.get("/healthz", s.url("/healthz"))
	sc.get("/readyz", s.url("/readyz"))
	sc.get("/admin/backup (off)", metrics+"/admin/backup")
	code, index := sc.get("/debug/pprof/", metrics+"/debug/pprof/")
	if code != 200 {
		t.Fatalf("/debug/pprof/: %d", code)
	}
	// Every page the index links to, in text (debug=1, debug=2) and in
	// the binary form (gunzipped), and cmdline whether listed or not.
	pages := map[string]bool{"cmdline": true}
	for _, m := range regexp.MustCompile(`href=['"]?([^'" >?]+)`).FindAllSubmatch(index, -1) {
		pages[string(m[1])] = true
	}
	if !pages["heap"] || !pages["goroutine"] || !pages["profile"] || !pages["trace"] || !pages["symbol"] {
		t.Errorf("the pprof index lists only %v", pages)
	}
	for page := range pages {
		queries := []string{"", "?debug=1", "?debug=2"}
		if page == "profile" || page == "trace" {
			queries = []string{"?seconds=1"}
		}
		for _, q := range queries {
			code, _ := sc.get("/debug/pprof/"+page+q, metrics+"/debug/pprof/"+page+q)
			if page == "cmdline" && code != http.StatusNotFound {
				t.Errorf("/debug/pprof/cmdline%s: %d, want 404 (docs/deploy.md: the command line is not served)", q, code)
			}
		}
	}
}

// secretsStop stops the server (flushing its traces) and adds its whole
// log and every exported span.
func secretsStop(t *testing.T, sc *secretScan, s *svServer, rec *otlpReceiver) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("damone serve still running 30 s after SIGTERM")
	}
	log := s.logText()
	sc.add("the log", []byte(log))
	spans, raw := rec.snapshot()
	sc.add("the exported traces", []byte(raw))
	// The scan sees what the leaks went through: the failing calls' log
	// lines and spans.
	if !strings.Contains(log, `"grpc.code":"InvalidArgument"`) || !strings.Contains(log, `"grpc.code":"PermissionDenied"`) {
		t.Errorf("the log has no line of the refused calls:\n%s", log)
	}
	if len(spans) < 20 {
		t.Errorf("only %d spans exported", len(spans))
	}
}

// TestNoSecretsEmbedded: on the embedded store, with an unused
// --postgres-dsn holding a password on the command line, nothing shows a
// secret. Needs no PostgreSQL.
func TestNoSecretsEmbedded(t *testing.T) {
	sc := newSecretScan(t)
	dsn := "postgres://damone:" + sc.secret("the DSN's password", "dsnpw") + "@db.invalid:5432/damone?sslmode=require"
	s, rec := secretsStart(t, sc, "--store", "embedded", "--data-dir", t.TempDir(), "--postgres-dsn", dsn)
	secretCalls(t, sc, s)
	secretScrape(t, sc, s)
	secretsStop(t, sc, s, rec)
	sc.check()
}

// TestNoSecretsPostgres: on PostgreSQL, with the DSN's password set (the
// test cluster trusts every local connection, so any password connects)
// in URL and in key=value form, and the database cut off for a while
// (readiness, store errors), nothing shows the password or another
// secret.
func TestNoSecretsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	base, err := url.Parse(postgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{"url", "keyvalue"} {
		t.Run(form, func(t *testing.T) {
			sc := newSecretScan(t)
			pw := sc.secret("the DSN's password", "dsnpw")
			proxy := newTCPProxy(t, base.Host)
			u := *base
			u.Host = proxy.addr
			u.User = url.UserPassword(base.User.Username(), pw)
			dsn := u.String()
			if form == "keyvalue" {
				host, port, _ := strings.Cut(proxy.addr, ":")
				dsn = fmt.Sprintf("host=%s port=%s user=%s password='%s' dbname=%s", host, port, base.User.Username(), pw, strings.TrimPrefix(base.Path, "/"))
				for k, v := range base.Query() {
					dsn += fmt.Sprintf(" %s=%s", k, v[0])
				}
			}
			s, rec := secretsStart(t, sc, "--store", "postgres", "--postgres-dsn", dsn)
			secretCalls(t, sc, s)

			// The database unreachable: readiness, the log's line, calls
			// that fail with the store's error.
			proxy.down()
			deadline := time.Now().Add(20 * time.Second)
			for {
				code, _ := sc.get("/readyz (database down)", s.url("/readyz"))
				if code == http.StatusServiceUnavailable {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("/readyz %d 20 s after the database went away", code)
				}
				time.Sleep(200 * time.Millisecond)
			}
			ctx := svCtx(t)
			g, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
			if status.Code(err) != codes.Unavailable {
				t.Fatalf("CreateGame with the database down: %v %v, want UNAVAILABLE", g, err)
			}
			sc.addStatus("gRPC status of CreateGame, database down", err)
			code, _ := sc.rest(s, "POST", "/v1/games/nosuchgame:move", "Bearer "+sc.secret("a bad token", "badtoken"),
				map[string]any{"move": "e2-d3", "request_id": sc.secret("a request id", "reqiddown")})
			if code != http.StatusServiceUnavailable {
				t.Fatalf("REST move with the database down: %d, want 503", code)
			}
			secretScrape(t, sc, s)
			proxy.up()
			secretsStop(t, sc, s, rec)
			if !strings.Contains(s.logText(), "store unreachable") {
				t.Errorf("no log line of the outage:\n%s", s.logText())
			}
			sc.check()
		})
	}
}

// TestNoSecretInStartErrors: a start that fails on its DSN (unreachable,
// malformed, in URL or key=value form, by flag or variable) says why
// without the password.
func TestNoSecretInStartErrors(t *testing.T) {
	svSkip(t)
	cases := []struct{ what, dsn string }{
		{"unreachable URL", "postgres://damone:%s@127.0.0.1:1/damone?connect_timeout=2"},
		{"unreachable key=value", "host=127.0.0.1 port=1 user=damone password=%s dbname=damone connect_timeout=2"},
		{"URL with a bad port", "postgres://damone:%s@127.0.0.1:notaport/damone"},
		{"URL with a password parameter and a bad sslmode", "postgresql://damone@127.0.0.1:1/damone?password=%s&sslmode=bogus"},
		{"key=value with a quoted password and a bad sslmode", "host=127.0.0.1 user=damone password='%s x' sslmode=bogus"},
		{"key=value with spaces around = and an open quote", "host=127.0.0.1 user=damone password = %s dbname='damone"},
		{"URL with a bad escape", "postgres://damone:%s%%zz@127.0.0.1:1/damone"},
	}
	for _, c := range cases {
		for _, byEnv := range []bool{false, true} {
			pw := secretWord(t, "dsnpw")
			dsn := fmt.Sprintf(c.dsn, pw)
			args := []string{"serve", "--store", "postgres", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}
			env := svEnv()
			if byEnv {
				env = svEnv("DAMONE_POSTGRES_DSN=" + dsn)
			} else {
				args = append(args, "--postgres-dsn", dsn)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cmd := exec.CommandContext(ctx, svBin, args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			timedOut := ctx.Err() != nil
			cancel()
			if err == nil || timedOut {
				t.Errorf("%s (env %v): %v, want a failed start\n%s", c.what, byEnv, err, out)
				continue
			}
			if bytes.Contains(out, []byte(pw)) {
				t.Errorf("%s (env %v): the error shows the password:\n%s", c.what, byEnv, out)
			}
			if !bytes.Contains(out, []byte("postgres")) {
				t.Errorf("%s (env %v): the error does not say it is the PostgreSQL store's:\n%s", c.what, byEnv, out)
			}
			t.Logf("%s: %s", c.what, bytes.TrimSpace(out))
		}
	}
}
