package suite

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/protocol"
)

// preflight asks the target, before any load, whether it serves the
// scenario's model (protocol.CheckModel: the OpenAI model list, the
// KServe model's metadata). A model the server says it does not serve is
// a failed run (exit 3) naming the model and the names offered; a check
// that could not be made is logged and the run goes on.
func preflight(ctx context.Context, cfg *config.Plan, s *config.Scenario, base string, o Options) error {
	if !cfg.Inputs[s.Name].Traits.NeedsModel || s.Model == "" {
		return nil
	}
	po := protocol.Options{Protocol: s.Protocol, URL: base, Model: s.Model, Headers: s.Headers}
	if t := s.TLS; t != nil {
		conf, err := protocol.TLSConfig(protocol.TLSFiles{CA: t.CA, Cert: t.Cert, Key: t.Key, ServerName: t.ServerName, Insecure: t.Insecure})
		if err != nil {
			return nil // newClient reports it, as a configuration error
		}
		po.TLS = conf
	}
	note, err := protocol.CheckModel(ctx, po)
	if err != nil {
		return fmt.Errorf("%w: scenario %s: before any load: %v", ErrRunFailed, s.Name, err)
	}
	if note != "" && o.Log != nil {
		fmt.Fprintf(o.Log, "scenario %s: %s\n", s.Name, note)
	}
	return nil
}
