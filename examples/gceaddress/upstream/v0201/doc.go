// Package v0201 runs the conformance test of package upstream against the real
// k8s.io/legacy-cloud-providers v0.20.1 (Kubernetes v1.20.1). It is a module of its own so
// that its build list holds that version; test it with GOWORK=off.
package v0201
