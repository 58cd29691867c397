// Package v0202 runs the conformance test of package upstream against the real
// k8s.io/legacy-cloud-providers v0.20.2 (Kubernetes v1.20.2). It is a module of its own so
// that its build list holds that version; test it with GOWORK=off.
package v0202
