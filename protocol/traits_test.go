package protocol

import (
	"errors"
	"testing"

	"github.com/perfgate/perfgate/protocol/traits"
)

// TestTraitsMatchTheClients checks each declared trait against what New
// does with the protocol: a protocol that needs a model is refused without
// one (Options.Validate), and every listed name is one Validate accepts.
func TestTraitsMatchTheClients(t *testing.T) {
	for _, tr := range traits.All() {
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
}
