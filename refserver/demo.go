package refserver

import (
	"bytes"
	_ "embed"
)

//go:embed perfgate.yaml
var demoConfig []byte

// DemoConfig returns the layered suite `perfgate demo` runs (perfgate.yaml
// in this folder). Its targets start "{perfgate}", the running binary, as
// `perfgate fixture serve` with each scenario's variant flags.
func DemoConfig() []byte { return bytes.Clone(demoConfig) }
