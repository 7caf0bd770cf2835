package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/protocol"
)

// TestProtocolTraitsInStep keeps config's list of protocols and what it
// knows of each in step with what package protocol declares.
func TestProtocolTraitsInStep(t *testing.T) {
	if d := cmp.Diff(protocol.Names(), Protocols); d != "" {
		t.Errorf("config.Protocols differs from protocol.Names() (-protocol +config):\n%s", d)
	}
	for _, tr := range protocol.All() {
		got, ok := protocolTraits[tr.Name]
		if !ok {
			t.Errorf("protocolTraits lacks %s", tr.Name)
			continue
		}
		if got.needsModel != tr.NeedsModel || got.grpc != tr.GRPC || got.streaming != tr.Streaming || got.variesInputs != tr.VariesInputs {
			t.Errorf("protocolTraits[%q] = %+v, want those of %+v", tr.Name, got, tr)
		}
	}
	if len(protocolTraits) != len(protocol.All()) {
		t.Errorf("protocolTraits has %d protocols, package protocol %d", len(protocolTraits), len(protocol.All()))
	}
}
