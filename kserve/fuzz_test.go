package kserve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzTensorJSON checks that the tensor decoder never panics, that what it
// accepts is valid and agrees with encoding/json on the element count, and
// that one encode/decode cycle reaches a fixed point (FP32 may round once).
func FuzzTensorJSON(f *testing.F) {
	for _, s := range []string{
		`{"name":"x","datatype":"FP32","shape":[2,2],"data":[[1,2],[3,4]]}`,
		`{"name":"x","datatype":"INT8","shape":[3],"data":[-128,0,127]}`,
		`{"name":"x","datatype":"UINT64","shape":[1],"data":[18446744073709551615]}`,
		`{"name":"x","datatype":"BOOL","shape":[2],"data":[true,false]}`,
		`{"name":"x","datatype":"BYTES","shape":[2],"data":["a\"\\\u0000","\ud83d\ude00"]}`,
		`{"name":"x","datatype":"FP16","shape":[1],"data":[65504]}`,
		`{"name":"x","datatype":"FP64","shape":[0],"data":[]}`,
		`{"name":"x","datatype":"INT32","shape":[1],"data":null}`,
		`{"name":"x","datatype":"INT64","shape":[1],"data":[1e3]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var direct Tensor
		_ = direct.UnmarshalJSON(in) // on any bytes: errors, never panics
		if json.Valid(in) {
			checkScanMatchesReference(t, in)
		}
		var got Tensor
		if err := json.Unmarshal(in, &got); err != nil {
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("decoded tensor is invalid: %v", err)
		}
		// encoding/json must see the same number of scalars under the key
		// "data", matched exactly (encoding/json's struct fields would also
		// take "DATA"; the protocol's keys are lowercase).
		var ref map[string]any
		if err := json.Unmarshal(in, &ref); err != nil {
			t.Fatalf("encoding/json rejects what the decoder accepted: %v", err)
		}
		if n := countScalars(ref["data"]); n != got.Data.Len() {
			t.Fatalf("decoder found %d elements, encoding/json %d", got.Data.Len(), n)
		}
		once := roundTrip(t, got)
		twice := roundTrip(t, once)
		if d := cmp.Diff(once, twice); d != "" {
			t.Fatalf("encode/decode is not a fixed point (-once +twice):\n%s", d)
		}
		// The raw protobuf layout must round-trip exactly too.
		raw, err := AppendRaw(nil, &once)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeRaw(once.Datatype, once.Shape, raw)
		if err != nil {
			t.Fatalf("DecodeRaw(AppendRaw(%v)): %v", once, err)
		}
		if once.Datatype != "FP16" && once.Datatype != "BF16" && once.Datatype != "FP32" {
			if d := cmp.Diff(once.Data, back); d != "" {
				t.Fatalf("raw round trip (-want +got):\n%s", d)
			}
		}
	})
}

func roundTrip(t *testing.T, in Tensor) Tensor {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("Marshal(%+v): %v", in, err)
	}
	var out Tensor
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("Unmarshal(Marshal) of %s: %v", b, err)
	}
	return out
}

func countScalars(v any) int {
	switch v := v.(type) {
	case nil:
		return 0
	case []any:
		n := 0
		for _, e := range v {
			n += countScalars(e)
		}
		return n
	}
	return 1
}

// FuzzDecodeRaw checks that raw contents never panic the decoder and that
// whatever decodes encodes back to the same bytes (modulo FP16/BF16 NaNs).
func FuzzDecodeRaw(f *testing.F) {
	f.Add("BYTES", int64(2), []byte{1, 0, 0, 0, 'a', 0, 0, 0, 0})
	f.Add("INT16", int64(2), []byte{0xff, 0xff, 1, 0})
	f.Add("FP32", int64(1), []byte{0, 0, 0x80, 0x3f})
	f.Add("BOOL", int64(3), []byte{0, 1, 0})
	f.Fuzz(func(t *testing.T, dt string, n int64, raw []byte) {
		d, err := DecodeRaw(dt, []int64{n}, raw)
		if err != nil {
			return
		}
		tn := Tensor{Name: "x", Datatype: dt, Shape: []int64{n}, Data: d}
		if err := tn.Validate(); err != nil {
			t.Fatalf("decoded raw is invalid: %v", err)
		}
		if dt == "FP16" || dt == "BF16" || dt == "FP32" || dt == "FP64" || dt == "BOOL" {
			return // NaN payloads and non-0/1 bools do not survive, by design
		}
		back, err := AppendRaw(nil, &tn)
		if err != nil {
			t.Fatal(err)
		}
		if string(back) != string(raw) {
			t.Fatalf("AppendRaw(DecodeRaw(%x)) = %x", raw, back)
		}
	})
}

// checkScanMatchesReference compares the one-pass object scanner with
// encoding/json on valid JSON: same fields, or both fail.
func checkScanMatchesReference(t *testing.T, in []byte) {
	t.Helper()
	var got tensorJSON
	gotErr := scanTensorObject(in, &got)
	var want tensorJSON
	wantErr := referenceTensor(in, &want)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("scanTensorObject(%q) error = %v, reference error = %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("scanTensorObject(%q) (-reference +scan):\n%s", in, d)
	}
}

// referenceTensor decodes a tensor object with encoding/json, keys matched
// exactly as the scanner does.
func referenceTensor(in []byte, w *tensorJSON) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(in, &m); err != nil {
		return err
	}
	if m == nil {
		return nil // null
	}
	fields := []struct {
		key string
		dst any
	}{{"name", &w.Name}, {"datatype", &w.Datatype}, {"shape", &w.Shape}, {"parameters", &w.Parameters}}
	for _, f := range fields {
		if v, ok := m[f.key]; ok {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return err
			}
		}
	}
	if v, ok := m["data"]; ok {
		w.Data = bytes.TrimSpace(v)
	}
	return nil
}
