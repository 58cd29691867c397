package acquire

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The canceller key is read off this Go's context package, so releases detach without an
// allocation; releasectx_test.go holds the behaviour that depends on it.
func TestCancellerKeyIsFound(t *testing.T) {
	require.NotNil(t, cancellerKey, "the context package no longer asks Value for its canceller in context.Cause: releases detach with context.WithoutCancel")
}

// Without the key, a scope detaches with context.WithoutCancel, and releases see the same.
func TestReleaseContextWithoutCancellerKey(t *testing.T) {
	saved := cancellerKey
	cancellerKey = nil
	defer func() { cancellerKey = saved }()

	type key struct{}
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
	cancel(errors.New("reconcile cancelled"))
	var err, cause error
	var value any
	s := New(parent)
	s.Defer("address/a", func(ctx context.Context) error {
		err, cause, value = ctx.Err(), context.Cause(ctx), ctx.Value(key{})
		return nil
	})
	s.End(nil)
	assert.NoError(t, err)
	assert.NoError(t, cause)
	assert.Equal(t, "v", value)
}

// A release that derives a context per call, in a loop, leaves nothing registered behind.
func TestDerivingInALoopDoesNotGrowTheReleaseContext(t *testing.T) {
	var c releaseCtx
	c.start(context.Background(), time.Hour)
	for i := 0; i < 1000; i++ {
		d, cancel := context.WithTimeout(&c, time.Minute)
		_ = d
		cancel()
	}
	c.mu.Lock()
	n, capacity := len(c.after), cap(c.after)
	c.mu.Unlock()
	assert.Zero(t, n)
	assert.LessOrEqual(t, capacity, 1, "the one inline slot serves every call")
	c.end()
}
