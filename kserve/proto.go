package kserve

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/kservepb"
)

// TensorToProto returns t as a kservepb input tensor (metadata only) and
// its raw_input_contents bytes. t is validated first.
func TensorToProto(t *Tensor) (*kservepb.ModelInferRequest_InferInputTensor, []byte, error) {
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	params, err := ParamsToProto(t.Parameters)
	if err != nil {
		return nil, nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	raw, err := AppendRaw(nil, t)
	if err != nil {
		return nil, nil, err
	}
	return &kservepb.ModelInferRequest_InferInputTensor{
		Name: t.Name, Datatype: t.Datatype, Shape: t.Shape, Parameters: params,
	}, raw, nil
}

// TensorToContents returns t as a kservepb input tensor with its elements
// in the typed InferTensorContents. FP16 and BF16 have no typed field and
// need raw contents ([TensorToProto]).
func TensorToContents(t *Tensor) (*kservepb.ModelInferRequest_InferInputTensor, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	params, err := ParamsToProto(t.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	c, err := ToContents(t)
	if err != nil {
		return nil, err
	}
	return &kservepb.ModelInferRequest_InferInputTensor{
		Name: t.Name, Datatype: t.Datatype, Shape: t.Shape, Parameters: params, Contents: c,
	}, nil
}

// ToContents puts t's elements in the typed field of its datatype:
// BOOL bool_contents; INT8/16/32 int_contents; INT64 int64_contents;
// UINT8/16/32 uint_contents; UINT64 uint64_contents; FP32 fp32_contents;
// FP64 fp64_contents; BYTES bytes_contents.
func ToContents(t *Tensor) (*kservepb.InferTensorContents, error) {
	c := &kservepb.InferTensorContents{}
	d := &t.Data
	switch t.Datatype {
	case "BOOL":
		c.BoolContents = d.Bool
	case "INT8", "INT16", "INT32":
		c.IntContents = make([]int32, len(d.Int))
		for i, v := range d.Int {
			c.IntContents[i] = int32(v)
		}
	case "INT64":
		c.Int64Contents = d.Int
	case "UINT8", "UINT16", "UINT32":
		c.UintContents = make([]uint32, len(d.Uint))
		for i, v := range d.Uint {
			c.UintContents[i] = uint32(v)
		}
	case "UINT64":
		c.Uint64Contents = d.Uint
	case "FP32":
		c.Fp32Contents = make([]float32, len(d.Float))
		for i, v := range d.Float {
			c.Fp32Contents[i] = float32(v)
		}
	case "FP64":
		c.Fp64Contents = d.Float
	case "BYTES":
		c.BytesContents = d.Bytes
	default:
		return nil, fmt.Errorf("tensor %q: %s has no typed contents field; use raw contents", t.Name, t.Datatype)
	}
	return c, nil
}

// FromContents reads the typed contents of a tensor of datatype. Elements
// in a field that does not belong to datatype are an error, and so are
// values out of the datatype's range.
func FromContents(datatype string, c *kservepb.InferTensorContents) (Data, error) {
	info, err := lookup(datatype)
	if err != nil {
		return Data{}, err
	}
	var d Data
	if c == nil {
		return d, nil
	}
	want := map[string]int{
		"BOOL": 0, "INT8": 1, "INT16": 1, "INT32": 1, "INT64": 2,
		"UINT8": 3, "UINT16": 3, "UINT32": 3, "UINT64": 4, "FP32": 5, "FP64": 6, "BYTES": 7,
	}
	lens := [8]int{len(c.BoolContents), len(c.IntContents), len(c.Int64Contents), len(c.UintContents),
		len(c.Uint64Contents), len(c.Fp32Contents), len(c.Fp64Contents), len(c.BytesContents)}
	field, ok := want[datatype]
	if !ok {
		return Data{}, fmt.Errorf("%s has no typed contents field; want raw contents", datatype)
	}
	for i, l := range lens {
		if l > 0 && i != field {
			return Data{}, fmt.Errorf("%s contents in the wrong typed field", datatype)
		}
	}
	switch field {
	case 0:
		d.Bool = c.BoolContents
	case 1:
		d.Int = make([]int64, len(c.IntContents))
		for i, v := range c.IntContents {
			if err := checkInt(int64(v), info.bits); err != nil {
				return Data{}, fmt.Errorf("element %d: %w for %s", i, err, datatype)
			}
			d.Int[i] = int64(v)
		}
	case 2:
		d.Int = c.Int64Contents
	case 3:
		d.Uint = make([]uint64, len(c.UintContents))
		for i, v := range c.UintContents {
			if err := checkUint(uint64(v), info.bits); err != nil {
				return Data{}, fmt.Errorf("element %d: %w for %s", i, err, datatype)
			}
			d.Uint[i] = uint64(v)
		}
	case 4:
		d.Uint = c.Uint64Contents
	case 5:
		d.Float = make([]float64, len(c.Fp32Contents))
		for i, v := range c.Fp32Contents {
			d.Float[i] = float64(v)
		}
	case 6:
		d.Float = c.Fp64Contents
	case 7:
		d.Bytes = c.BytesContents
	}
	return d, nil
}

// tensorFromProto builds and validates a Tensor from the fields common to
// input and output tensors; raw wins over contents when non-nil.
func tensorFromProto(name, datatype string, shape []int64, params map[string]*kservepb.InferParameter,
	contents *kservepb.InferTensorContents, raw []byte, hasRaw bool) (Tensor, error) {
	var (
		d   Data
		err error
	)
	if hasRaw {
		d, err = DecodeRaw(datatype, shape, raw)
	} else {
		d, err = FromContents(datatype, contents)
	}
	if err != nil {
		return Tensor{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	t := Tensor{Name: name, Datatype: datatype, Shape: shape, Parameters: ParamsFromProto(params), Data: d}
	return t, t.Validate()
}

// ParamsToProto converts JSON parameters to protobuf ones: booleans,
// strings, and integral numbers (as int64). Other values are an error.
func ParamsToProto(m map[string]any) (map[string]*kservepb.InferParameter, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]*kservepb.InferParameter, len(m))
	for k, v := range m {
		p := &kservepb.InferParameter{}
		switch v := v.(type) {
		case bool:
			p.ParameterChoice = &kservepb.InferParameter_BoolParam{BoolParam: v}
		case string:
			p.ParameterChoice = &kservepb.InferParameter_StringParam{StringParam: v}
		case float64:
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return nil, fmt.Errorf("parameter %q: %v is not an integer (protobuf parameters are bool, int64 or string)", k, v)
			}
			p.ParameterChoice = &kservepb.InferParameter_Int64Param{Int64Param: int64(v)}
		case int:
			p.ParameterChoice = &kservepb.InferParameter_Int64Param{Int64Param: int64(v)}
		case int64:
			p.ParameterChoice = &kservepb.InferParameter_Int64Param{Int64Param: v}
		default:
			return nil, fmt.Errorf("parameter %q: unsupported value %v (want bool, integer or string)", k, v)
		}
		out[k] = p
	}
	return out, nil
}

// ParamsFromProto converts protobuf parameters to JSON ones; int64 values
// become float64, as encoding/json would decode them.
func ParamsFromProto(m map[string]*kservepb.InferParameter) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, p := range m {
		switch c := p.GetParameterChoice().(type) {
		case *kservepb.InferParameter_BoolParam:
			out[k] = c.BoolParam
		case *kservepb.InferParameter_Int64Param:
			out[k] = float64(c.Int64Param)
		case *kservepb.InferParameter_StringParam:
			out[k] = c.StringParam
		}
	}
	return out
}
