package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/perfgate/perfgate/kserve"
)

// DecodeTensors decodes a KServe payload: an infer request object
// ({"inputs": [...]}) or a bare array of tensors ([{"name": ..., "datatype":
// ..., "shape": ..., "data": ...}]). Every tensor is validated; errors name
// path.
func DecodeTensors(path string, b []byte) (*kserve.InferRequest, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("payload %s: empty", path)
	}
	var req kserve.InferRequest
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &req.Inputs); err != nil {
			return nil, fmt.Errorf("payload %s: %w", path, err)
		}
	} else if err := decodeStrict(trimmed, &req); err != nil {
		return nil, fmt.Errorf("payload %s: %w", path, err)
	}
	if len(req.Inputs) == 0 {
		return nil, fmt.Errorf("payload %s: no inputs", path)
	}
	return &req, nil
}

// decodeStrict decodes one JSON value, rejecting unknown fields and
// trailing data, so a misspelt key is an error rather than ignored.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

// metadataFunc fetches a model's metadata over the client's protocol.
type metadataFunc func(ctx context.Context) (*kserve.ModelMetadata, error)

// defaultRequest builds the request sent when there is no body: one random
// tensor per model input. Shape and Datatype, when given, replace every
// input's shape and datatype; when the metadata cannot be read and a Shape
// is given, one input named "input0" is used (Triton's convention).
//
// list, if not nil, names the models the server serves, for the hint of a
// metadata request answered "not found".
func defaultRequest(ctx context.Context, o *Options, meta metadataFunc, list func(context.Context) []string) (*kserve.InferRequest, error) {
	m, err := meta(ctx)
	if err != nil {
		if hint := metadataHint(ctx, o.Model, err, list); hint != "" && (len(o.Shape) == 0 || refused(err)) {
			return nil, fmt.Errorf("model %q: reading its metadata: %w; %s", o.Model, err, hint)
		}
		if len(o.Shape) == 0 {
			return nil, fmt.Errorf("model %q: no payload given and %w; give a body, or a shape and datatype", o.Model, err)
		}
		m = &kserve.ModelMetadata{Name: o.Model, Inputs: []kserve.TensorMetadata{{Name: "input0", Datatype: "FP32"}}}
	}
	for i := range m.Inputs {
		if len(o.Shape) > 0 {
			m.Inputs[i].Shape = o.Shape
		}
		if o.Datatype != "" {
			m.Inputs[i].Datatype = o.Datatype
		}
		if m.Inputs[i].Datatype == "" {
			m.Inputs[i].Datatype = "FP32"
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	return kserve.RandomRequest(m, rng)
}
