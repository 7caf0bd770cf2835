//go:build !race

package ab

// raceEnabled is false without the race detector.
const raceEnabled = false
