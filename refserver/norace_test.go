//go:build !race

package refserver

const raceEnabled = false
