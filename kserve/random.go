package kserve

import (
	"fmt"
	"math/rand/v2"
)

// Random returns a tensor of datatype and shape filled from rng: floats
// uniform in [-1, 1), integers uniform over [0, 100) clamped to the type,
// booleans fair, BYTES 8 random lowercase letters. A variable dimension
// (-1, as model metadata writes it) becomes 1.
func Random(name, datatype string, shape []int64, rng *rand.Rand) (Tensor, error) {
	info, err := lookup(datatype)
	if err != nil {
		return Tensor{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	s := make([]int64, len(shape))
	for i, d := range shape {
		s[i] = d
		if d < 0 {
			s[i] = 1
		}
	}
	n, err := NumElements(s)
	if err != nil {
		return Tensor{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	t := Tensor{Name: name, Datatype: datatype, Shape: s}
	switch info.kind {
	case KindFloat:
		t.Data.Float = make([]float64, n)
		for i := range t.Data.Float {
			t.Data.Float[i] = float64(float32(rng.Float64()*2 - 1))
		}
	case KindInt:
		t.Data.Int = make([]int64, n)
		for i := range t.Data.Int {
			t.Data.Int[i] = rng.Int64N(100)
		}
	case KindUint:
		t.Data.Uint = make([]uint64, n)
		for i := range t.Data.Uint {
			t.Data.Uint[i] = rng.Uint64N(100)
		}
	case KindBool:
		t.Data.Bool = make([]bool, n)
		for i := range t.Data.Bool {
			t.Data.Bool[i] = rng.IntN(2) == 1
		}
	case KindBytes:
		t.Data.Bytes = make([][]byte, n)
		for i := range t.Data.Bytes {
			b := make([]byte, 8)
			for j := range b {
				b[j] = byte('a' + rng.IntN(26))
			}
			t.Data.Bytes[i] = b
		}
	}
	return t, nil
}

// RandomRequest builds an infer request with one random tensor per input
// of m (see [Random]).
func RandomRequest(m *ModelMetadata, rng *rand.Rand) (*InferRequest, error) {
	if len(m.Inputs) == 0 {
		return nil, fmt.Errorf("model %q declares no inputs", m.Name)
	}
	r := &InferRequest{Inputs: make([]Tensor, len(m.Inputs))}
	for i, in := range m.Inputs {
		t, err := Random(in.Name, in.Datatype, in.Shape, rng)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", m.Name, err)
		}
		r.Inputs[i] = t
	}
	return r, nil
}
