// Package suggestedfix pins when a finding carries the suggested defer: for each resource
// class, only when moving the release to the function's end changes nothing the success
// path does. Where it would, the finding stays and carries no fix.
package suggestedfix

import (
	"context"
	"errors"
	"log"
	"os"
	"sync"

	"github.com/containernetworking/plugins/pkg/ipam"
	"github.com/safereconcile/safereconcile/lease"
)

var errMissing = errors.New("missing")

type cache struct {
	mu   sync.Mutex
	m    map[string]string
	hits map[string]int
}

// touch locks c.mu: run while c.mu is still held, it deadlocks.
func (c *cache) touch(k string) {
	c.mu.Lock()
	c.hits[k]++
	c.mu.Unlock()
}

func (c *cache) describe(v string) string { return v }

// lockReturn returns right after the Unlock: the fix defers it.
func (c *cache) lockReturn(k string) (string, error) {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock \(Lock at line 36\)`
	}
	c.mu.Unlock()
	return v, nil
}

// lockThenTouch calls touch after the Unlock: deferred, the Unlock would run after touch,
// which would deadlock. No fix.
func (c *cache) lockThenTouch(k string) (string, error) {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock \(Lock at line 48\)`
	}
	c.mu.Unlock()
	c.touch(k)
	return v, nil
}

// lockReturnCall calls in its return, after the Unlock: no fix.
func (c *cache) lockReturnCall(k string) (string, error) {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock \(Lock at line 60\)`
	}
	c.mu.Unlock()
	return c.describe(v), nil
}

// lockDeferBetween registers a defer after the Lock: deferred, the Unlock would run after
// it, where now it runs before. No fix.
func (c *cache) lockDeferBetween(k string) (string, error) {
	c.mu.Lock()
	defer c.touch(k)
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock \(Lock at line 72\)`
	}
	c.mu.Unlock()
	return v, nil
}

type addrMgr struct{}

func (m *addrMgr) HoldAddress() (string, error) { return "", nil }
func (m *addrMgr) ReleaseAddress() error        { return nil }

func program(ip string) error { return nil }

// holdReturn releases the held address right before its last return: the fix defers it.
func holdReturn(m *addrMgr) error {
	ip, err := m.HoldAddress()
	if err != nil {
		return err
	}
	if err := program(ip); err != nil {
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 91\)`
	}
	m.ReleaseAddress()
	return nil
}

// holdThenProgram programs again after the release: no fix.
func holdThenProgram(m *addrMgr) error {
	ip, err := m.HoldAddress()
	if err != nil {
		return err
	}
	if err := program(ip); err != nil {
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 104\)`
	}
	m.ReleaseAddress()
	log.Printf("released %s", ip)
	return nil
}

// holdThenLookup reads something else after the release, as #97740's success path reads the
// forwarding rule: nothing after it mentions m, ip or the hold's arguments, so the fix defers
// the release even though a call follows it.
func holdThenLookup(m *addrMgr, name string) (string, error) {
	ip, err := m.HoldAddress()
	if err != nil {
		return "", err
	}
	if err := program(ip); err != nil {
		return "", err // want `return may skip m.ReleaseAddress \(HoldAddress at line 120\)`
	}
	m.ReleaseAddress()
	rule, err := lookup(name)
	if err != nil {
		return "", err
	}
	return rule, nil
}

func lookup(name string) (string, error) { return name, nil }

// openReturn closes the file right before its last return: the fix defers the Close.
func openReturn(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 16)
	if _, err := f.Read(buf); err != nil {
		return nil, err // want `return may skip f.Close \(Open at line 139\)`
	}
	f.Close()
	return buf, nil
}

// openThenRemove removes the file after closing it: deferred, the Close would run after
// the Remove. No fix.
func openThenRemove(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 16)
	if _, err := f.Read(buf); err != nil {
		return nil, err // want `return may skip f.Close \(Open at line 154\)`
	}
	f.Close()
	os.Remove(path)
	return buf, nil
}

type server struct{ f *os.File }

func check(f *os.File) error { return nil }

