//go:build !race

package isolate

// raceEnabled reports whether the tests run with the race detector, whose
// shadow memory cannot live under an address-space limit.
const raceEnabled = false
