package refserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		wantErr bool
	}{
		{name: "zero value", o: Options{}},
		{name: "defaults", o: DefaultOptions()},
		{name: "batching", o: Options{MaxBatch: 32, BatchWindow: 5 * time.Millisecond, Instances: 2}},
		{name: "unknown model", o: Options{Model: "resnet"}, wantErr: true},
		{name: "unknown precision", o: Options{Precision: "fp16"}, wantErr: true},
		{name: "unknown codec", o: Options{Codec: "xml"}, wantErr: true},
		{name: "negative batch", o: Options{MaxBatch: -1}, wantErr: true},
		{name: "negative window", o: Options{BatchWindow: -time.Millisecond}, wantErr: true},
		{name: "huge queue", o: Options{Queue: 1 << 30}, wantErr: true},
		{name: "negative int8 factor", o: Options{Int8Factor: -1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.o.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("Validate() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// TestZeroMeansDefault checks that every zero field stands for its
// documented default, so Options{} and DefaultOptions() run alike.
func TestZeroMeansDefault(t *testing.T) {
	if d := cmp.Diff(DefaultOptions(), Options{}.withDefaults()); d != "" {
		t.Errorf("Options{}.withDefaults() (-DefaultOptions +got):\n%s", d)
	}
	if _, err := NewServer(Options{Model: "nope"}); err == nil {
		t.Errorf("NewServer with an unknown model: no error")
	}
}
