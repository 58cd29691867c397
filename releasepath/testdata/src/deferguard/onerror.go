package deferguard

// An upload is opened, then completed by its Close or discarded by its Abort.
type upload struct{ parts int }

func openUpload(name string) (*upload, error) { return &upload{}, nil }

func (u *upload) Close() error { return nil }
func (u *upload) Abort() error { return nil }

// onError returns a function that calls fn when *perr is non-nil, as rclone's
// atexit.OnError does.
func onError(perr *error, fn func()) func() {
	return func() {
		if *perr != nil {
			fn()
		}
	}
}

// whenFailed calls fn when *perr is non-nil.
func whenFailed(perr *error, fn func()) {
	if *perr != nil {
		fn()
	}
}

// onSuccess calls fn when *perr is nil.
func onSuccess(perr *error, fn func()) {
	if *perr == nil {
		fn()
	}
}

// send aborts the upload where it fails, through the closure deferred with &err: every
// error return runs it.
func send(name string, leave bool) (err error) {
	u, err := openUpload(name)
	if err != nil {
		return err
	}
	defer onError(&err, func() {
		if leave {
			return // the caller asked to keep the parts: its exception
		}
		_ = u.Abort()
	})()
	if err = step(); err != nil {
		return err
	}
	return u.Close()
}

// sendDirect defers the helper itself: the same.
func sendDirect(name string) (err error) {
	u, err := openUpload(name)
	if err != nil {
		return err
	}
	defer whenFailed(&err, func() { _ = u.Abort() })
	if err = step(); err != nil {
		return err
	}
	return u.Close()
}

// sendEarly returns before the deferred abort is registered.
func sendEarly(name string) (err error) {
	u, err := openUpload(name)
	if err != nil {
		return err
	}
	if err = step(); err != nil {
		return err // want `return may skip u.Abort \(openUpload at line 69\)`
	}
	defer onError(&err, func() { _ = u.Abort() })()
	if err = step(); err != nil {
		return err
	}
	return u.Close()
}

// sendOnSuccess gives the closure to a helper whose name says it runs on success: nothing
// runs where err is non-nil. What the helper does is not read, so the return where it
// closes is reported too.
func sendOnSuccess(name string) (err error) {
	u, err := openUpload(name)
	if err != nil {
		return err
	}
	defer onSuccess(&err, func() { _ = u.Close() })
	if err = step(); err != nil {
		return err // want `return may skip u.Close \(openUpload at line 87\)`
	}
	return nil // want `return may skip u.Close \(openUpload at line 87\)`
}

// sendAbortVar binds the abort to a closure variable first: the same.
func sendAbortVar(name string) (err error) {
	u, err := openUpload(name)
	if err != nil {
		return err
	}
	abort := func() { _ = u.Abort() }
	defer whenFailed(&err, abort)
	if err = step(); err != nil {
		return err
	}
	return u.Close()
}

// whenFailedDo calls fn when *perr is non-nil, with fn's error dropped.
func whenFailedDo(perr *error, fn func() error) {
	if *perr != nil {
		_ = fn()
	}
}

// sendAbortMethod gives the release itself, as a method value: the same.
func sendAbortMethod(name string) (err error) {
	u, err := openUpload(name)
	if err != nil {
		return err
	}
	defer whenFailedDo(&err, u.Abort)
	if err = step(); err != nil {
		return err
	}
	return u.Close()
}
