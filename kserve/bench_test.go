package kserve

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

func benchRequest(b *testing.B, n int64) []byte {
	b.Helper()
	t, err := Random("x", "FP32", []int64{1, n}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	out, err := json.Marshal(&InferRequest{Inputs: []Tensor{t}})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkDecodeRequest decodes a JSON infer request of one FP32 tensor,
// as a server does per call.
func BenchmarkDecodeRequest(b *testing.B) {
	for _, n := range []int64{16, 1024} {
		body := benchRequest(b, n)
		b.Run(fmt.Sprintf("elems=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var r InferRequest
				if err := json.Unmarshal(body, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendJSON encodes a 1024-element FP32 output tensor.
func BenchmarkAppendJSON(b *testing.B) {
	t, _ := Random("y", "FP32", []int64{1, 1024}, rand.New(rand.NewPCG(1, 2)))
	buf := make([]byte, 0, 32<<10)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = t.AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
