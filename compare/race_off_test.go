//go:build !race

package compare

// raceEnabled is false without the race detector.
const raceEnabled = false
