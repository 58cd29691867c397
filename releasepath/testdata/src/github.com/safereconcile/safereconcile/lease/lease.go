// Package lease stands in for safereconcile's lease: the same names and signatures.
package lease

import "context"

type Lease[T any] struct{ v T }

func New[T any](name string, value T, release func(ctx context.Context, value T) error) *Lease[T] {
	return &Lease[T]{v: value}
}

func (l *Lease[T]) Value() T                          { return l.v }
func (l *Lease[T]) Release(ctx context.Context) error { return nil }
func (l *Lease[T]) Keep()                             {}
