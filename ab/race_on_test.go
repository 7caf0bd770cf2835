//go:build race

package ab

// raceEnabled skips the single-goroutine simulation under the race
// detector, which slows it twentyfold and has nothing to find in it.
const raceEnabled = true
