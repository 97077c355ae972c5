package health

import "time"

// SetCheckTimeout shortens the bound of one check for a test.
func SetCheckTimeout(r *Registry, d time.Duration) { r.timeout = d }

// CheckTimeoutOf is the bound a registry applies to each check.
func CheckTimeoutOf(r *Registry) time.Duration { return r.timeout }
