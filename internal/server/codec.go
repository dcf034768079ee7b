package server

import (
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

func (c codec) Unmarshal(data mem.BufferSlice, v any) error { return c.proto.Unmarshal(data, v) }

func (c codec) Name() string { return c.proto.Name() }
