// Command interop runs the language-neutral interop cases
// (clients/interop/cases.json) against a damone server over gRPC, with the
// generated Go code in gen/go, and prints PASS or FAIL for each case.
//
//	go run ./clients/interop/go 127.0.0.1:9090 [clients/interop/cases.json]
//
// It is a generic interpreter of the case file: a method is found by name in
// the registry of the generated messages, requests are read from proto3
// JSON and answers compared as proto3 JSON (clients/interop/README.md). It
// exits 1 if any case failed, 2 if it could not run.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health/grpc_health_v1" // registers grpc.health.v1
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/damone-rules/damone/gen/go/damone/v1" // registers damone.v1
)

const timeout = 30 * time.Second

// The canonical gRPC code names, by number (the names of the case file).
var codeNames = []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
	"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
	"UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

type step struct {
	Kind     string            `json:"kind"`
	ID       string            `json:"id"`
	Method   string            `json:"method"`
	Request  any               `json:"request"`
	Metadata map[string]string `json:"metadata"`
	Save     map[string]string `json:"save"`
	Expect   any               `json:"expect"`
	Error    *wantError        `json:"error"`
}

type wantError struct {
	Code            string            `json:"code"`
	Reason          string            `json:"reason"`
	Metadata        map[string]string `json:"metadata"`
	FieldViolations []string          `json:"field_violations"`
}

type testCase struct {
	Name  string `json:"name"`
	Steps []step `json:"steps"`
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: interop HOST:PORT [CASES_FILE]")
		os.Exit(2)
	}
	file := "clients/interop/cases.json"
	if len(os.Args) == 3 {
		file = os.Args[2]
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		os.Exit(2)
	}
	var cases struct{ Cases []testCase }
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "interop:", file, err)
		os.Exit(2)
	}
	conn, err := grpc.NewClient(os.Args[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		os.Exit(2)
	}
	defer conn.Close()
	run := make([]byte, 8)
	_, _ = rand.Read(run)
	failed := 0
	for _, c := range cases.Cases {
		r := &runner{conn: conn, vars: map[string]string{"run": hex.EncodeToString(run)}, streams: map[string]chan streamResult{}}
		if err := r.runCase(c); err != nil {
			failed++
			fmt.Printf("FAIL %s: %v\n", c.Name, err)
		} else {
			fmt.Printf("PASS %s\n", c.Name)
		}
	}
	fmt.Printf("%d passed, %d failed\n", len(cases.Cases)-failed, failed)
	if failed > 0 || len(cases.Cases) == 0 {
		os.Exit(1)
	}
}

type streamResult struct {
	messages []any
	err      error
}

type runner struct {
	conn    *grpc.ClientConn
	vars    map[string]string
	streams map[string]chan streamResult
}

func (r *runner) runCase(c testCase) error {
	for i, s := range c.Steps {
		if err := r.runStep(s); err != nil {
			return fmt.Errorf("step %d (%s %s): %w", i+1, s.Kind, s.Method, err)
		}
	}
	return nil
}

func (r *runner) runStep(s step) error {
	switch s.Kind {
	case "call":
		ctx, cancel, req, resp, err := r.prepare(s)
		if err != nil {
			return err
		}
		defer cancel()
		if err := r.conn.Invoke(ctx, "/"+s.Method, req, resp); err != nil {
			return r.checkError(s.Error, err)
		}
		if s.Error != nil {
			return fmt.Errorf("succeeded; want %s", s.Error.Code)
		}
		got, err := toJSON(resp)
		if err != nil {
			return err
		}
		if s.Expect != nil { // no expect: only success is checked
			if err := r.match(s.Expect, got, true, "answer"); err != nil {
				return err
			}
		}
		return r.save(s.Save, got)
	case "stream":
		return r.checkStream(s, r.stream(s))
	case "start_stream":
		done := make(chan streamResult, 1)
		r.streams[s.ID] = done
		go func() { done <- r.stream(s) }()
		return nil
	case "await_stream":
		done, ok := r.streams[s.ID]
		if !ok {
			return fmt.Errorf("no stream %q was started", s.ID)
		}
		select {
		case res := <-done:
			return r.checkStream(s, res)
		case <-time.After(timeout):
			return fmt.Errorf("stream %q did not end within %v", s.ID, timeout)
		}
	default:
		return fmt.Errorf("unknown step kind %q", s.Kind)
	}
}

