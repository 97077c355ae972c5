// Package deploy holds no code of the product: its tests check the
// deployment files beside it (the Dockerfile, the Kubernetes manifests and
// the Helm chart) against the repository and the documentation, since
// nothing on the build machines can build an image or reach a cluster.
package deploy
