package sizing

import (
	"bytes"
	"testing"

	goldenfile "github.com/perfgate/perfgate/internal/golden"
)

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) { t.Helper(); goldenfile.Check(t, name, got) }

func TestDNSLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"kserve-int8-batched", "kserve-int8-batched"},
		{"ResNet 50 / FP16", "resnet-50-fp16"},
		{"--", "inference"},
		{string(bytes.Repeat([]byte("a"), 70)), string(bytes.Repeat([]byte("a"), 63))},
	}
	for _, tt := range tests {
		if got := dnsLabel(tt.in); got != tt.want {
			t.Errorf("dnsLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
