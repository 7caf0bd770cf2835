package kserve

import (
	"fmt"

	"github.com/perfgate/perfgate/kservepb"
)

// RequestToProto converts a JSON infer request for model (and version, may
// be empty) to its protobuf form. With raw true the elements go in
// raw_input_contents (one entry per input, in order), else in each input's
// typed contents.
func RequestToProto(model, version string, r *InferRequest, raw bool) (*kservepb.ModelInferRequest, error) {
	params, err := ParamsToProto(r.Parameters)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	p := &kservepb.ModelInferRequest{ModelName: model, ModelVersion: version, Id: r.ID, Parameters: params}
	for i := range r.Inputs {
		t := &r.Inputs[i]
		if raw {
			in, b, err := TensorToProto(t)
			if err != nil {
				return nil, fmt.Errorf("input %d: %w", i, err)
			}
			p.Inputs = append(p.Inputs, in)
			p.RawInputContents = append(p.RawInputContents, b)
		} else {
			in, err := TensorToContents(t)
			if err != nil {
				return nil, fmt.Errorf("input %d: %w", i, err)
			}
			p.Inputs = append(p.Inputs, in)
		}
	}
	for _, o := range r.Outputs {
		op, err := ParamsToProto(o.Parameters)
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", o.Name, err)
		}
		p.Outputs = append(p.Outputs, &kservepb.ModelInferRequest_InferRequestedOutputTensor{Name: o.Name, Parameters: op})
	}
	return p, nil
}

// RequestFromProto converts a protobuf infer request to its JSON form,
// reading raw_input_contents when present (it must then have one entry per
// input) and typed contents otherwise.
func RequestFromProto(p *kservepb.ModelInferRequest) (*InferRequest, error) {
	hasRaw := len(p.RawInputContents) > 0
	if hasRaw && len(p.RawInputContents) != len(p.Inputs) {
		return nil, fmt.Errorf("request has %d inputs but %d raw_input_contents", len(p.Inputs), len(p.RawInputContents))
	}
	r := &InferRequest{ID: p.Id, Parameters: ParamsFromProto(p.Parameters), Inputs: make([]Tensor, len(p.Inputs))}
	for i, in := range p.Inputs {
		var raw []byte
		if hasRaw {
			raw = p.RawInputContents[i]
		}
		t, err := tensorFromProto(in.Name, in.Datatype, in.Shape, in.Parameters, in.Contents, raw, hasRaw)
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		r.Inputs[i] = t
	}
	for _, o := range p.Outputs {
		r.Outputs = append(r.Outputs, RequestedOutput{Name: o.Name, Parameters: ParamsFromProto(o.Parameters)})
	}
	return r, nil
}

// ResponseToProto converts a JSON infer response to its protobuf form, with
// the elements in raw_output_contents when raw is true, else typed contents.
func ResponseToProto(r *InferResponse, raw bool) (*kservepb.ModelInferResponse, error) {
	params, err := ParamsToProto(r.Parameters)
	if err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	p := &kservepb.ModelInferResponse{ModelName: r.ModelName, ModelVersion: r.ModelVersion, Id: r.ID, Parameters: params}
	for i := range r.Outputs {
		t := &r.Outputs[i]
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		tp, err := ParamsToProto(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		out := &kservepb.ModelInferResponse_InferOutputTensor{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape, Parameters: tp}
		if raw {
			b, err := AppendRaw(nil, t)
			if err != nil {
				return nil, fmt.Errorf("output %d: %w", i, err)
			}
			p.RawOutputContents = append(p.RawOutputContents, b)
		} else if out.Contents, err = ToContents(t); err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		p.Outputs = append(p.Outputs, out)
	}
	return p, nil
}

// ResponseFromProto converts a protobuf infer response to its JSON form.
func ResponseFromProto(p *kservepb.ModelInferResponse) (*InferResponse, error) {
	hasRaw := len(p.RawOutputContents) > 0
	if hasRaw && len(p.RawOutputContents) != len(p.Outputs) {
		return nil, fmt.Errorf("response has %d outputs but %d raw_output_contents", len(p.Outputs), len(p.RawOutputContents))
	}
	r := &InferResponse{ModelName: p.ModelName, ModelVersion: p.ModelVersion, ID: p.Id,
		Parameters: ParamsFromProto(p.Parameters), Outputs: make([]Tensor, len(p.Outputs))}
	for i, o := range p.Outputs {
		var raw []byte
		if hasRaw {
			raw = p.RawOutputContents[i]
		}
		t, err := tensorFromProto(o.Name, o.Datatype, o.Shape, o.Parameters, o.Contents, raw, hasRaw)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		r.Outputs[i] = t
	}
	return r, nil
}

// MetadataToProto converts model metadata to its protobuf form.
func MetadataToProto(m *ModelMetadata) *kservepb.ModelMetadataResponse {
	conv := func(ts []TensorMetadata) []*kservepb.ModelMetadataResponse_TensorMetadata {
		out := make([]*kservepb.ModelMetadataResponse_TensorMetadata, len(ts))
		for i, t := range ts {
			out[i] = &kservepb.ModelMetadataResponse_TensorMetadata{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape}
		}
		return out
	}
	return &kservepb.ModelMetadataResponse{Name: m.Name, Versions: m.Versions, Platform: m.Platform,
		Inputs: conv(m.Inputs), Outputs: conv(m.Outputs)}
}

// MetadataFromProto converts protobuf model metadata to its JSON form.
func MetadataFromProto(p *kservepb.ModelMetadataResponse) *ModelMetadata {
	conv := func(ts []*kservepb.ModelMetadataResponse_TensorMetadata) []TensorMetadata {
		out := make([]TensorMetadata, len(ts))
		for i, t := range ts {
			out[i] = TensorMetadata{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape}
		}
		return out
	}
	return &ModelMetadata{Name: p.Name, Versions: p.Versions, Platform: p.Platform,
		Inputs: conv(p.Inputs), Outputs: conv(p.Outputs)}
}
