//go:build race

package refserver

// raceEnabled: the race detector slows Go code several-fold, unevenly, so
// tests comparing the speed of real computation skip under it.
const raceEnabled = true