// prepare finds the method and builds its request and call context.
func (r *runner) prepare(s step) (context.Context, context.CancelFunc, proto.Message, proto.Message, error) {
	svc, method, ok := strings.Cut(s.Method, "/")
	if !ok {
		return nil, nil, nil, nil, fmt.Errorf("method %q is not SERVICE/METHOD", s.Method)
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc + "." + method))
	md, isMethod := d.(protoreflect.MethodDescriptor)
	if err != nil || !isMethod {
		return nil, nil, nil, nil, fmt.Errorf("no method %s in the generated code", s.Method)
	}
	in, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	if err != nil {
		return nil, nil, nil, nil, err
	}
	out, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if err != nil {
		return nil, nil, nil, nil, err
	}
	reqJSON, err := r.subst(s.Request)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	b, err := json.Marshal(reqJSON)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	req := in.New().Interface()
	if err := protojson.Unmarshal(b, req); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("request: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	for k, v := range s.Metadata {
		val, err := r.substString(v)
		if err != nil {
			cancel()
			return nil, nil, nil, nil, err
		}
		ctx = metadata.AppendToOutgoingContext(ctx, k, val)
	}
	return ctx, cancel, req, out.New().Interface(), nil
}

func (r *runner) stream(s step) streamResult {
	ctx, cancel, req, resp, err := r.prepare(s)
	if err != nil {
		return streamResult{err: fmt.Errorf("setup: %w", err)}
	}
	defer cancel()
	st, err := r.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/"+s.Method)
	if err == nil {
		err = st.SendMsg(req)
	}
	if err == nil {
		err = st.CloseSend()
	}
	var res streamResult
	for err == nil {
		msg := resp.ProtoReflect().New().Interface()
		if err = st.RecvMsg(msg); err == nil {
			j, jerr := toJSON(msg)
			if jerr != nil {
				return streamResult{err: jerr}
			}
			res.messages = append(res.messages, j)
		}
	}
	if !errors.Is(err, io.EOF) {
		res.err = err
	}
	return res
}

func (r *runner) checkStream(s step, res streamResult) error {
	if res.err != nil {
		if strings.HasPrefix(res.err.Error(), "setup: ") {
			return res.err
		}
		if err := r.checkError(s.Error, res.err); err != nil {
			return fmt.Errorf("after %d messages: %w", len(res.messages), err)
		}
	} else if s.Error != nil {
		return fmt.Errorf("stream ended with OK after %d messages; want %s", len(res.messages), s.Error.Code)
	}
	if s.Expect == nil {
		return nil
	}
	return r.match(s.Expect, res.messages, true, "messages")
}

