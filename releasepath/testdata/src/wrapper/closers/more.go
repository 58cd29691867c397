package closers

import (
	"io"
	"runtime"
	"sync"

	"wrapper/closers/inner"
)

// CloseIf closes c only when ok: a release under a condition is not one it always makes,
// but one it makes when ok is true (releaseflag).
func CloseIf(c io.Closer, ok bool) { // want CloseIf:`releases\(\) when\(1\)\(0:Close\)`
	if ok {
		c.Close()
	}
}

// CloseUnlessSkip returns early before it closes c: not always.
func CloseUnlessSkip(c io.Closer, skip bool) {
	if skip {
		return
	}
	c.Close()
}

// CloseNonNil closes c when it is not nil: a nil guard counts, as everywhere; the caller's
// non-nil value is closed.
func CloseNonNil(c io.Closer) { // want CloseNonNil:`releases\(0:Close\)`
	if c == nil {
		return
	}
	c.Close()
}

// CloseDeferred always closes c, by a defer.
func CloseDeferred(c io.Closer) error { // want CloseDeferred:`releases\(0:Close\)`
	defer c.Close()
	return nil
}

// CloseOnBothPaths closes c on each of its two returns.
func CloseOnBothPaths(c io.Closer, loud bool) error { // want CloseOnBothPaths:`releases\(0:Close\)`
	if loud {
		return c.Close()
	}
	c.Close()
	return nil
}

// CloseFirst closes its first argument only.
func CloseFirst(a, b io.Closer) { // want CloseFirst:`releases\(0:Close\)`
	a.Close()
	_ = b
}

// CloseSecond closes its second argument only.
func CloseSecond(a, b io.Closer) { // want CloseSecond:`releases\(1:Close\)`
	_ = a
	b.Close()
}

// CloseGeneric is a generic helper: it closes its argument whatever T is.
func CloseGeneric[T io.Closer](c T) { // want CloseGeneric:`releases\(0:Close\)`
	c.Close()
}

