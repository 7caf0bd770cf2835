package kserve

// InferRequest is the body of POST /v2/models/{model}/infer.
type InferRequest struct {
	ID         string            `json:"id,omitempty"`
	Parameters map[string]any    `json:"parameters,omitempty"`
	Inputs     []Tensor          `json:"inputs"`
	Outputs    []RequestedOutput `json:"outputs,omitempty"`
}

// RequestedOutput names an output the client wants back.
type RequestedOutput struct {
	Name       string         `json:"name"`
	Parameters map[string]any `json:"parameters,omitempty"`
}

// InferResponse is the body of a successful infer call.
type InferResponse struct {
	ModelName    string         `json:"model_name"`
	ModelVersion string         `json:"model_version,omitempty"`
	ID           string         `json:"id,omitempty"`
	Parameters   map[string]any `json:"parameters,omitempty"`
	Outputs      []Tensor       `json:"outputs"`
}

// Tensor is one input or output tensor in JSON form. Data holds its
// elements in the typed slice of its datatype (see the package doc).
// Marshaling and unmarshaling are custom: see tensorjson.go.
type Tensor struct {
	Name       string
	Datatype   string
	Shape      []int64
	Parameters map[string]any
	Data       Data
}

// Data holds a tensor's elements, row-major, in the one slice that matches
// the tensor's datatype; the others are nil.
type Data struct {
	Float []float64 // FP16, BF16, FP32, FP64
	Int   []int64   // INT8, INT16, INT32, INT64
	Uint  []uint64  // UINT8, UINT16, UINT32, UINT64
	Bool  []bool    // BOOL
	Bytes [][]byte  // BYTES
}

// Len returns the number of elements held, whichever slice holds them.
func (d *Data) Len() int {
	return len(d.Float) + len(d.Int) + len(d.Uint) + len(d.Bool) + len(d.Bytes)
}

// ModelMetadata is the body of GET /v2/models/{model}.
type ModelMetadata struct {
	Name     string           `json:"name"`
	Versions []string         `json:"versions,omitempty"`
	Platform string           `json:"platform"`
	Inputs   []TensorMetadata `json:"inputs"`
	Outputs  []TensorMetadata `json:"outputs"`
}

// TensorMetadata describes one input or output of a model. A dimension of
// -1 in Shape is variable (for example the batch dimension).
type TensorMetadata struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// ErrorResponse is the body of a failed KServe call (any non-200 status).
type ErrorResponse struct {
	Error string `json:"error"`
}

// ServerReady is the optional body of GET /v2/health/ready.
type ServerReady struct {
	Ready bool `json:"ready"`
}

// ServerLive is the optional body of GET /v2/health/live.
type ServerLive struct {
	Live bool `json:"live"`
}
