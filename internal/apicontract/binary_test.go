package apicontract

// The real binary for the end-to-end contract tests (conformance_test.go,
// numeric_test.go): `damone serve` built once, started on free loopback
// ports, and called the two ways a client calls it: over gRPC through the
// generated descriptors, and over REST through the route damone_http.yaml
// gives the method. A case is written once, as the request message, and
// sent both ways (a case may give the REST body or query as sent, for what
// a message cannot say, such as a number out of int32's range).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/damone-rules/damone/gen/go/damone/v1" // registers the descriptors
)

var (
	buildOnce sync.Once
	binPath   string
	binErr    error
)

// damoneBinary builds cmd/damone once per test run.
func damoneBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test of the damone binary; skipped with -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "damone-apicontract")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "damone")
		if out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/damone").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// binServer is one running `damone serve`.
type binServer struct {
	cmd                *exec.Cmd
	grpcAddr, httpAddr string
	conn               *grpc.ClientConn
	exited             chan struct{}
	waitErr            error
	logMu              sync.Mutex
	log                bytes.Buffer
}

// startBinary starts `damone serve` with the memory store on free ports;
// args come after those settings, so they may override them.
func startBinary(t *testing.T, args ...string) *binServer {
	t.Helper()
	return startBinaryEnv(t, nil, args...)
}

// startBinaryEnv is startBinary with env added to the environment.
func startBinaryEnv(t *testing.T, env []string, args ...string) *binServer {
	t.Helper()
	all := append([]string{"serve", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--metrics-addr", "127.0.0.1:0", "--store", "memory", "--log-format", "json"}, args...)
	s := &binServer{cmd: exec.Command(damoneBinary(t), all...), exited: make(chan struct{})}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DAMONE_") {
			s.cmd.Env = append(s.cmd.Env, kv)
		}
	}
	// No default endgame tables unless a case asks (their background
	// build would cost a core).
	s.cmd.Env = append(append(s.cmd.Env, "DAMONE_EGTB_PIECES=0"), env...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serving := make(chan map[string]any, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.logMu.Lock()
			s.log.Write(sc.Bytes())
			s.log.WriteByte('\n')
			s.logMu.Unlock()
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "serving" {
				select {
				case serving <- m:
				default:
				}
			}
		}
	}()
	go func() {
		<-readDone
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Kill()
			<-s.exited
		}
		if s.conn != nil {
			s.conn.Close()
		}
	})
	select {
	case m := <-serving:
		s.grpcAddr, _ = m["grpc"].(string)
		s.httpAddr, _ = m["http"].(string)
	case <-s.exited:
		t.Fatalf("damone serve exited before serving (%v):\n%s", s.waitErr, s.logText())
	case <-time.After(20 * time.Second):
		t.Fatalf("damone serve logged no \"serving\" line within 20s:\n%s", s.logText())
	}
	s.conn, err = grpc.NewClient(s.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *binServer) logText() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// terminate sends SIGTERM (the server drains and exits).
func (s *binServer) terminate(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// call is one request to one RPC.
type call struct {
	method string        // full name, e.g. damone.v1.RulesService.Perft
	req    proto.Message // the request (of a client stream: its one message)
	auth   string        // the authorization value (gRPC metadata, HTTP header); "" for none
	// REST only: the body or query string as sent, instead of req's.
	restBody  *string
	restQuery *string
	// For a stream that may go on (a game in progress): stop reading after
	// this many messages (0: read to the end).
	maxMsgs int
	// gRPC only: these bytes as the request instead of req (e.g. bytes
	// that do not decode).
	rawGRPC []byte
	// The call's deadline (0: none but the test's): over gRPC the
	// client's, over REST the Grpc-Timeout header the gateway reads.
	timeout time.Duration
}

// rawCodec sends []byte as it is and protobuf messages as protobuf.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	if b, ok := v.([]byte); ok {
		return b, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (rawCodec) Unmarshal(data []byte, v any) error { return proto.Unmarshal(data, v.(proto.Message)) }

func (rawCodec) Name() string { return "proto" }

// answer is what a call got.
type answer struct {
	msgs []proto.Message // the response, or a stream's messages before its end
	st   *status.Status  // gRPC: the status the call ended with
	http int             // REST: the HTTP status
	// REST: the google.rpc.Status JSON of a refusal: the body, or the
	// {"error": ...} line a stream ended with.
	errJSON  []byte
	inStream bool // REST: errJSON came as a stream's {"error"} line
}

func methodDesc(t *testing.T, name string) protoreflect.MethodDescriptor {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		t.Fatalf("method %s: %v", name, err)
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	if !ok {
		t.Fatalf("%s is not a method", name)
	}
	return md
}

func newMessage(t *testing.T, d protoreflect.MessageDescriptor) proto.Message {
	t.Helper()
	mt, err := protoregistry.GlobalTypes.FindMessageByName(d.FullName())
	if err != nil {
		t.Fatal(err)
	}
	return mt.New().Interface()
}

// grpcCall makes c over gRPC.
func (s *binServer) grpcCall(t *testing.T, c call) answer {
	t.Helper()
	md := methodDesc(t, c.method)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c.auth != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", c.auth)
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var req any = c.req
	if c.rawGRPC != nil {
		req = c.rawGRPC
	}
	opts := []grpc.CallOption{grpc.ForceCodec(rawCodec{})}
	path := fmt.Sprintf("/%s/%s", md.Parent().FullName(), md.Name())
	var a answer
	if !md.IsStreamingClient() && !md.IsStreamingServer() {
		out := newMessage(t, md.Output())
		err := s.conn.Invoke(ctx, path, req, out, opts...)
		if a.st = status.Convert(err); err == nil {
			a.st, a.msgs = status.New(codes.OK, ""), []proto.Message{out}
		}
		return a
	}
	stream, err := s.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: md.IsStreamingServer(), ClientStreams: md.IsStreamingClient()}, path, opts...)
	if err != nil {
		a.st = status.Convert(err)
		return a
	}
	if err := stream.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s: send: %v", c.method, err)
	}
	stream.CloseSend()
	for c.maxMsgs == 0 || len(a.msgs) < c.maxMsgs {
		out := newMessage(t, md.Output())
		err := stream.RecvMsg(out)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.st = status.Convert(err)
			return a
		}
		a.msgs = append(a.msgs, out)
	}
	a.st = status.New(codes.OK, "")
	return a
}

