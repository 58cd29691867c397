//go:build linux

package ctnetlink

// SetKernelFilter turns the kernel-side protocol filter of f's dumps on or off, so that tests
// can take the path of a kernel that ignores it.
func SetKernelFilter(f *Flusher, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unfiltered = !on
}

// Judged returns how many entries f's latest Flush or Reconcile read from the kernel.
func Judged(f *Flusher) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.judged
}
