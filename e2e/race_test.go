//go:build race

package e2e

// raceEnabled makes TestMain build clawd with -race too, so the runtime's
// goroutines are checked under real agent traffic.
const raceEnabled = true
