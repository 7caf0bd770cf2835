package mlp

import (
	"fmt"
	"testing"
)

// The forward benchmarks compare precisions side by side at batch 1
// (latency at concurrency 1: memory-bound, int8 moves a quarter of the
// bytes) and per item at batch 32 (one matrix product for the batch):
//
//	go test -run '^$' -bench 'Forward(FP32|Int8)$' -count 5 ./refserver/mlp/
func benchForward(b *testing.B, p Precision, pureGo bool) {
	m := model(b, Config{Seed: 1, Precision: p, PureGo: pureGo})
	for _, batch := range []int{1, 32} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			x := input(1, batch*DefaultIn)
			y := make([]float32, batch*DefaultOut)
			for b.Loop() {
				if err := m.Forward(x, batch, y); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*batch), "µs/item")
		})
	}
}

func BenchmarkForwardFP32(b *testing.B)       { benchForward(b, FP32, false) }
func BenchmarkForwardInt8(b *testing.B)       { benchForward(b, Int8, false) }
func BenchmarkForwardInt8PureGo(b *testing.B) { benchForward(b, Int8, true) }
