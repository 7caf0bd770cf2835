package protocol

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// preEncoded is a request already marshaled to protobuf bytes. The gRPC
// client marshals its request once and sends these bytes on every call.
type preEncoded []byte

// inferSink receives a ModelInferResponse without decoding it: the codec
// checks the wire format and counts the outputs (field 5), which costs no
// allocation, instead of building the message on every call.
type inferSink struct{ outputs int }

// rawCodec is a gRPC codec for the hot path: preEncoded requests pass
// through unchanged and responses are only checked (inferSink). Any other
// message falls back to the regular proto codec. Its name is "proto", so
// the wire content type is the standard application/grpc+proto.
type rawCodec struct{ fallback encoding.CodecV2 }

func newRawCodec() rawCodec { return rawCodec{fallback: encoding.GetCodecV2("proto")} }

// Name implements encoding.CodecV2.
func (rawCodec) Name() string { return "proto" }

// Marshal implements encoding.CodecV2.
func (c rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.(preEncoded); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return c.fallback.Marshal(v)
}

// Unmarshal implements encoding.CodecV2.
func (c rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	sink, ok := v.(*inferSink)
	if !ok {
		return c.fallback.Unmarshal(data, v)
	}
	var b []byte
	if len(data) == 1 {
		b = data[0].ReadOnlyData()
	} else {
		b = data.Materialize()
	}
	n, err := countOutputs(b)
	sink.outputs = n
	return err
}

var errNoOutputs = errors.New("infer response has no outputs")

// countOutputs walks a ModelInferResponse's top-level fields and counts
// the outputs (field 5), failing on malformed wire data.
func countOutputs(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return n, fmt.Errorf("malformed infer response: %w", protowire.ParseError(l))
		}
		b = b[l:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return n, fmt.Errorf("malformed infer response: %w", protowire.ParseError(m))
		}
		if num == 5 && typ == protowire.BytesType {
			n++
		}
		b = b[m:]
	}
	if n == 0 {
		return 0, errNoOutputs
	}
	return n, nil
}

// encodeRequest marshals a request once for preEncoded.
func encodeRequest(m proto.Message) (preEncoded, error) {
	b, err := proto.Marshal(m)
	return preEncoded(b), err
}
