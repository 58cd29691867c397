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
