package acquire

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"go.uber.org/multierr"

	"github.com/safereconcile/safereconcile/lease"
)

// ErrEnded is wrapped by the error of an acquisition attempted after its [Scope] ended.
var ErrEnded = errors.New("acquire: scope has ended")

// errReleaseGoexit is the reason recorded for a release that called runtime.Goexit.
var errReleaseGoexit = errors.New("acquire: release called runtime.Goexit")

// A Scope is the lifetime of one operation: what is acquired through it is released when it
// ends, newest first. Make one with [Run] or [New]; the zero Scope is not usable, and its
// methods and [Temporary] and [Tentative] panic with a message starting with "acquire:" before
// acquiring anything.
//
// A Scope is safe for concurrent use by goroutines started inside the operation.
type Scope struct {
	// ctx is the context of the one operation this scope belongs to: acquisitions run under
	// it, and releases keep its values but not its cancellation.
	ctx    context.Context
	cfg    config
	ledger *lease.Ledger // from ctx; nil when there is none

	// callers holds the function that called New and its caller, for End to find its own
	// frame on the stack; nCallers is 0 for a scope made by Run, which needs no stack.
	callers  [2]uintptr
	nCallers int

	mu         sync.Mutex
	ended      bool
	tentatives int     // Tentative entries in stack: only they care whether the scope failed
	stack      []entry // releases in registration order; run from the end
	// first backs stack until it grows: most scopes hold one or two resources, and this
	// saves them an allocation on a path that runs on every reconcile.
	first [2]entry
}

// An entry is one registered release: a lease (from Temporary or Tentative) or a plain
// cleanup (from Defer).
type entry struct {
	name      string
	lease     releaser                        // nil for a Defer
	fn        func(ctx context.Context) error // nil for a lease
	tentative bool                            // release the lease only if the scope fails
}

// releaser is the part of *lease.Lease[T] a Scope needs, whatever T is.
type releaser interface {
	Release(ctx context.Context) error
	Keep()
}

// New returns a scope for an operation that runs under ctx. End it with a deferred
// [Scope.End] on the function's named error result:
//
//	func ensure(ctx context.Context) (err error) {
//		s := acquire.New(ctx)
//		defer s.End(&err)
//		...
//	}
//
// Call New and defer End in the same function. Prefer [Run] where a closure fits.
//
// New panics with a message starting with "acquire:" when ctx or an option is nil.
func New(ctx context.Context, opts ...Option) *Scope {
	s := newScope("New", ctx, opts)
	// Remember whose scope this is, at the cost of two frames: End looks for this function
	// on the stack to tell its normal return from a runtime.Goexit that runs its defers.
	s.nCallers = runtime.Callers(2, s.callers[:])
	return s
}

// newScope makes a scope for fn (the name of the exported function, for messages).
func newScope(fn string, ctx context.Context, opts []Option) *Scope {
	if ctx == nil {
		panic("acquire: " + fn + " with a nil context")
	}
	s := &Scope{ctx: ctx, cfg: config{timeout: DefaultReleaseTimeout}, ledger: lease.LedgerFrom(ctx)}
	s.stack = s.first[:0]
	for i, o := range opts {
		if o == nil {
			panic(fmt.Sprintf("acquire: %s with a nil Option (option %d)", fn, i+1))
		}
		o.apply(&s.cfg)
	}
	return s
}

// Run calls fn with a new scope and ends the scope when fn finishes, however it finishes.
//
// Run returns fn's error combined with one [*lease.OrphanError] for each release that failed.
// The scope fails, and releases its [Tentative] leases too, when fn returns an error, panics or
// calls [runtime.Goexit]. When fn panics, every release still runs, [OnOrphan] hears of every
// failure, and then the panic continues with its original value and stack. A panic in a
// release or in OnOrphan does not stop the other releases: when fn did not panic, Run raises
// the first such panic again after them; when fn did, fn's panic is the one that continues.
//
// Run panics with a message starting with "acquire:", before calling anything, when ctx, fn or
// an option is nil.
func Run(ctx context.Context, fn func(ctx context.Context, s *Scope) error, opts ...Option) (err error) {
	if fn == nil {
		panic("acquire: Run with a nil function")
	}
	s := newScope("Run", ctx, opts)
	returned := false
	defer func() {
		// returned is still false here only while a panic or runtime.Goexit unwinds fn: that
		// is a failure too, and the unwinding continues after the releases, untouched.
		if p := s.end(&err, !returned || err != nil); p != nil && returned {
			panic(p)
		}
	}()
	err = fn(ctx, s)
	returned = true
	return err
}

