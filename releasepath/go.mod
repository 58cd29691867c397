module github.com/safereconcile/safereconcile/releasepath

go 1.24.0

require (
	github.com/golangci/plugin-module-register v0.1.1
	github.com/stretchr/testify v1.11.1
	golang.org/x/tools v0.38.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/mod v0.29.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