// openMaybeKept keeps the file on one path: a deferred Close would close what s now owns.
// No fix.
func (s *server) openMaybeKept(path string, keep bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if keep {
		s.f = f
		return nil
	}
	if err := check(f); err != nil {
		return err // want `return may skip f.Close \(Open at line 174\)`
	}
	f.Close()
	return nil
}

type address struct{ ip string }

func release(ctx context.Context, a address) error { return nil }

// leaseReturn releases the lease right before its last return: the fix defers it.
func leaseReturn(ctx context.Context, a address) error {
	l := lease.New("address/a", a, release)
	if err := program(a.ip); err != nil {
		return err // want `return may skip l.Release \(New at line 195\)`
	}
	l.Release(ctx)
	return nil
}

// leaseThenProgram programs the leased address again after the release: no fix.
func leaseThenProgram(ctx context.Context, a address) error {
	l := lease.New("address/a", a, release)
	if err := program(a.ip); err != nil {
		return err // want `return may skip l.Release \(New at line 205\)`
	}
	l.Release(ctx)
	return program(a.ip)
}

type volume struct{ ID string }

type client struct{}

func (c *client) CreateVolume(name string) (*volume, error) { return &volume{}, nil }
func (c *client) DeleteVolume(id string) error              { return nil }
func (c *client) AttachVolume(id string) error              { return nil }

// createRollback undoes the create only on failure: a deferred delete would delete the
// volume on success too. No fix, although a return follows the delete.
func (c *client) createRollback(name string) (*volume, error) {
	vol, err := c.CreateVolume(name)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("no name") // want `return may skip c.DeleteVolume \(CreateVolume at line 224\)`
	}
	if err := c.AttachVolume(vol.ID); err != nil {
		_ = c.DeleteVolume(vol.ID)
		return nil, err
	}
	return vol, nil
}

// ipamRollback gives the address back on one failure: an allocation of the table is undone
// on error returns only, so a deferred ExecDel would free the address of a successful ADD.
// No fix.
func ipamRollback(stdin []byte) (*ipam.Result, error) {
	r, err := ipam.ExecAdd("host-local", stdin)
	if err != nil {
		return nil, err
	}
	if len(r.IPs) == 0 {
		return nil, errors.New("no IP") // want `return may skip ipam.ExecDel \(ExecAdd at line 242\)`
	}
	if err := program(r.IPs[0]); err != nil {
		ipam.ExecDel("host-local", stdin)
		return nil, err
	}
	return r, nil
}

// lockReturnReceive receives in its return, after the Unlock: deferred, the Unlock would
// run after the receive, and a sender that locks c.mu before it sends would deadlock. No
// fix.
func (c *cache) lockReturnReceive(k string, ch <-chan string) (string, error) {
	c.mu.Lock()
	_, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock \(Lock at line 260\)`
	}
	c.mu.Unlock()
	return <-ch, nil
}

// lockThenSend sends after the Unlock: deferred, the Unlock would wait for the receiver.
// No fix.
func (c *cache) lockThenSend(k string, ch chan<- string) error {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return errMissing // want `return may skip c.mu.Unlock \(Lock at line 272\)`
	}
	c.mu.Unlock()
	ch <- v
	return nil
}

// lockThenSelect waits in a select after the Unlock: deferred, the Unlock would wait for
// it. No fix.
func (c *cache) lockThenSelect(k string, ch chan<- string, done <-chan struct{}) error {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return errMissing // want `return may skip c.mu.Unlock \(Lock at line 285\)`
	}
	c.mu.Unlock()
	select {
	case ch <- v:
	case <-done:
	}
	return nil
}

// chain is a list of caches; lockReceiverReassigned unlocks the next cache's mutex through c.
type chain struct {
	mu   sync.Mutex
	m    map[string]string
	next *chain
}

// lockReceiverReassigned gets no fix: deferred right after the Lock, c.mu.Unlock() would
// unlock the first chain's mutex, not c.next's, which the Unlock it replaces unlocks.
func (c *chain) lockReceiverReassigned(k string) (string, error) {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock`
	}
	c = c.next
	c.mu.Unlock()
	return v, nil
}