// End ends the scope: it runs every registered release, newest first, and appends one
// [*lease.OrphanError] per failed release to *errp. The scope has failed when *errp is not
// nil or a panic is in flight; a panic is re-raised with the same value after the releases,
// and a panic of a release or of [OnOrphan] is raised after them only when there was none
// (as [Run] does). errp may be nil when the caller has no error to report into; [OnOrphan] still hears of
// every failure.
//
// Defer End in the function that called [New]: directly (defer s.End(&err)), which is how it
// recovers a panic in flight to re-raise it after the releases, or inside a deferred function
// (defer func() { s.End(&err) }()). Either way a panic or a [runtime.Goexit] (t.FailNow in a
// test) that is running that function's deferred calls is a failure; one that runs further up
// the stack, and only calls that function from a deferred call of its own, is not. Calls after
// the first do nothing. End panics with a message starting with "acquire:" when s is nil or a
// zero Scope.
func (s *Scope) End(errp *error) {
	p := recover()
	if s == nil {
		panic("acquire: End on a nil *Scope")
	}
	if s.ctx == nil {
		panic("acquire: End on a zero Scope: make one with Run or New")
	}
	failed := p != nil || (errp != nil && *errp != nil)
	if !failed && s.hasTentatives() {
		// Only a Tentative's fate depends on the outcome, so only then is it worth reading the
		// stack to tell runtime.Goexit from a normal return: recover cannot.
		failed = s.unwinding()
	}
	rp := s.end(errp, failed)
	if p != nil {
		panic(p)
	}
	if rp != nil {
		panic(rp)
	}
}

// Defer registers release to run when the scope ends, in LIFO order with the scope's leases.
// A failure is reported like a failed lease release: as a [*lease.OrphanError] named name.
//
// After the scope has ended, Defer runs release at once, so that nothing is left behind, and
// reports a failure to the [OnOrphan] handler. Defer panics with a message starting with
// "acquire:" when s or release is nil.
func (s *Scope) Defer(name string, release func(ctx context.Context) error) {
	if s == nil {
		panic(fmt.Sprintf("acquire: Defer(%q) on a nil *Scope", name))
	}
	if s.ctx == nil {
		panic(fmt.Sprintf("acquire: Defer(%q) on a zero Scope: make one with Run or New", name))
	}
	if release == nil {
		panic(fmt.Sprintf("acquire: Defer(%q) with a nil release function", name))
	}
	// After the end, push runs release at once and OnOrphan hears of a failure; there is no
	// error result to return it in.
	_, _ = s.push(entry{name: name, fn: release})
}

// Temporary acquires a resource that is released when the scope ends, whatever the outcome.
//
// It calls acquire with the scope's context. If acquire fails, nothing is registered, release
// is never called, and the returned error wraps acquire's. If it succeeds, the release is
// registered before Temporary returns, so every later return path releases it; the returned
// lease is [lease.Held]. Call [lease.Lease.Keep] to take the resource out of the scope's hands.
//
// After the scope has ended, Temporary does not call acquire and returns an error wrapping
// [ErrEnded]. Temporary panics with a message starting with "acquire:", before calling
// anything, when s, acquire or release is nil.
func Temporary[T any](s *Scope, name string,
	acquire func(ctx context.Context) (T, error),
	release func(ctx context.Context, value T) error) (*lease.Lease[T], error) {
	return hold(s, name, acquire, release, false)
}

