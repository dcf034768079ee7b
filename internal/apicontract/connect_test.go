package apicontract

// The third way a client calls the binary: Connect on the HTTP port
// (internal/connectweb), as a browser does, over HTTP/1.1 with
// connect-go's client, the request as protobuf binary.

import (
	"context"
	"errors"
	"net/http"
	"time"

	"connectrpc.com/connect"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"testing"
)

// connectHTTP1 speaks HTTP/1.1 only, like a browser's fetch over http://.
var connectHTTP1 = &http.Client{Transport: &http.Transport{}}

// anyCodec is connect-go's "proto" codec for calls of any method: it sends
// a proto.Message (or []byte as it is) and decodes into a new message of
// the method's output.
type anyCodec struct{ out func() proto.Message }

func (anyCodec) Name() string { return "proto" }

func (anyCodec) Marshal(v any) ([]byte, error) {
	if p, ok := v.(*any); ok {
		v = *p
	}
	if b, ok := v.([]byte); ok {
		return b, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (c anyCodec) Unmarshal(data []byte, v any) error {
	m := c.out()
	if err := proto.Unmarshal(data, m); err != nil {
		return err
	}
	*v.(*any) = m
	return nil
}

// connectCall makes c over Connect. A client-streaming method cannot be
// called on HTTP/1.1 (the caller skips it).
func (s *binServer) connectCall(t *testing.T, c call) answer {
	t.Helper()
	md := methodDesc(t, c.method)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	codec := anyCodec{out: func() proto.Message { return newMessage(t, md.Output()) }}
	client := connect.NewClient[any, any](connectHTTP1, "http://"+s.httpAddr+"/"+string(md.Parent().FullName())+"/"+string(md.Name()),
		connect.WithCodec(codec))
	var msg any = c.req
	if c.rawGRPC != nil {
		msg = c.rawGRPC
	}
	req := connect.NewRequest(&msg)
	if c.auth != "" {
		req.Header().Set("Authorization", c.auth)
	}
	var a answer
	if !md.IsStreamingServer() {
		res, err := client.CallUnary(ctx, req)
		if err != nil {
			a.st = connectStatus(err)
			return a
		}
		a.st, a.msgs = status.New(codes.OK, ""), []proto.Message{(*res.Msg).(proto.Message)}
		return a
	}
	stream, err := client.CallServerStream(ctx, req)
	if err != nil {
		a.st = connectStatus(err)
		return a
	}
	defer stream.Close()
	for (c.maxMsgs == 0 || len(a.msgs) < c.maxMsgs) && stream.Receive() {
		a.msgs = append(a.msgs, (*stream.Msg()).(proto.Message))
	}
	if err := stream.Err(); err != nil {
		a.st = connectStatus(err)
		return a
	}
	a.st = status.New(codes.OK, "")
	return a
}

// connectStatus is the gRPC status a Connect error carries: code, message
// and details.
func connectStatus(err error) *status.Status {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return status.New(codes.Unknown, err.Error())
	}
	p := &spb.Status{Code: int32(ce.Code()), Message: ce.Message()}
	for _, d := range ce.Details() {
		p.Details = append(p.Details, &anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type(), Value: d.Bytes()})
	}
	return status.FromProto(p)
}
