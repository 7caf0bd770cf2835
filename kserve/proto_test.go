package kserve

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/perfgate/perfgate/kservepb"
)

func TestAppendRawLayout(t *testing.T) {
	tests := []struct {
		name string
		in   Tensor
		want []byte
	}{
		{"fp32 little-endian", Tensor{Name: "x", Datatype: "FP32", Shape: []int64{2}, Data: Data{Float: []float64{1, -2}}},
			[]byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}},
		{"int16 two's complement", Tensor{Name: "x", Datatype: "INT16", Shape: []int64{2}, Data: Data{Int: []int64{-1, 258}}},
			[]byte{0xff, 0xff, 2, 1}},
		{"uint8", Tensor{Name: "x", Datatype: "UINT8", Shape: []int64{3}, Data: Data{Uint: []uint64{0, 1, 255}}},
			[]byte{0, 1, 255}},
		{"bool one byte each", Tensor{Name: "x", Datatype: "BOOL", Shape: []int64{2}, Data: Data{Bool: []bool{true, false}}},
			[]byte{1, 0}},
		{"bytes length-prefixed", Tensor{Name: "x", Datatype: "BYTES", Shape: []int64{2}, Data: Data{Bytes: [][]byte{[]byte("ab"), {}}}},
			[]byte{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0}},
		{"fp16 one and max", Tensor{Name: "x", Datatype: "FP16", Shape: []int64{2}, Data: Data{Float: []float64{1, 65504}}},
			[]byte{0x00, 0x3c, 0xff, 0x7b}},
		{"bf16 one", Tensor{Name: "x", Datatype: "BF16", Shape: []int64{1}, Data: Data{Float: []float64{1}}},
			[]byte{0x80, 0x3f}},
		{"int64 min", Tensor{Name: "x", Datatype: "INT64", Shape: []int64{1}, Data: Data{Int: []int64{math.MinInt64}}},
			[]byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendRaw(nil, &tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("AppendRaw (-want +got):\n%s", d)
			}
			back, err := DecodeRaw(tt.in.Datatype, tt.in.Shape, got)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.in.Data, back); d != "" {
				t.Errorf("DecodeRaw(AppendRaw) (-want +got):\n%s", d)
			}
		})
	}
}

