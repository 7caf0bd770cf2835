package traits

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   string
		wantOK bool
	}{
		{"each listed", OpenAI, OpenAI, true},
		// The config's default protocol is http; "" asks for it.
		{"empty is http", "", HTTP, true},
		{"unknown", "soap", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Lookup(tt.in)
			if got.Name != tt.want || ok != tt.wantOK {
				t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.in, got.Name, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestNames(t *testing.T) {
	want := []string{HTTP, KServeHTTP, KServeGRPC, OpenAI}
	if d := cmp.Diff(want, Names()); d != "" {
		t.Errorf("Names() (-want +got):\n%s", d)
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
