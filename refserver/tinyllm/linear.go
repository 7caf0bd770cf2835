package tinyllm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/perfgate/perfgate/refserver/mlp"
)

// actOffset shifts int8 activations, quantized to [-63, 63], into
// [1, 127], the range of the unsigned operand of the AVX2 kernel that
// takes four rows at once (see linear.int8).
const actOffset = 64

// linear is y = x·Wᵀ for a weight matrix W of out × in (no bias), in fp32
// through gonum or in int8 through package mlp's kernels.
type linear struct {
	out, in int
	w       blas32.General // fp32
	// int8: q ≈ W / scale per row, and Σ_k q[j,k] for the offset.
	q      []int8
	scale  []float32
	rowSum []int32
	dot    func(a, b []int8) int32
	dot4   func(w, x []int8, stride int, out *[4]int32)
}

// newLinear draws W uniformly with variance gain²/in, so a unit-variance
// input gives outputs of variance gain².
func newLinear(r *rand.Rand, out, in int, gain float64) *linear {
	l := &linear{out: out, in: in, w: blas32.General{Rows: out, Cols: in, Stride: in, Data: make([]float32, out*in)}}
	lim := float32(gain * math.Sqrt(3/float64(in)))
	for i := range l.w.Data {
		l.w.Data[i] = (2*r.Float32() - 1) * lim
	}
	return l
}

// quantize turns l into an int8 layer: each row j symmetrically onto
// [-127, 127] with scale max|W[j]| / 127. The fp32 weights are dropped.
func (l *linear) quantize() {
	l.q = make([]int8, l.out*l.in)
	l.scale = make([]float32, l.out)
	l.rowSum = make([]int32, l.out)
	for j := 0; j < l.out; j++ {
		row := l.q[j*l.in : (j+1)*l.in]
		l.scale[j] = quantizeRow(l.w.Data[j*l.in:(j+1)*l.in], row, 127, 0)
		for _, v := range row {
			l.rowSum[j] += int32(v)
		}
	}
	l.w = blas32.General{}
	l.dot, l.dot4 = mlp.Int8Kernels()
}

// bytes is the size of the weights as computed on.
func (l *linear) bytes() int {
	if l.q != nil {
		return len(l.q)
	}
	return 4 * len(l.w.Data)
}

// quantizeRow writes round(v/s) + offset into dst with s = max|v| / lim,
// and returns s (1 for an all-zero row). Branch-free: |v| by its bits
// (the order of non-negative floats is their bits' order), and rounding
// half away from zero by adding ±½ with v's sign before truncating.
func quantizeRow(v []float32, dst []int8, lim float32, offset int8) float32 {
	var abits uint32
	for _, f := range v {
		abits = max(abits, math.Float32bits(f)&0x7fffffff)
	}
	if abits == 0 {
		for k := range dst {
			dst[k] = offset
		}
		return 1
	}
	s := math.Float32frombits(abits) / lim
	inv := 1 / s
	dst = dst[:len(v)]
	for k, f := range v {
		// |f·inv| ≤ lim up to a rounding, so the truncation lands in
		// [−lim, lim] with no clamp.
		r := f * inv
		half := math.Float32frombits(math.Float32bits(r)&0x80000000 | 0x3f000000) // ±½
		dst[k] = int8(int32(r+half)) + offset
	}
	return s
}

// forward sets y (n × out) = x (n × in) · Wᵀ for a batch of n rows: in
// fp32 through gonum (one Sgemm for the batch, or one Sgemv a row below
// gemmMinRows), in int8 in one pass of the AVX2 kernel that reads each
// weight once for every four rows of x.
func (l *linear) forward(x []float32, n int, y []float32, s *scratch) {
	if l.q != nil {
		l.int8(x, n, y, s)
		return
	}
	if l.useFMA() {
		l.fma(x, n, y)
		return
	}
	if n < gemmMinRows {
		for i := 0; i < n; i++ {
			blas32.Gemv(blas.NoTrans, 1, l.w, blas32.Vector{N: l.in, Inc: 1, Data: x[i*l.in : (i+1)*l.in]},
				0, blas32.Vector{N: l.out, Inc: 1, Data: y[i*l.out : (i+1)*l.out]})
		}
		return
	}
	l.gemm(x, n, y)
}

