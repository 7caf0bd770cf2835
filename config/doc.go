// Package config reads perfgate.yaml, version 1.
//
// The file is strict: an unknown key, a value of the wrong type, or a
// missing required field is an error of the form
//
//	perfgate.yaml:12: scenarios[1].load.rate: cannot be negative (-5)
//
// naming the file, the line and the key, so that a mistake in CI is fixed
// without guessing. Durations are Go durations ("50ms"); percentages are
// strings with a percent sign ("5%"), stored as fractions (0.05).
//
// Parse reads and checks; Defaults holds the documented defaults that
// Parse applies to fields left out.
package config