func (r *runner) checkError(want *wantError, err error) error {
	st, _ := status.FromError(err)
	got := fmt.Sprint(st.Code())
	if int(st.Code()) < len(codeNames) {
		got = codeNames[st.Code()]
	}
	if want == nil {
		return fmt.Errorf("failed: %s: %s", got, st.Message())
	}
	if got != want.Code {
		return fmt.Errorf("failed with %s (%s); want %s", got, st.Message(), want.Code)
	}
	if want.Reason == "" {
		return nil
	}
	var infos []*errdetails.ErrorInfo
	var fields []string
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			infos = append(infos, d)
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
		}
	}
	if len(infos) != 1 {
		return fmt.Errorf("%d ErrorInfo details; want 1", len(infos))
	}
	info := infos[0]
	if info.GetDomain() != "damone.v1" || info.GetReason() != want.Reason {
		return fmt.Errorf("ErrorInfo %s/%s; want damone.v1/%s", info.GetDomain(), info.GetReason(), want.Reason)
	}
	if want.Metadata != nil {
		exp := map[string]string{}
		for k, v := range want.Metadata {
			if exp[k], err = r.substString(v); err != nil {
				return err
			}
		}
		got := info.GetMetadata()
		if got == nil {
			got = map[string]string{}
		}
		if !reflect.DeepEqual(exp, got) {
			return fmt.Errorf("ErrorInfo metadata %v; want %v", got, exp)
		}
	}
	if want.FieldViolations != nil && strings.Join(fields, "\n") != strings.Join(want.FieldViolations, "\n") {
		return fmt.Errorf("BadRequest fields %q; want %q", fields, want.FieldViolations)
	}
	return nil
}

func toJSON(m proto.Message) (any, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v)
}

var varRef = regexp.MustCompile(`\$\{([a-z0-9_]+)\}`)

func (r *runner) substString(s string) (string, error) {
	var missing string
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		v, ok := r.vars[name]
		if !ok {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("no variable ${%s}", missing)
	}
	return out, nil
}

func (r *runner) subst(v any) (any, error) {
	switch v := v.(type) {
	case string:
		return r.substString(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			var err error
			if out[i], err = r.subst(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			var err error
			if out[k], err = r.subst(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case nil:
		return map[string]any{}, nil // a missing request is the empty message
	}
	return v, nil
}

func (r *runner) save(paths map[string]string, got any) error {
	for name, path := range paths {
		v := got
		for _, key := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[key]
		}
		switch v := v.(type) {
		case string:
			r.vars[name] = v
		case json.Number:
			r.vars[name] = v.String()
		default:
			return fmt.Errorf("save %s: the answer has no %s", name, path)
		}
	}
	return nil
}

// isDefault: a proto3 JSON value that a printer may leave out.
func isDefault(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == "" || v == "0"
	case json.Number:
		f, _ := v.Float64()
		return f == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// match reports how got differs from want: the fields want names, with
// "<set>" for any value but the default, and a default for an absent one.
func (r *runner) match(want, got any, present bool, path string) error {
	if s, ok := want.(string); ok && s == "<set>" {
		if !present || isDefault(got) {
			return fmt.Errorf("%s: absent or default; want it set", path)
		}
		return nil
	}
	if !present {
		switch w := want.(type) {
		case map[string]any:
			for k, wv := range w {
				if err := r.match(wv, nil, false, path+"."+k); err != nil {
					return err
				}
			}
			return nil
		default:
			if !isDefault(w) {
				return fmt.Errorf("%s: absent; want %v", path, w)
			}
			return nil
		}
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: %v; want an object", path, got)
		}
		for k, wv := range w {
			gv, ok := g[k]
			if err := r.match(wv, gv, ok, path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: %v; want %d elements %v", path, got, len(w), w)
		}
		for i := range w {
			if err := r.match(w[i], g[i], true, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case string:
		exp, err := r.substString(w)
		if err != nil {
			return err
		}
		if g, ok := got.(string); !ok || g != exp {
			return fmt.Errorf("%s: %v; want %q", path, got, exp)
		}
		return nil
	case json.Number:
		g, ok := got.(json.Number)
		wf, _ := w.Float64()
		gf, _ := g.Float64()
		if !ok || wf != gf {
			return fmt.Errorf("%s: %v; want %v", path, got, w)
		}
		return nil
	case nil:
		if !isDefault(got) {
			return fmt.Errorf("%s: %v; want it unset", path, got)
		}
		return nil
	default:
		if !reflect.DeepEqual(w, got) {
			return fmt.Errorf("%s: %v; want %v", path, got, w)
		}
		return nil
	}
}
