package tinyllm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// The benchmarks give the model's costs on one core (run with
// GOMAXPROCS=1 for the server's setting):
//
//	GOMAXPROCS=1 go test -run '^$' -bench . -benchtime 20x ./refserver/tinyllm/
//
// Prefill reports the time of a whole prompt (TTFT's compute); Decode one
// step for a batch of sequences at 128 positions each, and the tokens per
// CPU second it makes: batching pays when tok/cpu-s grows with the batch.
// Each reports wall time and the process's CPU time: on a shared machine
// the CPU time is the figure to read.
func BenchmarkPrefill(b *testing.B) {
	for _, p := range []Precision{FP32, Int8} {
		m := newModel(b, Config{Seed: 1, Precision: p})
		for _, n := range []int{128, 512} {
			b.Run(fmt.Sprintf("%s/tokens=%d", p, n), func(b *testing.B) {
				prompt := make([]int, n)
				for i := range prompt {
					prompt[i] = (i * 7919) % m.VocabSize()
				}
				logits := make([]float32, m.VocabSize())
				cpu0, _ := processCPU()
				for b.Loop() {
					if err := m.Forward([]Item{{Cache: m.NewCache(), Tokens: prompt, Logits: logits}}); err != nil {
						b.Fatal(err)
					}
				}
				cpu1, _ := processCPU()
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/prefill")
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/prefill")
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, p := range []Precision{FP32, Int8} {
		m := newModel(b, Config{Seed: 1, Precision: p})
		for _, batch := range []int{1, 2, 4, 8, 16, 32} {
			b.Run(fmt.Sprintf("%s/batch=%d", p, batch), func(b *testing.B) {
				items := make([]Item, batch)
				prompt := make([]int, 128)
				for i := range items {
					for k := range prompt {
						prompt[k] = (k*31 + i) % m.VocabSize()
					}
					items[i] = Item{Cache: m.NewCache(), Tokens: prompt}
					if err := m.Forward(items[i : i+1]); err != nil {
						b.Fatal(err)
					}
					items[i].Tokens = []int{i}
					items[i].Logits = make([]float32, m.VocabSize())
				}
				steps := 0
				cpu0, _ := processCPU()
				for b.Loop() {
					if err := m.Forward(items); err != nil {
						b.Fatal(err)
					}
					steps++
					if steps%64 == 0 { // keep the context near 128 positions
						for i := range items {
							truncate(items[i].Cache, items[i].Cache.n-64)
						}
					}
				}
				cpu1, _ := processCPU()
				sec := b.Elapsed().Seconds() / float64(b.N)
				cpu := (cpu1 - cpu0).Seconds() / float64(b.N)
				b.ReportMetric(sec*1e3, "ms/step")
				b.ReportMetric(cpu*1e3, "cpu-ms/step")
				b.ReportMetric(float64(batch)/cpu, "tok/cpu-s")
			})
		}
	}
}

// BenchmarkLinearFP32 compares, for the MLP's up projection (1536 × 384,
// 2.4 MB: in cache, so the figure is the arithmetic's speed), the AVX2
// kernels with gonum (one Sgemv a row below gemmMinRows rows, one Sgemm
// from there: the fallback without AVX2) and with plain Go (dot8, weight
// row by weight row), in multiply-adds per CPU second.
func BenchmarkLinearFP32(b *testing.B) {
	l := newLinear(rand.New(rand.NewPCG(1, 2)), 4*DefaultDim, DefaultDim, 1)
	for _, n := range []int{1, 8, 128} {
		x, y := make([]float32, n*l.in), make([]float32, n*l.out)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		for _, k := range []struct {
			name string
			f    func()
		}{
			{"avx2", func() { l.fma(x, n, y) }},
			{"gonum", func() {
				if n >= gemmMinRows {
					l.gemm(x, n, y)
					return
				}
				for i := 0; i < n; i++ {
					blas32.Gemv(blas.NoTrans, 1, l.w, blas32.Vector{N: l.in, Inc: 1, Data: x[i*l.in : (i+1)*l.in]},
						0, blas32.Vector{N: l.out, Inc: 1, Data: y[i*l.out : (i+1)*l.out]})
				}
			}},
			{"go", func() {
				for j := 0; j < l.out; j++ {
					w := l.w.Data[j*l.in : (j+1)*l.in]
					for i := 0; i < n; i++ {
						y[i*l.out+j] = dot8(w, x[i*l.in:(i+1)*l.in])
					}
				}
			}},
		} {
			if k.name == "avx2" && !hasFMA {
				continue
			}
			b.Run(fmt.Sprintf("rows=%d/%s", n, k.name), func(b *testing.B) {
				cpu0, _ := processCPU()
				for b.Loop() {
					k.f()
				}
				cpu1, _ := processCPU()
				b.ReportMetric(float64(n*l.out*l.in)*float64(b.N)/(cpu1-cpu0).Seconds()/1e9, "GMAC/cpu-s")
			})
		}
	}
}
