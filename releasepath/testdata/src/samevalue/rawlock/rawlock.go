// Package rawlock takes a lock on a file descriptor, for samevalue's test of another part.
package rawlock

// LockFile locks the file fd names.
func LockFile(fd int) error { return nil }

// UnlockFile unlocks it.
func UnlockFile(fd int) error { return nil }
