package leadingverb

import "runtime"

func enterNetns() error   { return nil }
func restoreNetns() error { return nil }

// inNetns leaves its thread locked where the namespace cannot be restored, on purpose: the
// runtime ends the thread with the goroutine, and no other goroutine runs in the wrong
// namespace. The runtime package acquires nothing.
func inNetns() error {
	runtime.LockOSThread()
	if err := enterNetns(); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	if err := restoreNetns(); err != nil {
		return err
	}
	runtime.UnlockOSThread()
	return nil
}
