package kserve

import (
	"encoding/binary"
	"fmt"
	"math"
)

// AppendRaw appends t's elements to b in the raw_input_contents layout:
// row-major, little-endian, ElementSize bytes each (BOOL as one byte 0 or
// 1, FP16 and BF16 rounded to nearest even), and for BYTES each element as
// a 4-byte little-endian length followed by its bytes.
func AppendRaw(b []byte, t *Tensor) ([]byte, error) {
	info, err := lookup(t.Datatype)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	le := binary.LittleEndian
	switch t.Datatype {
	case "FP64":
		for _, v := range t.Data.Float {
			b = le.AppendUint64(b, math.Float64bits(v))
		}
	case "FP32":
		for _, v := range t.Data.Float {
			b = le.AppendUint32(b, math.Float32bits(float32(v)))
		}
	case "FP16":
		for _, v := range t.Data.Float {
			b = le.AppendUint16(b, F16Bits(float32(v)))
		}
	case "BF16":
		for _, v := range t.Data.Float {
			b = le.AppendUint16(b, BF16Bits(float32(v)))
		}
	case "BOOL":
		for _, v := range t.Data.Bool {
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	case "BYTES":
		for _, v := range t.Data.Bytes {
			b = le.AppendUint32(b, uint32(len(v)))
			b = append(b, v...)
		}
	default:
		for _, v := range t.Data.Int {
			b = appendUint(b, uint64(v), info.size)
		}
		for _, v := range t.Data.Uint {
			b = appendUint(b, v, info.size)
		}
	}
	return b, nil
}

func appendUint(b []byte, v uint64, size int) []byte {
	le := binary.LittleEndian
	switch size {
	case 1:
		return append(b, byte(v))
	case 2:
		return le.AppendUint16(b, uint16(v))
	case 4:
		return le.AppendUint32(b, uint32(v))
	}
	return le.AppendUint64(b, v)
}

// DecodeRaw decodes raw contents of a tensor of datatype and shape (the
// layout of [AppendRaw]). The byte count must match the shape exactly.
func DecodeRaw(datatype string, shape []int64, raw []byte) (Data, error) {
	info, err := lookup(datatype)
	if err != nil {
		return Data{}, err
	}
	n, err := NumElements(shape)
	if err != nil {
		return Data{}, err
	}
	var d Data
	le := binary.LittleEndian
	if info.kind == KindBytes {
		d.Bytes = make([][]byte, 0, min(n, len(raw)/4))
		for i := 0; i < n; i++ {
			if len(raw) < 4 {
				return Data{}, fmt.Errorf("raw BYTES element %d: %d bytes left, want a 4-byte length", i, len(raw))
			}
			l := le.Uint32(raw)
			raw = raw[4:]
			if uint64(l) > uint64(len(raw)) {
				return Data{}, fmt.Errorf("raw BYTES element %d: length %d, only %d bytes left", i, l, len(raw))
			}
			d.Bytes = append(d.Bytes, append(make([]byte, 0, l), raw[:l]...))
			raw = raw[l:]
		}
		if len(raw) != 0 {
			return Data{}, fmt.Errorf("raw BYTES: %d bytes left after %d elements", len(raw), n)
		}
		return d, nil
	}
	if want := n * info.size; len(raw) != want {
		return Data{}, fmt.Errorf("raw %s contents for shape %v: %d bytes, want %d", datatype, shape, len(raw), want)
	}
	switch info.kind {
	case KindFloat:
		d.Float = make([]float64, n)
		for i := range d.Float {
			switch datatype {
			case "FP64":
				d.Float[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
			case "FP32":
				d.Float[i] = float64(math.Float32frombits(le.Uint32(raw[4*i:])))
			case "FP16":
				d.Float[i] = float64(F16Float(le.Uint16(raw[2*i:])))
			case "BF16":
				d.Float[i] = float64(math.Float32frombits(uint32(le.Uint16(raw[2*i:])) << 16))
			}
		}
	case KindBool:
		d.Bool = make([]bool, n)
		for i := range d.Bool {
			d.Bool[i] = raw[i] != 0
		}
	case KindInt:
		d.Int = make([]int64, n)
		for i := range d.Int {
			u := readUint(raw[i*info.size:], info.size)
			// Sign-extend from the element's width.
			shift := 64 - 8*info.size
			d.Int[i] = int64(u<<shift) >> shift
		}
	case KindUint:
		d.Uint = make([]uint64, n)
		for i := range d.Uint {
			d.Uint[i] = readUint(raw[i*info.size:], info.size)
		}
	}
	return d, nil
}

func readUint(b []byte, size int) uint64 {
	le := binary.LittleEndian
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(le.Uint16(b))
	case 4:
		return uint64(le.Uint32(b))
	}
	return le.Uint64(b)
}

// F16Bits converts f to IEEE 754 half precision, rounding to nearest even;
// values beyond ±65504 become infinities.
func F16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	if b&0x7fffffff > 0x7f800000 {
		return sign | 0x7e00 // NaN
	}
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	if exp >= 31 {
		return sign | 0x7c00
	}
	if exp <= 0 {
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		h := mant >> shift
		rem, halfway := mant&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > halfway || (rem == halfway && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent is correct rounding (up to infinity)
	}
	return sign | uint16(h)
}

// F16Float converts IEEE 754 half precision bits to a float32.
func F16Float(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0:
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	case 31:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// BF16Bits converts f to bfloat16 (the top half of a float32), rounding to
// nearest even.
func BF16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40 // keep it a NaN
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}
