package kserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// tensorJSON is the wire form of a Tensor, with its data left raw until
// the datatype is known (the keys may come in any order). The tags document
// the keys and serve the reference decoder in the tests; scanTensorObject
// fills it in one pass.
type tensorJSON struct {
	Name       string          `json:"name"`
	Datatype   string          `json:"datatype"`
	Shape      []int64         `json:"shape"`
	Parameters map[string]any  `json:"parameters,omitempty"`
	Data       json.RawMessage `json:"data"`
}

// UnmarshalJSON decodes a tensor, flattening nested "data" arrays into the
// slice of its datatype, and validates it (see [Tensor.Validate]): an
// element of the wrong type, out of its datatype's range, or a count that
// does not match the shape is an error naming the tensor.
func (t *Tensor) UnmarshalJSON(b []byte) error {
	var w tensorJSON
	if err := scanTensorObject(b, &w); err != nil {
		return err
	}
	d, err := DecodeData(w.Datatype, w.Shape, w.Data)
	if err != nil {
		return fmt.Errorf("tensor %q: %w", w.Name, err)
	}
	*t = Tensor{Name: w.Name, Datatype: w.Datatype, Shape: w.Shape, Parameters: w.Parameters, Data: d}
	return t.Validate()
}

// DecodeData decodes a JSON array (flat or nested, row-major) of elements
// of datatype. shape only sizes the slice up front; it is not checked here.
// raw must be valid JSON (as json.RawMessage from encoding/json is); an
// empty or null raw yields no elements.
func DecodeData(datatype string, shape []int64, raw []byte) (Data, error) {
	info, err := lookup(datatype)
	if err != nil {
		return Data{}, err
	}
	var d Data
	hint, err := NumElements(shape)
	if err != nil || hint > len(raw) {
		hint = 0 // each element takes at least one byte: never trust a big shape
	}
	switch info.kind {
	case KindFloat:
		d.Float = make([]float64, 0, hint)
	case KindInt:
		d.Int = make([]int64, 0, hint)
	case KindUint:
		d.Uint = make([]uint64, 0, hint)
	case KindBool:
		d.Bool = make([]bool, 0, hint)
	case KindBytes:
		d.Bytes = make([][]byte, 0, hint)
	}
	i := 0
	err = scanArray(raw, func(tok []byte) error {
		if err := d.appendToken(datatype, info, tok); err != nil {
			return fmt.Errorf("data element %d: %w", i, err)
		}
		i++
		return nil
	})
	return d, err
}

func (d *Data) appendToken(datatype string, info dtInfo, tok []byte) error {
	isStr := tok[0] == '"'
	switch {
	case info.kind == KindBytes:
		if !isStr {
			return fmt.Errorf("%s wants a string, got %s", datatype, tok)
		}
		s, err := unquote(tok)
		if err != nil {
			return err
		}
		d.Bytes = append(d.Bytes, s)
		return nil
	case info.kind == KindBool:
		switch string(tok) {
		case "true":
			d.Bool = append(d.Bool, true)
		case "false":
			d.Bool = append(d.Bool, false)
		default:
			return fmt.Errorf("BOOL wants true or false, got %s", tok)
		}
		return nil
	}
	if isStr || tok[0] == 't' || tok[0] == 'f' || tok[0] == 'n' {
		return fmt.Errorf("%s wants a number, got %s", datatype, tok)
	}
	switch info.kind {
	case KindFloat:
		v, err := strconv.ParseFloat(string(tok), 64)
		if err != nil || math.Abs(v) > maxFinite(datatype) {
			return fmt.Errorf("%s out of range for %s", tok, datatype)
		}
		d.Float = append(d.Float, v)
	case KindInt:
		v, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil {
			// Accept integral numbers written as 3.0 or 1e3, as Python clients do.
			f, ferr := strconv.ParseFloat(string(tok), 64)
			if ferr != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
				return fmt.Errorf("%s is not an integer for %s", tok, datatype)
			}
			v = int64(f)
		}
		if err := checkInt(v, info.bits); err != nil {
			return fmt.Errorf("%w for %s", err, datatype)
		}
		d.Int = append(d.Int, v)
	case KindUint:
		v, err := strconv.ParseUint(string(tok), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(tok), 64)
			if ferr != nil || f != math.Trunc(f) || f < 0 || f >= math.MaxUint64 {
				return fmt.Errorf("%s is not an unsigned integer for %s", tok, datatype)
			}
			v = uint64(f)
		}
		if err := checkUint(v, info.bits); err != nil {
			return fmt.Errorf("%w for %s", err, datatype)
		}
		d.Uint = append(d.Uint, v)
	}
	return nil
}

// maxFinite is the largest finite magnitude of a float datatype.
func maxFinite(datatype string) float64 {
	switch datatype {
	case "FP16":
		return 65504
	case "FP32", "BF16":
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// unquote decodes a JSON string token; the common case without escapes
// is a plain copy.
func unquote(tok []byte) ([]byte, error) {
	inner := tok[1 : len(tok)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return append(make([]byte, 0, len(inner)), inner...), nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// errNotArray is returned when "data" is not an array.
var errNotArray = errors.New(`"data" is not an array`)

// scanArray calls elem with each scalar token of the JSON array raw,
// flattening nested arrays depth-first. raw must be valid JSON. Objects
// inside the array are an error.
func scanArray(raw []byte, elem func(tok []byte) error) error {
	i := skipSpace(raw, 0)
	if i == len(raw) || (raw[i] == 'n' && string(raw[i:]) == "null") {
		return nil
	}
	if raw[i] != '[' {
		return errNotArray
	}
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '[' || c == ']' || c == ',' || isSpace(c):
			i++
		case c == '{':
			return errors.New(`"data" holds an object, want scalars`)
		case c == '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(raw) {
				return errors.New("unterminated string in \"data\"")
			}
			if err := elem(raw[i : j+1]); err != nil {
				return err
			}
			i = j + 1
		default:
			j := i
			for j < len(raw) && raw[j] != ',' && raw[j] != ']' && !isSpace(raw[j]) {
				j++
			}
			if err := elem(raw[i:j]); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
