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
// encoded messages as they are.
type codec struct{ proto encoding.CodecV2 }

func newCodec() codec { return codec{proto: wire.Codec{}} }

func (c codec) Marshal(v any) (mem.BufferSlice, error) {
	if e, ok := v.(*encoded); ok {
		// A plain slice buffer: gRPC's Free of it returns nothing to a pool,
		// so the bytes stay valid for the other watchers.
		return mem.BufferSlice{mem.SliceBuffer(e.wire)}, nil
	}
	return c.proto.Marshal(v)
}

// Unmarshal decodes a request. A request that does not decode is the
// client's fault (INVALID_ARGUMENT), but grpc-go reports any codec error
// as INTERNAL before an interceptor sees the call; so the error is kept
// beside the (empty) message instead, and undecodable turns it into the
// error model's answer.
func (c codec) Unmarshal(data mem.BufferSlice, v any) error {
	if err := c.proto.Unmarshal(data, v); err != nil {
		if m, ok := v.(proto.Message); ok {
			proto.Reset(m)
			undecoded.Store(m, err)
			return nil
		}
		return err
	}
	return nil
}

// undecoded holds the decoding error of each request that did not decode,
// until the interceptor takes it.
var undecoded sync.Map

// takeUndecoded returns the INVALID_ARGUMENT status for m if it did not
// decode, and forgets it.
func takeUndecoded(m any) error {
	err, ok := undecoded.LoadAndDelete(m)
	if !ok {
		return nil
	}
	name := "request"
	if pm, ok := m.(proto.Message); ok {
		name = string(pm.ProtoReflect().Descriptor().FullName())
	}
	return invalidStatus("body", fmt.Sprintf("the request is not a valid %s in protobuf binary form: %v", name, err))
}

func (c codec) Name() string { return c.proto.Name() }
