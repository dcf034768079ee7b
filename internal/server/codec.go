package server

import (
	"fmt"
	"sync"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	// Registers itself as the "proto" codec, so the gateway's client
	// connection and every other client in the process use it too.
	"github.com/damone-rules/damone/internal/wire"
)

// encoded is a message already in its wire form. A live game event goes to
// every watcher of the game; encoding it once and sending the same bytes to
// each saves a protobuf encoding per watcher.
type encoded struct{ wire []byte }

// encode returns m in wire form, for sending with SendMsg.
func encode(m proto.Message) (*encoded, error) {
	b, err := wire.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &encoded{wire: b}, nil
}

// codec is the service's proto codec (package wire) that also sends
// encoded messages as they are, and refuses requests above limit bytes.
type codec struct {
	proto encoding.CodecV2
	limit int
}

func newCodec(limit int) codec { return codec{proto: wire.Codec{}, limit: limit} }

func (c codec) Marshal(v any) (mem.BufferSlice, error) {
	if e, ok := v.(*encoded); ok {
		// A plain slice buffer: gRPC's Free of it returns nothing to a pool,
		// so the bytes stay valid for the other watchers.
		return mem.BufferSlice{mem.SliceBuffer(e.wire)}, nil
	}
	return c.proto.Marshal(v)
}

// Unmarshal decodes a request. A request above the size limit, or one that
// does not decode (the client's fault: INVALID_ARGUMENT), must be answered
// in the error model's terms, but grpc-go reports any codec error as
// INTERNAL and writes it before an interceptor sees the call; so the
// refusal is kept beside the (empty) message instead, and takeRefused
// returns it to the interceptor that answers with it.
func (c codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return c.proto.Unmarshal(data, v)
	}
	if n := data.Len(); c.limit > 0 && n > c.limit {
		refused.Store(m, tooBig(n, c.limit))
		return nil
	}
	if err := c.proto.Unmarshal(data, v); err != nil {
		proto.Reset(m)
		refused.Store(m, invalidStatus("body", fmt.Sprintf("the request is not a valid %s in protobuf binary form: %v",
			m.ProtoReflect().Descriptor().FullName(), err)))
	}
	return nil
}

// refused holds the refusal of each request that could not be read, until
// the interceptor takes it.
var refused sync.Map

// takeRefused returns the refusal of m if it could not be read, and
// forgets it.
func takeRefused(m any) error {
	err, ok := refused.LoadAndDelete(m)
	if !ok {
		return nil
	}
	return err.(error)
}

// tooBig is the refusal of a request of size bytes above the limit.
func tooBig(size, limit int) error {
	return limitExceeded("request_bytes", limit,
		"the request is %d bytes, larger than the server's limit of %d bytes (setting max-request-bytes)", size, limit)
}

// transportMaxFactor sets grpc-go's own receive limit, which it answers
// with a bare status before any handler runs, at this many times the
// service's limit: requests up to it get the error model's refusal from
// Unmarshal, and the memory one call can hold stays bounded.
const transportMaxFactor = 4

func (c codec) Name() string { return c.proto.Name() }
