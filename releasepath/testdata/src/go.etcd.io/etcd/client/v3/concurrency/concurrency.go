// Package concurrency stands in for etcd's client/v3/concurrency: a session keeps its lease
// alive until it is closed, or orphaned.
package concurrency

// A Session keeps a lease alive.
type Session struct{ lease int64 }

// NewSession starts keeping a lease alive.
func NewSession(lease int64) (*Session, error) { return &Session{lease: lease}, nil }

// Close ends the keepalive and revokes the lease.
func (s *Session) Close() error { return nil }

// Orphan ends the keepalive and leaves the lease to whoever owns it.
func (s *Session) Orphan() {}

// Lease returns the session's lease.
func (s *Session) Lease() int64 { return s.lease }
