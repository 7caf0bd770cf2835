package protocol

import (
	"errors"
	"testing"
)

// TestTraitsMatchTheClients checks each declared trait against what New
// does with the protocol: a protocol that needs a model is refused without
// one (Options.Validate), and every listed name is one Validate accepts.
func TestTraitsMatchTheClients(t *testing.T) {
	for _, tr := range All() {
		t.Run(tr.Name, func(t *testing.T) {
			o := Options{Protocol: tr.Name, URL: "http://127.0.0.1:1"}
			if tr.GRPC {
				o.URL = "127.0.0.1:1"
			}
			err := o.Validate()
			if tr.NeedsModel != errors.Is(err, ErrNoModel) {
				t.Errorf("NeedsModel = %v, but Validate without a model = %v", tr.NeedsModel, err)
			}
			o.Model = "m"
			if err := o.Validate(); err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", o, err)
			}
		})
	}
	if _, ok := Lookup("soap"); ok {
		t.Error(`Lookup("soap") found a protocol`)
	}
	if tr, ok := Lookup(""); !ok || tr.Name != HTTP {
		t.Errorf(`Lookup("") = %v, %v; want http`, tr, ok)
	}
}

func TestMetadataPath(t *testing.T) {
	tests := []struct{ protocol, model, want string }{
		{HTTP, "m", ""},
		{KServeHTTP, "mlp", "/v2/models/mlp"},
		{KServeGRPC, "a/b", "/v2/models/a%2Fb"},
		{OpenAI, "tiny-llm", "/v1/models/tiny-llm"},
	}
	for _, tt := range tests {
		tr, _ := Lookup(tt.protocol)
		if got := tr.MetadataPath(tt.model); got != tt.want {
			t.Errorf("%s.MetadataPath(%q) = %q, want %q", tt.protocol, tt.model, got, tt.want)
		}
	}
}
