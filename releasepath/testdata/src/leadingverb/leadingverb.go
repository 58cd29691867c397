// Package leadingverb names its queries with an acquire verb inside: Go method names lead
// with their verb, so only a leading acquire verb makes an acquisition.
package leadingverb

import "errors"

type mounter struct{}

func (m *mounter) IsLikelyNotMountPoint(path string) (bool, error) { return false, nil }
func (m *mounter) GetMountRefs(path string) ([]string, error)      { return nil, nil }
func (m *mounter) Mount(src, path string) error                    { return nil }
func (m *mounter) Unmount(path string) error                       { return nil }
func (m *mounter) UnmountRefs(path string) error                   { return nil }

func step() error { return nil }

// queries asks and unmounts: nothing here was mounted by the call.
func queries(m *mounter, path string) error {
	notMnt, err := m.IsLikelyNotMountPoint(path)
	if err != nil {
		return err
	}
	if notMnt {
		return errors.New("not mounted")
	}
	refs, err := m.GetMountRefs(path)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		return errors.New("busy")
	}
	return m.Unmount(path)
}

// mountLeak mounts, undoes it on one error path and not on the other.
func mountLeak(m *mounter, src, path string) error {
	if err := m.Mount(src, path); err != nil {
		return err
	}
	if err := step(); err != nil {
		m.Unmount(path)
		return err
	}
	if step() != nil {
		return errors.New("second step") // want `return may skip m.Unmount \(Mount at line 38\)`
	}
	return nil
}
