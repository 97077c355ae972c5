//go:build !race

package jsonata

// raceDetector reports that the race detector is on.
const raceDetector = false
