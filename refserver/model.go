package refserver

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/refserver/mlp"
)

// backend computes one batch of a KServe model. forward is called by one
// worker at a time per instance, but by several instances at once, so it
// must be safe for concurrent use.
type backend interface {
	// info describes the model's input and output per item.
	info() modelInfo
	// forward computes batch items: x holds batch × inSize inputs, y
	// receives batch × outSize outputs.
	forward(x []float32, batch int, y []float32) error
}

// modelInfo is what a backend serves: names, per-item shapes and whether
// its timing is simulated.
type modelInfo struct {
	name       string
	platform   string
	input      string
	inShape    []int64 // per item, without the batch dimension
	output     string
	outShape   []int64
	simulated  bool
	inSize     int // product of inShape
	outSize    int
	precision  string
	weightsMiB float64
}

func newInfo(name, platform string, inShape, outShape []int64) modelInfo {
	prod := func(s []int64) int {
		n := 1
		for _, d := range s {
			n *= int(d)
		}
		return n
	}
	return modelInfo{name: name, platform: platform, input: "input", inShape: inShape,
		output: "output", outShape: outShape, inSize: prod(inShape), outSize: prod(outShape)}
}

// newBackend builds the backend o.Model names (o has its defaults).
func newBackend(o Options) (backend, error) {
	prec := mlp.Precision(o.Precision)
	switch o.Model {
	case ModelMLP:
		m, err := mlp.New(mlp.Config{Seed: o.Seed, Precision: prec})
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", o.Model, err)
		}
		return &mlpBackend{m: m, in: newMLPInfo(NameMLP, m, o.Precision)}, nil
	case ModelLarge:
		// A small hidden layer: the model costs tens of microseconds and the
		// 600 KB input's decoding dominates.
		m, err := mlp.New(mlp.Config{Seed: o.Seed, Precision: prec, Hidden: 256})
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", o.Model, err)
		}
		in := newInfo(NameLarge, "perfgate_mlp_pooled", []int64{3, 224, 224}, []int64{mlp.DefaultOut})
		in.precision = o.Precision
		in.weightsMiB = float64(m.WeightBytes()) / (1 << 20)
		return &largeBackend{m: m, in: in}, nil
	case ModelSim:
		in := newInfo(NameSim, "perfgate_sim", []int64{mlp.DefaultIn}, []int64{mlp.DefaultOut})
		// With SimCPU the cost is real computation, not a declared one.
		in.simulated, in.precision = !o.SimCPU, o.Precision
		f := o.precisionFactor()
		if o.SimCPU {
			spinRate() // calibrate before the first request
		}
		return &simBackend{in: in, cpu: o.SimCPU,
			fixed:   time.Duration(float64(o.SimFixed) * f),
			perItem: time.Duration(float64(o.SimPerItem) * f)}, nil
	}
	return nil, fmt.Errorf("model %q: want mlp, sim or large", o.Model)
}

func newMLPInfo(name string, m *mlp.Model, precision string) modelInfo {
	c := m.Config()
	in := newInfo(name, "perfgate_mlp", []int64{int64(c.In)}, []int64{int64(c.Out)})
	in.precision = precision
	in.weightsMiB = float64(m.WeightBytes()) / (1 << 20)
	return in
}

// mlpBackend is the real MLP.
type mlpBackend struct {
	m  *mlp.Model
	in modelInfo
}

func (b *mlpBackend) info() modelInfo { return b.in }

func (b *mlpBackend) forward(x []float32, batch int, y []float32) error {
	return b.m.Forward(x, batch, y)
}

// largeBackend average-pools each 3 × 224 × 224 input into the MLP's 64
// features (contiguous runs of 2352 values: one pass over the input), then
// runs a small MLP.
type largeBackend struct {
	m  *mlp.Model
	in modelInfo
}

func (b *largeBackend) info() modelInfo { return b.in }

func (b *largeBackend) forward(x []float32, batch int, y []float32) error {
	feat := b.m.Config().In
	pooled := make([]float32, batch*feat)
	per := b.in.inSize / feat
	for i := 0; i < batch; i++ {
		item := x[i*b.in.inSize : (i+1)*b.in.inSize]
		for f := 0; f < feat; f++ {
			var s float32
			for _, v := range item[f*per : (f+1)*per] {
				s += v
			}
			pooled[i*feat+f] = s / float32(per)
		}
	}
	return b.m.Forward(pooled, batch, y)
}

// simBackend is the declared cost model: a batch takes
// fixed + perItem × batch (already scaled by precision), spent sleeping,
// and item i's outputs are a deterministic function of its inputs (their
// sum, plus the output index), so clients can check them.
type simBackend struct {
	in             modelInfo
	fixed, perItem time.Duration
	cpu            bool // spend the cost computing (Options.SimCPU)
}

func (b *simBackend) info() modelInfo { return b.in }

// cost is the time one batch of n takes.
func (b *simBackend) cost(n int) time.Duration { return b.fixed + time.Duration(n)*b.perItem }

func (b *simBackend) forward(x []float32, batch int, y []float32) error {
	start := time.Now()
	for i := 0; i < batch; i++ {
		var s float32
		for _, v := range x[i*b.in.inSize : (i+1)*b.in.inSize] {
			s += v
		}
		for j := 0; j < b.in.outSize; j++ {
			y[i*b.in.outSize+j] = s + float32(j)
		}
	}
	if b.cpu {
		spinFor(b.cost(batch))
		return nil
	}
	time.Sleep(time.Until(start.Add(b.cost(batch))))
	return nil
}