func TestDecodeRawErrors(t *testing.T) {
	tests := []struct {
		name, dt string
		shape    []int64
		raw      []byte
		want     string
	}{
		{"short fp32", "FP32", []int64{2}, make([]byte, 7), "raw FP32 contents for shape [2]: 7 bytes, want 8"},
		{"bytes truncated length", "BYTES", []int64{1}, []byte{1, 0}, "want a 4-byte length"},
		{"bytes length past end", "BYTES", []int64{1}, []byte{9, 0, 0, 0, 'a'}, "length 9, only 1 bytes left"},
		{"bytes trailing", "BYTES", []int64{1}, []byte{0, 0, 0, 0, 'z'}, "1 bytes left after 1 elements"},
		{"unknown type", "STRING", []int64{1}, nil, `unknown datatype "STRING"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRaw(tt.dt, tt.shape, tt.raw)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("DecodeRaw = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestF16(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want uint16
	}{
		{"zero", 0, 0},
		{"minus two", -2, 0xc000},
		{"smallest subnormal", float32(math.Ldexp(1, -24)), 0x0001},
		{"largest subnormal", float32(math.Ldexp(1023, -24)), 0x03ff},
		{"halfway rounds to even", 1 + float32(math.Ldexp(1, -11)), 0x3c00},
		{"above halfway rounds up", 1 + float32(math.Ldexp(3, -12)), 0x3c01},
		{"overflow to inf", 70000, 0x7c00},
		{"tiny to zero", 1e-10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := F16Bits(tt.in); got != tt.want {
				t.Errorf("F16Bits(%v) = %#04x, want %#04x", tt.in, got, tt.want)
			}
		})
	}
	// Every finite half survives float32 and back.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 {
			continue
		}
		if got := F16Bits(F16Float(uint16(h))); got != uint16(h) {
			t.Fatalf("F16Bits(F16Float(%#04x)) = %#04x", h, got)
		}
	}
}

func TestRequestProtoRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var req InferRequest
	req.ID = "r1"
	req.Parameters = map[string]any{"priority": float64(3), "tag": "x", "flag": true}
	for _, dt := range []string{"BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FP32", "FP64", "BYTES"} {
		tn, err := Random("in_"+dt, dt, []int64{-1, 3}, rng)
		if err != nil {
			t.Fatal(err)
		}
		req.Inputs = append(req.Inputs, tn)
	}
	req.Outputs = []RequestedOutput{{Name: "y"}}
	for _, raw := range []bool{true, false} {
		p, err := RequestToProto("mlp", "1", &req, raw)
		if err != nil {
			t.Fatalf("RequestToProto(raw=%v): %v", raw, err)
		}
		if p.ModelName != "mlp" || p.ModelVersion != "1" {
			t.Errorf("model = %q/%q, want mlp/1", p.ModelName, p.ModelVersion)
		}
		if got := len(p.RawInputContents) > 0; got != raw {
			t.Errorf("raw contents present = %v, want %v", got, raw)
		}
		back, err := RequestFromProto(p)
		if err != nil {
			t.Fatalf("RequestFromProto(raw=%v): %v", raw, err)
		}
		if d := cmp.Diff(&req, back); d != "" {
			t.Errorf("round trip raw=%v (-want +got):\n%s", raw, d)
		}
	}
}

func TestResponseProtoRoundTrip(t *testing.T) {
	resp := &InferResponse{ModelName: "mlp", ID: "7", Outputs: []Tensor{
		{Name: "y", Datatype: "FP32", Shape: []int64{1, 2}, Data: Data{Float: []float64{0.5, -1}}},
		{Name: "label", Datatype: "BYTES", Shape: []int64{1}, Data: Data{Bytes: [][]byte{[]byte("cat")}}},
	}}
	for _, raw := range []bool{true, false} {
		p, err := ResponseToProto(resp, raw)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ResponseFromProto(p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(resp, back); d != "" {
			t.Errorf("round trip raw=%v (-want +got):\n%s", raw, d)
		}
	}
}

func TestProtoErrors(t *testing.T) {
	tests := []struct {
		name string
		req  *kservepb.ModelInferRequest
		want string
	}{
		{"raw count mismatch", &kservepb.ModelInferRequest{
			Inputs:           []*kservepb.ModelInferRequest_InferInputTensor{{Name: "a", Datatype: "FP32", Shape: []int64{1}}},
			RawInputContents: [][]byte{{0, 0, 0, 0}, {}},
		}, "1 inputs but 2 raw_input_contents"},
		{"shape mismatch in contents", &kservepb.ModelInferRequest{
			Inputs: []*kservepb.ModelInferRequest_InferInputTensor{{Name: "a", Datatype: "FP32", Shape: []int64{3},
				Contents: &kservepb.InferTensorContents{Fp32Contents: []float32{1}}}},
		}, `input 0: tensor "a": shape [3] holds 3 elements, data has 1`},
		{"wrong typed field", &kservepb.ModelInferRequest{
			Inputs: []*kservepb.ModelInferRequest_InferInputTensor{{Name: "a", Datatype: "FP32", Shape: []int64{1},
				Contents: &kservepb.InferTensorContents{Int64Contents: []int64{1}}}},
		}, "FP32 contents in the wrong typed field"},
		{"int8 out of range", &kservepb.ModelInferRequest{
			Inputs: []*kservepb.ModelInferRequest_InferInputTensor{{Name: "a", Datatype: "INT8", Shape: []int64{1},
				Contents: &kservepb.InferTensorContents{IntContents: []int32{200}}}},
		}, "200 out of range for INT8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RequestFromProto(tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RequestFromProto = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestMetadataProto(t *testing.T) {
	m := &ModelMetadata{Name: "mlp", Versions: []string{"1"}, Platform: "perfgate",
		Inputs:  []TensorMetadata{{Name: "x", Datatype: "FP32", Shape: []int64{-1, 16}}},
		Outputs: []TensorMetadata{{Name: "y", Datatype: "FP32", Shape: []int64{-1, 4}}}}
	p := MetadataToProto(m)
	want := &kservepb.ModelMetadataResponse{Name: "mlp", Versions: []string{"1"}, Platform: "perfgate",
		Inputs:  []*kservepb.ModelMetadataResponse_TensorMetadata{{Name: "x", Datatype: "FP32", Shape: []int64{-1, 16}}},
		Outputs: []*kservepb.ModelMetadataResponse_TensorMetadata{{Name: "y", Datatype: "FP32", Shape: []int64{-1, 4}}}}
	if d := cmp.Diff(want, p, protocmp.Transform()); d != "" {
		t.Errorf("MetadataToProto (-want +got):\n%s", d)
	}
	if d := cmp.Diff(m, MetadataFromProto(p)); d != "" {
		t.Errorf("MetadataFromProto (-want +got):\n%s", d)
	}
}

func TestRandomRequest(t *testing.T) {
	m := &ModelMetadata{Name: "mlp", Inputs: []TensorMetadata{{Name: "x", Datatype: "FP32", Shape: []int64{-1, 16}}}}
	r, err := RandomRequest(m, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	x := r.Inputs[0]
	if d := cmp.Diff([]int64{1, 16}, x.Shape); d != "" {
		t.Errorf("shape (-want +got):\n%s", d)
	}
	if err := x.Validate(); err != nil {
		t.Error(err)
	}
	for _, v := range x.Data.Float {
		if v < -1 || v >= 1 {
			t.Errorf("element %v outside [-1, 1)", v)
		}
	}
	if _, err := RandomRequest(&ModelMetadata{Name: "empty"}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("RandomRequest of a model without inputs succeeded")
	}
}