var (
	rulesOnce  sync.Once
	rulesByRPC map[string]httpRule
)

// restCall makes c over REST, on the route damone_http.yaml gives.
func (s *binServer) restCall(t *testing.T, c call) answer {
	t.Helper()
	rulesOnce.Do(func() {
		rulesByRPC = map[string]httpRule{}
		for _, r := range loadHTTPRules(t) {
			rulesByRPC[r.Selector] = r
		}
	})
	rule, ok := rulesByRPC[c.method]
	if !ok {
		t.Fatalf("%s has no HTTP rule", c.method)
	}
	md := methodDesc(t, c.method)
	verb, path := "POST", rule.Post
	if rule.Get != "" {
		verb, path = "GET", rule.Get
	}
	fields := map[string]json.RawMessage{}
	if c.req != nil {
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(c.req)
		if err != nil {
			t.Fatalf("%s: the request has no JSON form (%v): give restBody", c.method, err)
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(path, "{name=games/*}") {
		var name string
		json.Unmarshal(fields["name"], &name)
		delete(fields, "name")
		id, ok := strings.CutPrefix(name, "games/")
		if !ok {
			t.Fatalf("%s: name %q does not fit the route %s", c.method, name, path)
		}
		path = strings.Replace(path, "{name=games/*}", "games/"+url.PathEscape(id), 1)
	}
	var body []byte
	switch {
	case c.restBody != nil:
		body = []byte(*c.restBody)
	case verb == "GET" && c.restQuery != nil:
		path += "?" + *c.restQuery
	case verb == "GET":
		q := url.Values{}
		for k, v := range fields {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v) // a number or a bool
			}
			q.Set(k, s)
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
	case rule.Body == "*":
		body, _ = json.Marshal(fields)
	default:
		body = fields[rule.Body]
		if body == nil {
			body = []byte("{}")
		}
	}
	if c.restQuery != nil && verb != "GET" {
		path += "?" + *c.restQuery
	}
	ctype := "application/json"
	if md.IsStreamingClient() {
		ctype, body = "application/x-ndjson", append(body, '\n')
	}
	var rd io.Reader
	if verb == "POST" {
		rd = bytes.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, verb, "http://"+s.httpAddr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if verb == "POST" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if c.timeout > 0 {
		req.Header.Set("Grpc-Timeout", fmt.Sprintf("%dn", c.timeout.Nanoseconds()))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", verb, path, err)
	}
	defer resp.Body.Close()
	return readREST(t, md, c, resp)
}

// rawREST sends a request as given, to no route in particular.
func (s *binServer) rawREST(t *testing.T, method, path, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+s.httpAddr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{http: resp.StatusCode}
	a.errJSON, _ = io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("%s %s: HTTP 200 %s", method, path, a.errJSON)
	}
	return a
}

// readREST reads the answer to a REST call of method md.
func readREST(t *testing.T, md protoreflect.MethodDescriptor, c call, resp *http.Response) answer {
	t.Helper()
	a := answer{http: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		a.errJSON, _ = io.ReadAll(resp.Body)
		return a
	}
	if !md.IsStreamingServer() {
		out := newMessage(t, md.Output())
		b, _ := io.ReadAll(resp.Body)
		if err := unmarshal.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: response %s: %v", c.method, b, err)
		}
		checkSnakeCase(t, b)
		a.msgs = []proto.Message{out}
		return a
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() && (c.maxMsgs == 0 || len(a.msgs) < c.maxMsgs) {
		var line struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || (line.Result == nil) == (line.Error == nil) {
			t.Fatalf("%s: stream line %q: want {\"result\": ...} or {\"error\": ...}", c.method, sc.Text())
		}
		if line.Error != nil {
			a.errJSON, a.inStream = line.Error, true
			return a
		}
		out := newMessage(t, md.Output())
		if err := unmarshal.Unmarshal(line.Result, out); err != nil {
			t.Fatalf("%s: stream result %s: %v", c.method, line.Result, err)
		}
		checkSnakeCase(t, line.Result)
		a.msgs = append(a.msgs, out)
	}
	return a
}

// withToken adds a side token to a call's metadata.
func withToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// violations returns the BadRequest field violations of a gRPC status.
func violations(st *status.Status) []*errdetails.BadRequest_FieldViolation {
	var out []*errdetails.BadRequest_FieldViolation
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			out = append(out, br.GetFieldViolations()...)
		}
	}
	return out
}

// errorInfo returns the ErrorInfo of a gRPC status, or nil.
func errorInfo(st *status.Status) *errdetails.ErrorInfo {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}

// restDescriptions returns the field violations' descriptions of a REST
// status JSON, by field.
func restDescriptions(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var st restStatus
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("status JSON %s: %v", body, err)
	}
	out := map[string]string{}
	for _, d := range st.Details {
		for _, v := range d.FieldViolations {
			out[v.Field] = v.Description
		}
	}
	return out
}
