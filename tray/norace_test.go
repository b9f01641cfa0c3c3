//go:build !race

package tray

// raceOn: this test binary runs under the race detector.
const raceOn = false
