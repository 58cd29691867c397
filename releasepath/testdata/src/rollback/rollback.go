// Package rollback creates a volume and attaches it; a failed attach must delete the volume
// it created, and the function undoes it on one error path but not on the other.
package rollback

import (
	"context"
	"errors"
)

type volume struct{ ID string }

type client struct{}

func (c *client) CreateVolume(ctx context.Context, name string) (*volume, error) {
	return &volume{}, nil
}
func (c *client) DeleteVolume(ctx context.Context, id string) error       { return nil }
func (c *client) AttachVolume(ctx context.Context, id, node string) error { return nil }
func (c *client) CreateSnapshot(ctx context.Context, id string) error     { return nil }

func (c *client) provisionInconsistent(ctx context.Context, name, node string) (*volume, error) {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return nil, err
	}
	if node == "" {
		return nil, errors.New("no node") // want `return may skip c.DeleteVolume \(CreateVolume at line 22\)`
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return nil, err
	}
	return vol, nil // success keeps the volume: a create is meant to outlive the call
}

// provision keeps what it creates on purpose: no rollback anywhere, so nothing to report.
func (c *client) provision(ctx context.Context, name, node string) error {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return err
	}
	return c.AttachVolume(ctx, vol.ID, node)
}

// provisionDeferred rolls back through a deferred closure on a named err.
func (c *client) provisionDeferred(ctx context.Context, name, node string) (vol *volume, err error) {
	vol, err = c.CreateVolume(ctx, name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = c.DeleteVolume(ctx, vol.ID)
		}
	}()
	if node == "" {
		return nil, errors.New("no node")
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		return nil, err
	}
	return vol, nil
}

// provisionLocalErr defers on a local err: a return that builds a new error skips it.
func (c *client) provisionLocalErr(ctx context.Context, name, node string) (*volume, error) {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = c.DeleteVolume(ctx, vol.ID)
		}
	}()
	if node == "" {
		return nil, errors.New("no node") // want `return may skip c.DeleteVolume`
	}
	if err = c.AttachVolume(ctx, vol.ID, node); err != nil {
		return nil, err
	}
	return vol, nil
}

type tag struct{ Name string }

func (c *client) CreateTag(ctx context.Context, name string) (*tag, error) { return &tag{}, nil }
func (c *client) DeleteTag(ctx context.Context, name string) error         { return nil }

var errExists = errors.New("exists")

// tagAll tags again what is already tagged: the DeleteTag in the branch of a failed CreateTag
// removes the tag that was there, and undoes nothing; the tags it makes are its output.
func (c *client) tagAll(ctx context.Context, names []string) error {
	for _, name := range names {
		if _, err := c.CreateTag(ctx, name); err != nil {
			if errors.Is(err, errExists) {
				if err := c.DeleteTag(ctx, name); err != nil {
					return err
				}
				if _, err := c.CreateTag(ctx, name); err != nil {
					return err
				}
				continue
			}
			return err
		}
	}
	return nil
}

// tagAllAfter tests the failed call's error in the statement after it.
func (c *client) tagAllAfter(ctx context.Context, names []string) ([]*tag, error) {
	var tags []*tag
	for _, name := range names {
		t, err := c.CreateTag(ctx, name)
		if errors.Is(err, errExists) {
			_ = c.DeleteTag(ctx, name)
			t, err = c.CreateTag(ctx, name)
		}
		if err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, nil
}

// tagBoth undoes its first tag when the second fails: that DeleteTag is an undo.
func (c *client) tagBoth(ctx context.Context, a, b string) error {
	t, err := c.CreateTag(ctx, a)
	if err != nil {
		return err
	}
	if _, err := c.CreateTag(ctx, b); err != nil {
		_ = c.DeleteTag(ctx, t.Name)
		return err
	}
	if err := c.CreateSnapshot(ctx, a); err != nil {
		return err // want `return may skip c.DeleteTag \(CreateTag at line 131\)`
	}
	return nil
}

// tagForced deletes the existing tag and returns unless forced: that delete is an undo path,
// and the return after a later failure skips it, for the first create and the second alike.
func (c *client) tagForced(ctx context.Context, name string, force bool) error {
	if _, err := c.CreateTag(ctx, name); errors.Is(err, errExists) {
		if !force {
			_ = c.DeleteTag(ctx, name)
			return err
		}
		if _, err := c.CreateTag(ctx, name); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if err := c.CreateSnapshot(ctx, name); err != nil {
		return err // want `return may skip c.DeleteTag \(CreateTag at line 148\)` `return may skip c.DeleteTag \(CreateTag at line 153\)`
	}
	return nil
}
