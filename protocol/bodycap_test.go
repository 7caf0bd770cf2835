package protocol

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/harness/http1"
)

// A body cut at http1.MaxKeptBody is judged by its start; a shorter body must
// be whole, valid JSON.
func TestIsInferResponseCapped(t *testing.T) {
	capped := append([]byte(`{"outputs":[{"data":["`), bytes.Repeat([]byte("a"), http1.MaxKeptBody)...)[:http1.MaxKeptBody]
	tests := []struct {
		name string
		body []byte
		want bool
	}{
		{"whole", []byte(`{"outputs":[]}`), true},
		{"cut short", []byte(`{"outputs":[{"data":["aaa`), false},
		{"capped infer response", capped, true},
		{"capped other body", bytes.Repeat([]byte("x"), http1.MaxKeptBody), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isInferResponse(tt.body); got != tt.want {
				t.Errorf("isInferResponse(%d bytes) = %v, want %v", len(tt.body), got, tt.want)
			}
		})
	}
}

// copyCapped reads everything, counts it, and keeps http1.MaxKeptBody bytes.
func TestCopyCapped(t *testing.T) {
	var buf bytes.Buffer
	n, err := copyCapped(&buf, strings.NewReader(strings.Repeat("z", http1.MaxKeptBody+1000)))
	if err != nil || n != http1.MaxKeptBody+1000 || buf.Len() != http1.MaxKeptBody {
		t.Errorf("copyCapped = %d, %v, kept %d; want %d read and %d kept", n, err, buf.Len(), http1.MaxKeptBody+1000, http1.MaxKeptBody)
	}
}
