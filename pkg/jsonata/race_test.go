//go:build race

package jsonata

// raceDetector reports that the race detector is on; it slows allocation
// heavy cases by an order of magnitude, so time limits are scaled.
const raceDetector = true
