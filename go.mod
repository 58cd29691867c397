module github.com/safereconcile/safereconcile

go 1.21

require (
	github.com/google/go-cmp v0.7.0
	github.com/stretchr/testify v1.11.1
	github.com/vishvananda/netlink v1.3.1
	go.uber.org/multierr v1.11.0
	golang.org/x/sys v0.10.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/vishvananda/netns v0.0.5 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
