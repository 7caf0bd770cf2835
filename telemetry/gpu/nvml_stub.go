//go:build !linux || !cgo

package gpu

import (
	"fmt"

	"github.com/perfgate/perfgate/result"
)

// Sampler reads every GPU NVML sees. This build has no NVML (it needs
// Linux and cgo), so no Sampler can be opened.
type Sampler struct{}

// Open returns an error wrapping ErrNoGPU: this build has no NVML.
func Open() (*Sampler, error) {
	return nil, fmt.Errorf("%w: perfgate was built without NVML (needs linux and cgo)", ErrNoGPU)
}

// Devices names the open devices: none.
func (s *Sampler) Devices() []Info { return nil }

// Reset does nothing.
func (s *Sampler) Reset() {}

// Sample reads nothing.
func (s *Sampler) Sample() []Sample { return nil }

// Environment returns an error wrapping ErrNoGPU.
func (s *Sampler) Environment() ([]result.GPU, error) { return Environment() }

// Close does nothing.
func (s *Sampler) Close() error { return nil }

// Environment returns an error wrapping ErrNoGPU: this build has no NVML.
func Environment() ([]result.GPU, error) {
	_, err := Open()
	return nil, err
}
