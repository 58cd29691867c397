package holderrelease

import (
	"errors"
	"io"
	"sync"
)

type permits struct{ mu sync.Mutex }

func (p *permits) Acquire(n int) error { return nil }
func (p *permits) Release(n int)       {}

// onClose runs BeforeClose first, then closes what it wraps: containerd's fnOnClose.
type onClose struct {
	BeforeClose func()
	io.ReadCloser
}

func (f *onClose) Close() error {
	f.BeforeClose()
	return f.ReadCloser.Close()
}

// later calls its hook only after something that may leave.
type later struct {
	hook func()
	io.ReadCloser
}

func (l *later) Close() error {
	if err := l.ReadCloser.Close(); err != nil {
		return err
	}
	l.hook()
	return nil
}

func wrap(r io.ReadCloser) (io.ReadCloser, error) { return r, nil }

// fetchFixed is containerd's fetcher after its fix: the body holds the permit's release in
// BeforeClose, and its Close on every error return gives the permit back.
func fetchFixed(p *permits, rc io.ReadCloser, enc string) (_ io.ReadCloser, retErr error) {
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	body := &onClose{BeforeClose: func() { p.Release(1) }, ReadCloser: rc}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if enc == "wrapped" {
		r, err := wrap(body.ReadCloser)
		if err != nil {
			return nil, err
		}
		body.ReadCloser = r
	} else if enc != "" {
		return nil, errors.New("unsupported encoding")
	}
	return body, nil
}

// fetchTwoBodies gives body another literal of its type after a goroutine took the first.
func fetchTwoBodies(p *permits, rc io.ReadCloser, parallel bool) (_ io.ReadCloser, retErr error) {
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	body := &onClose{BeforeClose: func() { p.Release(1) }, ReadCloser: rc}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if parallel {
		first := body
		go func() { first.Close() }()
		body = &onClose{BeforeClose: func() {}, ReadCloser: io.NopCloser(nil)}
	}
	if _, err := wrap(body); err != nil {
		return nil, err
	}
	return body, nil
}

// fetchOtherValue gives body something else too: its Close may close another value, and
// where it does, the body that held the permit is dropped.
func fetchOtherValue(p *permits, rc io.ReadCloser, alt func() *onClose) (_ io.ReadCloser, retErr error) {
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	body := &onClose{BeforeClose: func() { p.Release(1) }, ReadCloser: rc}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if rc == io.ReadCloser(nil) {
		body = alt()
	}
	if _, err := wrap(body); err != nil {
		return nil, err // want `return may skip p.Release \(Acquire at line 98\)`
	}
	return body, nil // want `return may skip p.Release \(Acquire at line 98\)`
}

// fetchLateHook's Close calls the hook only after something that may leave: no release.
func fetchLateHook(p *permits, rc io.ReadCloser) (_ io.ReadCloser, retErr error) {
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	body := &later{hook: func() { p.Release(1) }, ReadCloser: rc}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if _, err := wrap(body); err != nil {
		return nil, err // want `return may skip p.Release \(Acquire at line 122\)`
	}
	return body, nil
}

// fetchConditionalHook's literal gives the permit back only when asked: no release.
func fetchConditionalHook(p *permits, rc io.ReadCloser, give bool) (_ io.ReadCloser, retErr error) {
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	body := &onClose{BeforeClose: func() {
		if give {
			p.Release(1)
		}
	}, ReadCloser: rc}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if _, err := wrap(body); err != nil {
		return nil, err // want `return may skip p.Release \(Acquire at line 143\)`
	}
	return body, nil
}

// marked sets a flag before it calls the hook: nothing there can leave, so Close still
// runs the hook.
type marked struct {
	BeforeClose func()
	closed      bool
	io.ReadCloser
}

func (f *marked) Close() error {
	f.closed = true
	f.BeforeClose()
	return f.ReadCloser.Close()
}

// fetchMarked's literal counts before it releases, and its Close marks before it calls.
func fetchMarked(p *permits, rc io.ReadCloser, closes *int) (_ io.ReadCloser, retErr error) {
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	n := 0
	body := &marked{BeforeClose: func() { n++; *closes = n; p.Release(1) }, ReadCloser: rc}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if _, err := wrap(body); err != nil {
		return nil, err
	}
	return body, nil
}

// fetchHolderFirst makes the holder before the permit: returning it still hands the
// release on.
func fetchHolderFirst(p *permits, rc io.ReadCloser) (_ io.ReadCloser, retErr error) {
	body := &onClose{BeforeClose: func() { p.Release(1) }, ReadCloser: rc}
	if err := p.Acquire(1); err != nil {
		return nil, err
	}
	if rc == nil {
		p.Release(1)
		return nil, errors.New("no body")
	}
	defer func() {
		if retErr != nil {
			body.Close()
		}
	}()
	if _, err := wrap(body); err != nil {
		return nil, err
	}
	return body, nil
}
