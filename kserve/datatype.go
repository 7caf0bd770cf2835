package kserve

import (
	"errors"
	"fmt"
	"math"
)

// Kind is the Go slice of Data that holds a datatype's elements.
type Kind int

// The kinds of element storage.
const (
	KindInvalid Kind = iota
	KindFloat        // Data.Float
	KindInt          // Data.Int
	KindUint         // Data.Uint
	KindBool         // Data.Bool
	KindBytes        // Data.Bytes
)

// ErrDatatype is returned (wrapped) for a datatype this package does not know.
var ErrDatatype = errors.New("unknown datatype")

type dtInfo struct {
	kind Kind
	size int // bytes per element in raw contents; 0 for BYTES
	// bits bounds integer datatypes.
	bits int
}

var datatypes = map[string]dtInfo{
	"BOOL":   {KindBool, 1, 0},
	"UINT8":  {KindUint, 1, 8},
	"UINT16": {KindUint, 2, 16},
	"UINT32": {KindUint, 4, 32},
	"UINT64": {KindUint, 8, 64},
	"INT8":   {KindInt, 1, 8},
	"INT16":  {KindInt, 2, 16},
	"INT32":  {KindInt, 4, 32},
	"INT64":  {KindInt, 8, 64},
	"FP16":   {KindFloat, 2, 0},
	"BF16":   {KindFloat, 2, 0},
	"FP32":   {KindFloat, 4, 0},
	"FP64":   {KindFloat, 8, 0},
	"BYTES":  {KindBytes, 0, 0},
}

func lookup(datatype string) (dtInfo, error) {
	info, ok := datatypes[datatype]
	if !ok {
		return dtInfo{}, fmt.Errorf("%w %q", ErrDatatype, datatype)
	}
	return info, nil
}

// KindOf returns the storage kind of datatype, or KindInvalid.
func KindOf(datatype string) Kind { return datatypes[datatype].kind }

// ElementSize returns the bytes per element of datatype in raw contents;
// 0 for BYTES (variable) and for unknown datatypes.
func ElementSize(datatype string) int { return datatypes[datatype].size }

// NumElements returns the product of shape's dimensions. It fails on a
// negative dimension (a variable dimension has no place in a concrete
// tensor) and on overflow.
func NumElements(shape []int64) (int, error) {
	n := int64(1)
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("shape %v: dimension %d is negative", shape, i)
		}
		if d != 0 && n > math.MaxInt32/d {
			return 0, fmt.Errorf("shape %v: too many elements", shape)
		}
		n *= d
	}
	return int(n), nil
}

// Validate checks that t has a name and a known datatype, that its elements
// are in the slice of that datatype and no other, and that the product of
// its shape equals the number of elements.
func (t *Tensor) Validate() error {
	if t.Name == "" {
		return errors.New("tensor has no name")
	}
	info, err := lookup(t.Datatype)
	if err != nil {
		return fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	if got := t.Data.kindHeld(); got != KindInvalid && got != info.kind {
		return fmt.Errorf("tensor %q: %s data held in the wrong slice", t.Name, t.Datatype)
	}
	n, err := NumElements(t.Shape)
	if err != nil {
		return fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	if l := t.Data.Len(); l != n {
		return fmt.Errorf("tensor %q: shape %v holds %d elements, data has %d", t.Name, t.Shape, n, l)
	}
	if info.kind == KindInt || info.kind == KindUint {
		for i := range t.Data.Int {
			if err := checkInt(t.Data.Int[i], info.bits); err != nil {
				return fmt.Errorf("tensor %q: element %d: %w for %s", t.Name, i, err, t.Datatype)
			}
		}
		for i := range t.Data.Uint {
			if err := checkUint(t.Data.Uint[i], info.bits); err != nil {
				return fmt.Errorf("tensor %q: element %d: %w for %s", t.Name, i, err, t.Datatype)
			}
		}
	}
	return nil
}

// kindHeld returns the kind of the one non-empty slice, KindInvalid when
// all are empty, and -1 when several are set.
func (d *Data) kindHeld() Kind {
	k, set := KindInvalid, 0
	if len(d.Float) > 0 {
		k, set = KindFloat, set+1
	}
	if len(d.Int) > 0 {
		k, set = KindInt, set+1
	}
	if len(d.Uint) > 0 {
		k, set = KindUint, set+1
	}
	if len(d.Bool) > 0 {
		k, set = KindBool, set+1
	}
	if len(d.Bytes) > 0 {
		k, set = KindBytes, set+1
	}
	if set > 1 {
		return -1
	}
	return k
}

func checkInt(v int64, bits int) error {
	if bits >= 64 {
		return nil
	}
	lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
	if v < lo || v > hi {
		return fmt.Errorf("%d out of range", v)
	}
	return nil
}

func checkUint(v uint64, bits int) error {
	if bits >= 64 {
		return nil
	}
	if v > uint64(1)<<bits-1 {
		return fmt.Errorf("%d out of range", v)
	}
	return nil
}
