module github.com/safereconcile/safereconcile/internal/modproxy

go 1.25.0

require golang.org/x/mod v0.37.0
