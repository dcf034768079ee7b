// Package wire is the service's gRPC codec: protobuf, encoded and decoded
// by the reflection-free methods that protoc-gen-go-vtproto generates
// beside the messages (gen/go/damone/v1/*_vtproto.pb.go), falling back to
// the protobuf runtime for every other message (health, reflection,
// errors). The bytes on the wire are the same either way; only the CPU
// spent on them differs.
//
// Importing the package registers the codec under the name "proto", in
// place of gRPC's own, for every server and client in the process.
package wire

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	// gRPC's proto codec registers itself when imported; importing it
	// first makes sure ours, registered in init below, is the one kept.
	grpcproto "google.golang.org/grpc/encoding/proto"
)

// Name is the codec's name, the content-subtype clients send.
const Name = grpcproto.Name

func init() { encoding.RegisterCodecV2(Codec{}) }

// vtMessage is a message with generated fast paths.
type vtMessage interface {
	SizeVT() int
	MarshalToSizedBufferVT(dAtA []byte) (int, error)
	UnmarshalVT(dAtA []byte) error
}

// Marshal encodes m into a new slice of its own (not from gRPC's pool),
// for bytes that are kept and sent many times.
func Marshal(m proto.Message) ([]byte, error) {
	if vm, ok := m.(vtMessage); ok {
		return marshalVT(vm, make([]byte, vm.SizeVT()))
	}
	return proto.Marshal(m)
}

// marshalVT encodes m into b, which is SizeVT() long; generated code
// writes from the end, so the encoding is b's last n bytes.
func marshalVT(m vtMessage, b []byte) ([]byte, error) {
	n, err := m.MarshalToSizedBufferVT(b)
	return b[len(b)-n:], err
}

// Size returns the length of m's protobuf encoding.
func Size(m proto.Message) int {
	if vm, ok := m.(vtMessage); ok {
		return vm.SizeVT()
	}
	return proto.Size(m)
}

// Codec is a gRPC CodecV2 for protobuf messages.
type Codec struct{}

// Marshal encodes v, a protobuf message, into buffers from gRPC's pool
// (returned to it when gRPC frees them).
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(vtMessage)
	if !ok {
		pm, ok := v.(proto.Message)
		if !ok {
			return nil, fmt.Errorf("wire: cannot marshal %T, not a protobuf message", v)
		}
		b, err := proto.Marshal(pm)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	size := m.SizeVT()
	if mem.IsBelowBufferPoolingThreshold(size) {
		b, err := marshalVT(m, make([]byte, size))
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	if _, err := m.MarshalToSizedBufferVT((*buf)[:size]); err != nil {
		pool.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal decodes data into v, a protobuf message. Strings are copied
// out of data, which gRPC reuses once this returns.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	switch m := v.(type) {
	case vtMessage:
		return m.UnmarshalVT(buf.ReadOnlyData())
	case proto.Message:
		return proto.Unmarshal(buf.ReadOnlyData(), m)
	}
	return fmt.Errorf("wire: cannot unmarshal into %T, not a protobuf message", v)
}

// Name returns "proto".
func (Codec) Name() string { return Name }
