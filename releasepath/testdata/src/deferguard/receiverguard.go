package deferguard

import "fmt"

type reaper struct{ quit chan struct{} }

func (r *reaper) startReaper() { r.quit = make(chan struct{}) }
func (r *reaper) stopReaper()  { close(r.quit) }

type s3server struct {
	backend *reaper
	other   *reaper
	srv     *int
}

func newReaper() *reaper { return &reaper{} }

func initServer() (*int, error) { return nil, nil }

// newS3Server stops the reaper where the named err is non-nil, under a nil test of the
// receiver the reaper was started on (rclone's serve s3): a nil receiver started nothing.
func newS3Server(expire bool) (s *s3server, err error) {
	w := &s3server{}
	defer func() {
		if err != nil {
			if w.backend != nil {
				w.backend.stopReaper()
			}
		}
	}()
	w.backend = newReaper()
	if expire {
		w.backend.startReaper()
	}
	w.srv, err = initServer()
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	return w, nil
}

// newS3ServerOtherGuard tests another field: a condition, not a nil guard of the receiver.
func newS3ServerOtherGuard(expire bool) (s *s3server, err error) {
	w := &s3server{}
	defer func() {
		if err != nil {
			if w.other != nil {
				w.backend.stopReaper()
			}
		}
	}()
	w.backend = newReaper()
	if expire {
		w.backend.startReaper()
	}
	w.srv, err = initServer()
	if err != nil {
		return nil, fmt.Errorf("init: %w", err) // want `return may skip w.backend.stopReaper \(startReaper at line 54\)`
	}
	return w, nil
}

// reassignedReceiver gives r another value after the reaper started: the closure deferred
// before reads the new r when it runs, and stops nothing of the one started.
func reassignedReceiver(expire bool) (rp *reaper, err error) {
	var r *reaper
	defer func() {
		if err != nil {
			if r != nil {
				r.stopReaper()
			}
		}
	}()
	r = newReaper()
	if expire {
		r.startReaper()
	}
	r = nil
	_, err = initServer()
	if err != nil {
		return nil, fmt.Errorf("init: %w", err) // want `return may skip r.stopReaper \(startReaper at line 76\)`
	}
	return r, nil
}

type fsys struct{}

func (fsys) Create(name string) (*reaper, error) { return &reaper{}, nil }
func (fsys) Remove(name string) error            { return nil }

type versionSet struct {
	fs       fsys
	manifest *reaper
}

func encode() error { return nil }

// createManifest removes the file where the named err is non-nil, by a closure deferred
// before the create; the create's value is handed on into vs.manifest later, which the
// removal does not read (pebble's versionSet): every error return removes it.
func (vs *versionSet) createManifest(name string) (err error) {
	var manifest *reaper
	defer func() {
		if err != nil {
			vs.fs.Remove(name)
		}
	}()
	manifest, err = vs.fs.Create(name)
	if err != nil {
		return err
	}
	if err := encode(); err != nil {
		return err
	}
	vs.manifest, manifest = manifest, nil
	return nil
}
