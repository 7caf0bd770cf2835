package kserve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTensorUnmarshal(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Tensor
	}{
		{
			name: "fp32 flat",
			in:   `{"name":"x","datatype":"FP32","shape":[2,2],"data":[1,2.5,-3,4e2]}`,
			want: Tensor{Name: "x", Datatype: "FP32", Shape: []int64{2, 2}, Data: Data{Float: []float64{1, 2.5, -3, 400}}},
		},
		{
			// The spec allows nested row-major data; it is flattened.
			name: "int32 nested",
			in:   `{"name":"x","datatype":"INT32","shape":[2,3],"data":[[1,2,3],[4,5,-6]]}`,
			want: Tensor{Name: "x", Datatype: "INT32", Shape: []int64{2, 3}, Data: Data{Int: []int64{1, 2, 3, 4, 5, -6}}},
		},
		{
			// Keys in any order: data before datatype.
			name: "data first",
			in:   `{"data":[true,false],"shape":[2],"datatype":"BOOL","name":"b"}`,
			want: Tensor{Name: "b", Datatype: "BOOL", Shape: []int64{2}, Data: Data{Bool: []bool{true, false}}},
		},
		{
			name: "bytes with escapes",
			in:   `{"name":"s","datatype":"BYTES","shape":[2],"data":["hi","a\"b\u00e9"]}`,
			want: Tensor{Name: "s", Datatype: "BYTES", Shape: []int64{2}, Data: Data{Bytes: [][]byte{[]byte("hi"), []byte("a\"bé")}}},
		},
		{
			name: "uint8 max and integral float",
			in:   `{"name":"u","datatype":"UINT8","shape":[2],"data":[255, 3.0]}`,
			want: Tensor{Name: "u", Datatype: "UINT8", Shape: []int64{2}, Data: Data{Uint: []uint64{255, 3}}},
		},
		{
			name: "int64 extremes",
			in:   `{"name":"i","datatype":"INT64","shape":[2],"data":[-9223372036854775808,9223372036854775807]}`,
			want: Tensor{Name: "i", Datatype: "INT64", Shape: []int64{2}, Data: Data{Int: []int64{-1 << 63, 1<<63 - 1}}},
		},
		{
			name: "parameters kept",
			in:   `{"name":"p","datatype":"FP64","shape":[1],"parameters":{"k":"v"},"data":[0.1]}`,
			want: Tensor{Name: "p", Datatype: "FP64", Shape: []int64{1}, Parameters: map[string]any{"k": "v"}, Data: Data{Float: []float64{0.1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Tensor
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Unmarshal(%s) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

func TestTensorUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"shape mismatch", `{"name":"x","datatype":"FP32","shape":[2,3],"data":[1,2,3,4,5]}`, `tensor "x": shape [2 3] holds 6 elements, data has 5`},
		{"unknown datatype", `{"name":"x","datatype":"FP8","shape":[1],"data":[1]}`, `tensor "x": unknown datatype "FP8"`},
		{"int8 overflow", `{"name":"x","datatype":"INT8","shape":[1],"data":[300]}`, `data element 0: 300 out of range for INT8`},
		{"negative uint", `{"name":"x","datatype":"UINT16","shape":[1],"data":[-1]}`, `data element 0: -1 is not an unsigned integer for UINT16`},
		{"fractional int", `{"name":"x","datatype":"INT32","shape":[1],"data":[1.5]}`, `1.5 is not an integer for INT32`},
		{"string in fp32", `{"name":"x","datatype":"FP32","shape":[1],"data":["1"]}`, `FP32 wants a number, got "1"`},
		{"null element", `{"name":"x","datatype":"FP32","shape":[2],"data":[1,null]}`, `data element 1: FP32 wants a number, got null`},
		{"number in bytes", `{"name":"x","datatype":"BYTES","shape":[1],"data":[1]}`, `BYTES wants a string, got 1`},
		{"bool as int", `{"name":"x","datatype":"BOOL","shape":[1],"data":[1]}`, `BOOL wants true or false, got 1`},
		{"fp32 overflow", `{"name":"x","datatype":"FP32","shape":[1],"data":[1e39]}`, `1e39 out of range for FP32`},
		{"object data", `{"name":"x","datatype":"FP32","shape":[1],"data":{"a":1}}`, `"data" is not an array`},
		{"object element", `{"name":"x","datatype":"FP32","shape":[1],"data":[{"a":1}]}`, `"data" holds an object`},
		{"negative dim", `{"name":"x","datatype":"FP32","shape":[-1],"data":[1]}`, `dimension 0 is negative`},
		{"no name", `{"datatype":"FP32","shape":[1],"data":[1]}`, `tensor has no name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Tensor
			err := json.Unmarshal([]byte(tt.in), &got)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Unmarshal(%s) = %v, want error containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestTensorMarshal(t *testing.T) {
	tests := []struct {
		name string
		in   Tensor
		want string
	}{
		{"fp32 shortest", Tensor{Name: "x", Datatype: "FP32", Shape: []int64{2}, Data: Data{Float: []float64{float64(float32(0.1)), 1e6}}},
			`{"name":"x","datatype":"FP32","shape":[2],"data":[0.1,1e+06]}`},
		{"bytes escaped", Tensor{Name: "s", Datatype: "BYTES", Shape: []int64{2}, Data: Data{Bytes: [][]byte{[]byte(`a"b`), []byte("ok")}}},
			`{"name":"s","datatype":"BYTES","shape":[2],"data":["a\"b","ok"]}`},
		{"bool", Tensor{Name: "b", Datatype: "BOOL", Shape: []int64{1, 1}, Data: Data{Bool: []bool{true}}},
			`{"name":"b","datatype":"BOOL","shape":[1,1],"data":[true]}`},
		{"uint64 max", Tensor{Name: "u", Datatype: "UINT64", Shape: []int64{1}, Data: Data{Uint: []uint64{1<<64 - 1}}},
			`{"name":"u","datatype":"UINT64","shape":[1],"data":[18446744073709551615]}`},
		{"empty", Tensor{Name: "e", Datatype: "INT8", Shape: []int64{0, 3}},
			`{"name":"e","datatype":"INT8","shape":[0,3],"data":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestTensorMarshalRejectsNaN(t *testing.T) {
	nan := Tensor{Name: "x", Datatype: "FP64", Shape: []int64{1}, Data: Data{Float: []float64{0}}}
	nan.Data.Float[0] = nan.Data.Float[0] / nan.Data.Float[0] // NaN at run time
	if _, err := json.Marshal(nan); err == nil || !strings.Contains(err.Error(), "JSON cannot hold") {
		t.Errorf("Marshal(NaN) = %v, want JSON cannot hold error", err)
	}
}

func TestRequestRoundTrip(t *testing.T) {
	in := `{"id":"1","inputs":[{"name":"a","datatype":"FP32","shape":[1,2],"data":[[0.5,1]]}],"outputs":[{"name":"y"}]}`
	var r InferRequest
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"1","inputs":[{"name":"a","datatype":"FP32","shape":[1,2],"data":[0.5,1]}],"outputs":[{"name":"y"}]}`
	if string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
}