// Tentative acquires a resource that becomes part of the operation's result if the scope
// succeeds, and is released if it fails (an error, a panic or runtime.Goexit, with [Run] and
// with [Scope.End] alike). On success its lease is [lease.Kept]. Everything else is as for
// [Temporary].
func Tentative[T any](s *Scope, name string,
	acquire func(ctx context.Context) (T, error),
	release func(ctx context.Context, value T) error) (*lease.Lease[T], error) {
	return hold(s, name, acquire, release, true)
}

func hold[T any](s *Scope, name string,
	acquire func(ctx context.Context) (T, error),
	release func(ctx context.Context, value T) error, tentative bool) (*lease.Lease[T], error) {
	// Check the arguments before acquiring: a panic after a successful acquire would leak the
	// very resource this package exists to release.
	if s == nil {
		panic(fmt.Sprintf("acquire: %q on a nil *Scope", name))
	}
	if s.ctx == nil {
		panic(fmt.Sprintf("acquire: %q on a zero Scope: make one with Run or New", name))
	}
	if acquire == nil || release == nil {
		panic(fmt.Sprintf("acquire: %q needs both an acquire and a release function", name))
	}
	if s.isEnded() {
		return nil, fmt.Errorf("acquire %s: %w", name, ErrEnded)
	}
	v, err := acquire(s.ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire %s: %w", name, err)
	}
	// The lease exists, and is recorded, the moment the resource does: from here on every
	// return path, including the scope ending during acquire below, releases it.
	l := lease.New(name, v, release)
	if s.ledger != nil {
		s.ledger.Add(l)
	}
	if ok, orphan := s.push(entry{name: name, lease: l, tentative: tentative}); !ok {
		// The scope ended while acquire ran (a goroutine outlived the operation). push has
		// already released the resource, since nobody else will.
		return nil, multierr.Append(fmt.Errorf("acquire %s: %w", name, ErrEnded), orphan)
	}
	return l, nil
}

func (s *Scope) hasTentatives() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tentatives > 0
}

// unwinding reports whether runtime.Goexit or a panic is running the deferred calls of the
// function that made s with New. It must be called by End.
//
// The frames between End and that function are End's own deferred caller (a closure, perhaps)
// and, when the function is being unwound, runtime.Goexit or runtime.gopanic and the calls
// that led to it. A Goexit further up the stack, whose deferred call merely called the
// function, is older than its frame and does not count: the depth of the stack decides
// nothing. When New was called by a helper that has returned, its caller stands in for it.
func (s *Scope) unwinding() bool {
	if s.nCallers == 0 {
		return false
	}
	var want [2]string
	callers := runtime.CallersFrames(s.callers[:s.nCallers])
	for i := range want {
		f, more := callers.Next()
		want[i] = f.Function
		if !more {
			break
		}
	}
	unwound := false
	helper, helperFound := false, false
	var pcs [32]uintptr
	for skip := 3; ; skip += len(pcs) { // 3: runtime.Callers, unwinding and End
		n := runtime.Callers(skip, pcs[:])
		frames := runtime.CallersFrames(pcs[:n])
		for more := n > 0; more; {
			var f runtime.Frame
			f, more = frames.Next()
			switch f.Function {
			case "runtime.Goexit", "runtime.gopanic":
				unwound = true
			case want[0]:
				return unwound
			case want[1]:
				if !helperFound {
					helper, helperFound = unwound, true
				}
			}
		}
		if n < len(pcs) {
			return helper // the whole stack, and New's caller is not on it
		}
	}
}

func (s *Scope) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// push registers e, or, when the scope has already ended, releases it at once and returns
// the orphan error if that release failed. It reports whether e was registered.
func (s *Scope) push(e entry) (registered bool, orphan error) {
	s.mu.Lock()
	if !s.ended {
		s.stack = append(s.stack, e)
		if e.tentative {
			s.tentatives++
		}
		s.mu.Unlock()
		return true, nil
	}
	s.mu.Unlock()
	// The unwinding has already passed this point of the stack; a late registration is
	// released at once, as a failed scope would release it, so nothing outlives the scope.
	if p := s.unwind([]entry{e}, true, &orphan); p != nil {
		panic(p)
	}
	return false, orphan
}

