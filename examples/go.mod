module github.com/safereconcile/safereconcile/examples

go 1.24.0

replace github.com/safereconcile/safereconcile => ../

require (
	k8s.io/api v0.34.2 // indirect
	k8s.io/apimachinery v0.34.2 // indirect
)
