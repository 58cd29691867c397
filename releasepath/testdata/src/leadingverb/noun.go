package leadingverb

import (
	"errors"
	"sync/atomic"
)

var errNotFound = errors.New("not found")

// A release verb on the acquired value, or taking it, ends the acquisition only when the
// names agree: a bare verb (Close), or the same noun.

type request struct {
	state    atomic.Int32
	reserved int64
}

// claimAbandon wins the request's state: a claim, not a resource.
func (r *request) claimAbandon() bool { return r.state.CompareAndSwap(0, 1) }

type coalescer struct {
	wire atomic.Int64
	stop chan struct{}
}

func (c *coalescer) releaseWireBytes(n int64) { c.wire.Add(-n) }

// wait releases the request's wire bytes, which the claim does not hold.
func (c *coalescer) wait(done chan error) error {
	r := &request{reserved: 8}
	defer func() {
		if r.reserved > 0 {
			c.releaseWireBytes(r.reserved)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-c.stop:
		if r.claimAbandon() {
			return errNotFound
		}
		return <-done
	}
}

type volume struct{ ID string }

type cloud struct{}

func (cloud) CreateVolume(name string) (*volume, error) { return &volume{ID: name}, nil }
func (cloud) DeleteVolumes(ids ...string) error         { return nil }
func (cloud) Tag(id string) error                       { return nil }

// provision deletes what it created by the plural of its noun.
func provision(c cloud, name string) error {
	vol, err := c.CreateVolume(name)
	if err != nil {
		return err
	}
	if err := c.Tag(vol.ID); err != nil {
		return err // want `return may skip c.DeleteVolumes \(CreateVolume at line 57\)`
	}
	if name == "" {
		c.DeleteVolumes(vol.ID)
		return errNotFound
	}
	return nil
}

type session struct{ id string }

type client struct{}

func (client) OpenSession() (*session, error)       { return &session{}, nil }
func (client) CloseSession(s *session) error        { return nil }
func (client) CloseSocket(s *session) error         { return nil }
func (client) CreateIndex(name string) (int, error) { return 1, nil }
func (client) DeleteIndex(i int) error              { return nil }
func (client) DeleteIndexFile(i int) error          { return nil }

// sessionStep closes a socket of the session on its first error: another thing, which
// releases nothing of the session.
func sessionStep(c client, step func() error) error {
	s, err := c.OpenSession()
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		c.CloseSocket(s)
		return err // want `return may skip c.CloseSession \(OpenSession at line 85\)`
	}
	return c.CloseSession(s)
}

// indexStep deletes the index's file on its first error, not the index: a noun that only
// starts with the acquisition's names another thing.
func indexStep(c client, step func() error) error {
	i, err := c.CreateIndex("x")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		c.DeleteIndexFile(i)
		return err // want `return may skip c.DeleteIndex \(CreateIndex at line 99\)`
	}
	if err := step(); err != nil {
		c.DeleteIndex(i)
		return err
	}
	return nil
}

// A noun phrase (mountPath, the path of a mount) names a value, not an act: only a release
// that names its noun ends it.

type driver struct{ root string }

// mountPath computes where id is mounted.
func (d *driver) mountPath(id string) string { return d.root + "/" + id }

// Unmount undoes a mount at target.
func Unmount(target string, flags int) error { return nil }

// get mounts on error only through its deferred cleanup: the path it computed is no mount,
// and Unmount(mountpoint, 0) no evidence that it is one.
func (d *driver) get(id string) (string, error) {
	mountpoint := d.mountPath(id)
	if err := step(); err != nil {
		_ = Unmount(mountpoint, 0)
		return "", err
	}
	if err := step(); err != nil {
		return "", err
	}
	return mountpoint, nil
}

type idPool struct{ next int }

// AllocateID hands out a number that ReleaseID gives back: a pair, by the noun they share.
func (p *idPool) AllocateID() int { p.next++; return p.next }

// ReleaseID gives id back.
func (p *idPool) ReleaseID(id int) {}

func (p *idPool) setup() error {
	id := p.AllocateID()
	if err := step(); err != nil {
		p.ReleaseID(id)
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip p.ReleaseID \(AllocateID at line 148\)`
	}
	return nil
}