// end ends the scope once: it releases the stack newest first, failed deciding the fate of
// Tentative leases, and appends the orphans to *errp when errp is not nil. It returns the value
// of the first panic raised by a release, for the caller to re-raise.
func (s *Scope) end(errp *error, failed bool) any {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil
	}
	s.ended = true
	stack := s.stack
	s.stack = nil
	s.mu.Unlock()
	// Releases run outside mu: they are slow calls, and goroutines of the operation may still
	// call Defer or acquire meanwhile (they then release at once, see push).
	return s.unwind(stack, failed, errp)
}

// unwind runs the releases of stack from its end, each to completion before the next, as
// deferred calls do: a later resource may depend on an earlier one (a forwarding rule on its
// address), so it goes first.
func (s *Scope) unwind(stack []entry, failed bool, errp *error) (panicVal any) {
	done := false
	defer func() {
		// Reached with done still false only when a release or OnOrphan called
		// runtime.Goexit: the goroutine is going away, but the remaining releases must still run.
		if !done {
			s.unwind(stack, failed, nil)
		}
	}()
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.tentative && !failed {
			e.lease.Keep()
			continue
		}
		orphan, p := s.releaseOne(&e)
		if orphan != nil {
			if errp != nil {
				*errp = multierr.Append(*errp, orphan)
			}
			// A panicking OnOrphan is held back like a panicking release: the other releases
			// still run, and the operation's own panic, if any, keeps its value.
			if op := s.orphaned(orphan); p == nil {
				p = op
			}
		}
		if p != nil && panicVal == nil {
			panicVal = p
		}
	}
	done = true
	return panicVal
}

// releaseOne runs one release under its own context: the scope's values, none of its
// cancellation, and a deadline of its own. A failure or a panic is returned as an orphan; the
// panic value is returned too, for the caller to re-raise once every release has run.
func (s *Scope) releaseOne(e *entry) (orphan *lease.OrphanError, panicVal any) {
	// The deadline counts from the moment this release starts, not from the operation's, and
	// the context is done when the release returns: work it left behind stops with it. It is
	// the standard library's own, so that a context the release derives after adding a value
	// (a logger, a span, gRPC metadata) finds it through Value and attaches to it without a
	// goroutine; a context type of this package's own would have to wrap it to be found, and
	// cost more (see bench_test.go).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), s.cfg.timeout)
	defer cancel()
	var err error
	returned := false
	func() {
		defer func() {
			if returned {
				return
			}
			if panicVal = recover(); panicVal == nil {
				// runtime.Goexit: this goroutine ends here and nobody sees a result, so the
				// orphan is reported now; the remaining releases still run (see unwind). A
				// panic of OnOrphan here has nowhere to go: Goexit is already under way.
				_ = s.orphaned(&lease.OrphanError{Name: e.name, Err: errReleaseGoexit})
			}
		}()
		if e.lease != nil {
			err = e.lease.Release(ctx)
		} else {
			err = e.fn(ctx)
		}
		returned = true
	}()
	switch {
	case err != nil:
		// A lease reports its own *lease.OrphanError; a Defer's error is wrapped whole, under
		// the name it was registered with, whatever it wraps.
		if oe, ok := err.(*lease.OrphanError); ok && e.lease != nil {
			return oe, nil
		}
		return &lease.OrphanError{Name: e.name, Err: err}, nil
	case panicVal != nil:
		return &lease.OrphanError{Name: e.name, Err: fmt.Errorf("acquire: release panicked: %v", panicVal)}, panicVal
	}
	return nil, nil
}

// orphaned hands a failed release to the OnOrphan handler, if there is one, and returns the
// value it panicked with, for the caller to re-raise once every release has run.
func (s *Scope) orphaned(oe *lease.OrphanError) (panicVal any) {
	if s.cfg.onOrphan == nil {
		return nil
	}
	returned := false
	defer func() {
		if !returned {
			panicVal = recover() // nil for runtime.Goexit, which goes on
		}
	}()
	s.cfg.onOrphan(context.WithoutCancel(s.ctx), oe)
	returned = true
	return nil
}
