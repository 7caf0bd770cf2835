package kserve

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// MarshalJSON encodes t with flat "data". It fails on an invalid tensor
// and on NaN or infinite floats, which JSON cannot hold.
func (t Tensor) MarshalJSON() ([]byte, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t.AppendJSON(make([]byte, 0, 64+8*t.Data.Len()))
}

// AppendJSON appends the JSON form of t to b without validating the shape,
// for servers that build many responses. FP32, FP16 and BF16 use the
// shortest decimal that reads back as the same float32.
func (t *Tensor) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = appendString(b, t.Name)
	b = append(b, `,"datatype":`...)
	b = appendString(b, t.Datatype)
	b = append(b, `,"shape":[`...)
	for i, d := range t.Shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	b = append(b, ']')
	if len(t.Parameters) > 0 {
		p, err := json.Marshal(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: parameters: %w", t.Name, err)
		}
		b = append(b, `,"parameters":`...)
		b = append(b, p...)
	}
	b = append(b, `,"data":[`...)
	bits := 64
	if t.Datatype != "FP64" {
		bits = 32
	}
	for i, v := range t.Data.Float {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tensor %q: element %d is %v, which JSON cannot hold", t.Name, i, v)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, v, 'g', -1, bits)
	}
	for i, v := range t.Data.Int {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	for i, v := range t.Data.Uint {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, v, 10)
	}
	for i, v := range t.Data.Bool {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendBool(b, v)
	}
	for i, v := range t.Data.Bytes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(v))
	}
	return append(b, "]}"...), nil
}

// appendString appends s as a JSON string. Plain printable ASCII is copied;
// anything else goes through encoding/json (invalid UTF-8 becomes U+FFFD,
// as JSON requires).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
