// Package buildinfo carries the release version, set at link time with
// -ldflags "-X github.com/alternayte/queuebox/pkg/buildinfo.Version=...".
package buildinfo

// Version is the QueueBox release of this binary.
var Version = "0.0.0-dev"
