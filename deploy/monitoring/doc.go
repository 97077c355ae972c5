// Package monitoring holds no code: it is the Go module of the tests that
// check the Prometheus rules, the Grafana dashboard and their provisioning
// files in this folder. It is a module of its own so that the Prometheus
// query parser the tests use stays out of every other module's
// dependencies.
package monitoring
