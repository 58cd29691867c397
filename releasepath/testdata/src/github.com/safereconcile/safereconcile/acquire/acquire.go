// Package acquire stands in for safereconcile's acquire: the same names and signatures.
package acquire

import "context"

type Scope struct{}

func New(ctx context.Context) *Scope                                        { return &Scope{} }
func (s *Scope) End(errp *error)                                            {}
func (s *Scope) Defer(name string, release func(ctx context.Context) error) {}
