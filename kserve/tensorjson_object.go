package kserve

import (
	"encoding/json"
	"errors"
	"fmt"
)

// scanTensorObject fills w from the JSON object b in one pass: "name" and
// "datatype" as strings, "shape" and "parameters" through encoding/json
// (they are small), and "data" as a sub-slice of b, not copied (DecodeData
// copies what it keeps). Unknown keys are skipped; keys match exactly (the
// protocol's keys are lowercase).
//
// b is trusted to be valid JSON, as encoding/json validates a whole
// document before it calls UnmarshalJSON; the scan stays in bounds on any
// input and fails on what it cannot parse, but it does not re-validate.
// This replaces json.Unmarshal into tensorJSON, which validated and scanned
// the tensor three more times before its data was even parsed.
func scanTensorObject(b []byte, w *tensorJSON) error {
	i := skipSpace(b, 0)
	if string(b[i:]) == "null" {
		return nil // as encoding/json: null leaves the value alone
	}
	if i == len(b) || b[i] != '{' {
		return fmt.Errorf("tensor: want a JSON object, got %.20q", b[i:])
	}
	i++
	for {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		if i >= len(b) {
			return errMalformed
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] != '"' {
			return errMalformed
		}
		kEnd := valueEnd(b, i)
		if kEnd < 0 {
			return errMalformed
		}
		key, err := unquote(b[i:kEnd])
		if err != nil {
			return err
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return errMalformed
		}
		i = skipSpace(b, i+1)
		vEnd := valueEnd(b, i)
		if vEnd < 0 {
			return errMalformed
		}
		val := b[i:vEnd]
		switch string(key) {
		case "name":
			err = stringField(val, &w.Name)
		case "datatype":
			err = stringField(val, &w.Datatype)
		case "shape":
			err = json.Unmarshal(val, &w.Shape)
		case "parameters":
			err = json.Unmarshal(val, &w.Parameters)
		case "data":
			w.Data = val
		}
		if err != nil {
			return fmt.Errorf("tensor %q: %w", key, err)
		}
		i = vEnd
	}
}

var errMalformed = errors.New("tensor: malformed JSON object")

// stringField decodes a JSON string value into *dst; null leaves it alone.
func stringField(val []byte, dst *string) error {
	if string(val) == "null" {
		return nil
	}
	if val[0] != '"' {
		return fmt.Errorf("want a string, got %.20s", val)
	}
	s, err := unquote(val)
	if err != nil {
		return err
	}
	*dst = string(s)
	return nil
}

// valueEnd returns the index just past the JSON value starting at b[i],
// or -1 when there is none (the input ends first).
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := valueEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