// gemmMinRows is the fp32 batch from which one gonum Sgemm replaces one
// Sgemv a row. gonum's Sgemm cuts the product into 64 × 64 blocks, spawns
// a goroutine for each and calls a 64-element dot product for every
// output of every block (for 4 rows of the 768 × 256 QKV projection, 12
// goroutines and 12,288 calls), where Sgemv is one assembly loop over the
// matrix: below a few dozen rows the calls cost more than reading the
// weights again (BenchmarkLinearFP32). So fp32 batches of fewer rows gain
// nothing from batching; int8 does, through its own kernel.
const gemmMinRows = 32

// gemm is forward as one Sgemm.
func (l *linear) gemm(x []float32, n int, y []float32) {
	xm := blas32.General{Rows: n, Cols: l.in, Stride: l.in, Data: x[:n*l.in]}
	ym := blas32.General{Rows: n, Cols: l.out, Stride: l.out, Data: y[:n*l.out]}
	blas32.Gemm(blas.NoTrans, blas.Trans, 1, xm, l.w, 0, ym)
}

// int8 quantizes each row i of x with its own scale s_x[i] = max|x[i]|/63
// to q_x in [-63, 63] and stores u = q_x + 64 in [1, 127], then
//
//	y[i,j] = s_w[j]·s_x[i]·(Σ_k q[j,k]·u[i,k] − 64·Σ_k q[j,k])
//
// which is s_w[j]·s_x[i]·Σ_k q[j,k]·q_x[i,k], exactly, in int32. Rows go
// four at a time through the kernel that reads each weight once for the
// four (so a batch pays), the rest one at a time through the single-row
// kernel; both give the same integers, so a row's result does not depend
// on the batch it is in. Output channels are split across GOMAXPROCS
// goroutines when the batch is large enough to be worth it.
func (l *linear) int8(x []float32, n int, y []float32, s *scratch) {
	u, sx := s.quant(n*l.in), s.scales(n)
	for i := 0; i < n; i++ {
		sx[i] = quantizeRow(x[i*l.in:(i+1)*l.in], u[i*l.in:(i+1)*l.in], 63, actOffset)
	}
	procs := runtime.GOMAXPROCS(0)
	if procs == 1 || n*l.out*l.in < 1<<20 {
		l.int8Rows(u, sx, n, y, 0, l.out)
		return
	}
	var wg sync.WaitGroup
	chunk := (l.out + procs - 1) / procs
	for lo := 0; lo < l.out; lo += chunk {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.int8Rows(u, sx, n, y, lo, min(lo+chunk, l.out))
		}()
	}
	wg.Wait()
}

// int8Rows computes output channels [lo, hi) of the int8 product.
func (l *linear) int8Rows(u []int8, sx []float32, n int, y []float32, lo, hi int) {
	in := l.in
	full := n - n%4
	var acc [4]int32
	for j := lo; j < hi; j++ {
		w := l.q[j*in : (j+1)*in]
		sw, off := l.scale[j], actOffset*l.rowSum[j]
		for i := 0; i < full; i += 4 {
			l.dot4(w, u[i*in:(i+4)*in], in, &acc)
			for r := 0; r < 4; r++ {
				y[(i+r)*l.out+j] = float32(acc[r]-off) * sw * sx[i+r]
			}
		}
		for i := full; i < n; i++ {
			y[i*l.out+j] = float32(l.dot(w, u[i*in:(i+1)*in])-off) * sw * sx[i]
		}
	}
}
