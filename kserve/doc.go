// Package kserve holds the KServe v2 (Open Inference Protocol) HTTP/JSON
// types and their conversion to and from the gRPC messages of package
// kservepb.
//
// # Model
//
// A [Tensor] is the JSON form of one input or output: a name, a datatype
// ("FP32", "INT64", "BYTES", ...), a shape and its elements. The elements
// are kept in one typed slice of [Data] chosen by the datatype, never as
// []any, so a server can decode a request without boxing every number:
//
//	FP16, BF16, FP32, FP64      -> Data.Float  ([]float64)
//	INT8, INT16, INT32, INT64   -> Data.Int    ([]int64)
//	UINT8, UINT16, UINT32, UINT64 -> Data.Uint ([]uint64)
//	BOOL                        -> Data.Bool   ([]bool)
//	BYTES                       -> Data.Bytes  ([][]byte, JSON strings)
//
// On the wire "data" may be flat or nested (row-major); decoding flattens
// it. Decoding checks that each element fits its datatype (an INT8 of 300
// is an error) and that the product of the shape equals the number of
// elements; see [Tensor.Validate].
//
// # Protobuf
//
// [TensorToProto] turns a Tensor into a kservepb input tensor plus its
// raw_input_contents bytes: little-endian, row-major, fixed width per
// element, BOOL as one byte, and BYTES as a 4-byte little-endian length
// followed by the bytes, element after element (Triton's convention).
// [TensorToContents] fills the typed InferTensorContents instead.
// [TensorFromProto] reads either form back. [RequestToProto],
// [RequestFromProto], [ResponseToProto], [ResponseFromProto],
// [MetadataToProto] and [MetadataFromProto] convert whole messages.
//
// # For servers
//
// Decoding a request with encoding/json validates every tensor
// (Tensor.UnmarshalJSON). [DecodeData] and [DecodeRaw] decode just the
// elements when the caller has the datatype and shape. [Tensor.AppendJSON]
// encodes a response tensor into a reused buffer without allocating.
// [Random] and [RandomRequest] build test inputs from model metadata.
//
// The package depends only on the standard library and kservepb, so both
// the load generator and the reference server can use it.
package kserve