// CloseReassigned closes what it assigned to its parameter, not what it was passed.
func CloseReassigned(c io.Closer) {
	c = nopCloser{}
	c.Close()
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// closeHiddenToo is unexported; CloseViaHidden calls it, and its summary passes on what
// closeHiddenToo releases although closeHiddenToo exports no fact of its own.
func closeHiddenToo(c io.Closer) { c.Close() }

// CloseViaHidden closes through an unexported helper.
func CloseViaHidden(c io.Closer) { // want CloseViaHidden:`releases\(0:Close\)`
	closeHiddenToo(c)
}

// CloseViaInner closes through a helper of a third package, whose fact it reads.
func CloseViaInner(c io.Closer) { // want CloseViaInner:`releases\(0:Close\)`
	inner.Close(c)
}

// Bounce locks and unlocks the mutex it is passed: balanced, it releases nothing.
func Bounce(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

// Yield unlocks the mutex it is passed and takes it back: it releases nothing.
func Yield(mu *sync.Mutex) {
	mu.Unlock()
	runtime.Gosched()
	mu.Lock()
}

// RUnlockRW ends a read lock.
func RUnlockRW(mu *sync.RWMutex) { // want RUnlockRW:`releases\(0:RUnlock\)`
	mu.RUnlock()
}

// UnlockTable releases a field path of its parameter.
func UnlockTable(t *Table) { // want UnlockTable:`releases\(0\.Mu:Unlock\)`
	t.n++
	t.Mu.Unlock()
}

// UnlockByMethodValue releases through a method value it calls: a summary reads direct
// calls only, so it exports no fact.
func UnlockByMethodValue(mu *sync.Mutex) {
	unlock := mu.Unlock
	unlock()
}

// unlockQuiet is an unexported method of an exported type: no other package can call it.
func (t *Table) unlockQuiet() { t.Mu.Unlock() }

// Guard holds a pointer to a lock; its value receiver still reaches the caller's mutex.
type Guard struct {
	Mu *sync.Mutex
}

// Release has a value receiver: g.Mu is the same *sync.Mutex the caller's copy points to.
func (g Guard) Release() { // want Release:`releases\(recv\.Mu:Unlock\)`
	g.Mu.Unlock()
}

// Locked embeds its mutex.
type Locked struct {
	sync.Mutex
	n int
}

// Done unlocks the embedded mutex through its promoted Unlock.
func (l *Locked) Done() { // want Done:`releases\(recv(\.Mutex)?:Unlock\)`
	l.n++
	l.Unlock()
}

// Outer reaches a lock two fields down.
type Outer struct {
	Inner Table
}

// UnlockInner releases recv.Inner.Mu.
func (o *Outer) UnlockInner() { // want UnlockInner:`releases\(recv\.Inner\.Mu:Unlock\)`
	o.Inner.Mu.Unlock()
}

// UnlockInnerVia releases recv.Inner.Mu through the exported method of the field.
func (o *Outer) UnlockInnerVia() { // want UnlockInnerVia:`releases\((recv\.Inner:UnlockAndNotify )?recv\.Inner\.Mu:Unlock\)`
	o.Inner.UnlockAndNotify()
}

// UnlockIfCounted unlocks only under a condition on the receiver.
func (t *Table) UnlockIfCounted() {
	if t.n > 0 {
		t.Mu.Unlock()
	}
}

// UnlockAll unlocks each lock of a slice: a loop may run zero times.
func UnlockAll(mus []*sync.Mutex) {
	for _, mu := range mus {
		mu.Unlock()
	}
}

// UnlockLater unlocks in a goroutine it starts: the goroutine takes the obligation, as a
// go statement does in the caller.
func UnlockLater(mu *sync.Mutex) { // want UnlockLater:`releases\(0:Unlock\)`
	go mu.Unlock()
}

// CloseAfterFlush returns the flush's error before it closes c: not always.
func CloseAfterFlush(c io.Closer, flush func() error) error {
	if err := flush(); err != nil {
		return err
	}
	return c.Close()
}

// DoneExplicit unlocks the embedded mutex by its field name.
func (l *Locked) DoneExplicit() { // want DoneExplicit:`releases\(recv(\.Mutex)?:Unlock\)`
	l.Mutex.Unlock()
}

// UnlockCopy has a value receiver holding the mutex itself: it unlocks its copy, never the
// caller's mutex.
func (t Table) UnlockCopy() {
	t.Mu.Unlock()
}

// Locker is a generic type with an exported lock.
type Locker[T any] struct {
	Mu sync.Mutex
	V  T
}

// DoneGeneric is a method of a generic type: it releases recv.Mu whatever T is.
func (l *Locker[T]) DoneGeneric() { // want DoneGeneric:`releases\(recv\.Mu:Unlock\)`
	l.Mu.Unlock()
}

// CloseDeferredClosure closes c in a closure it defers, on every return.
func CloseDeferredClosure(c io.Closer) { // want CloseDeferredClosure:`releases\(0:Close\)`
	defer func() {
		c.Close()
	}()
}

// Session holds a connection in a field and closes it on every path: its fact says it
// releases its receiver's Conn.
type Session struct {
	Conn io.Closer
	Name string
}

func (s *Session) Close() error { // want Close:`releases\(recv.Conn:Close\)`
	return s.Conn.Close()
}

// Flush writes what is buffered: it closes nothing.
func (s *Session) Flush() error { return nil }

// Tracer holds a connection but closes it only when asked to: no fact of a release.
type Tracer struct {
	Conn  io.Closer
	Owned bool
}

func (t *Tracer) Close() error {
	if t.Owned {
		return t.Conn.Close()
	}
	return nil
}

// Agent is an ssh agent's client: its signers sign through the connection it was made of.
type Agent interface {
	Signers() ([]Signer, error)
	List() ([]string, error)
	Signer() Signer
	Count() *int
}

// Signer signs data.
type Signer interface {
	Sign(b []byte) ([]byte, error)
}

// NewAgent returns a client of the agent at the other end of rw.
func NewAgent(rw io.ReadWriter) Agent { return nil }
