package closers

import (
	"io"
	"time"
)

// CloseShortCircuit closes in its return only when verbose is false: not every return.
func CloseShortCircuit(c io.Closer, verbose bool) bool {
	return verbose || c.Close() == nil
}

// CloseDeferAfterReturn defers the close after an early return: not every return.
func CloseDeferAfterReturn(c io.Closer, skip bool) {
	if skip {
		return
	}
	defer c.Close()
}

// CloseDeferUnderCondition registers the defer under a condition: it closes c when ok is
// true.
func CloseDeferUnderCondition(c io.Closer, ok bool) { // want CloseDeferUnderCondition:`releases\(\) when\(1\)\(0:Close\)`
	if ok {
		defer c.Close()
	}
}

// CloseDeferredClosureIf closes in a deferred closure under a condition.
func CloseDeferredClosureIf(c io.Closer, ok bool) {
	defer func() {
		if ok {
			c.Close()
		}
	}()
}

// CloseInGoIf closes in a goroutine started under a condition.
func CloseInGoIf(c io.Closer, ok bool) { // want CloseInGoIf:`releases\(\) keeps\(0\)`
	if ok {
		go c.Close()
	}
}

// CloseInGoLiteralIf closes under a condition inside the goroutine.
func CloseInGoLiteralIf(c io.Closer, ok bool) { // want CloseInGoLiteralIf:`releases\(\) keeps\(0( 1)?\)`
	go func() {
		if ok {
			c.Close()
		}
	}()
}

// ReturnCloser returns a closure that closes c: it closes nothing itself.
func ReturnCloser(c io.Closer) func() error {
	return func() error { return c.Close() }
}

// ClosureNotCalled makes a closure that closes c and never calls it.
func ClosureNotCalled(c io.Closer) {
	f := func() { c.Close() }
	_ = f
}

// Forever never returns and closes nothing: "before every return" is vacuous.
func Forever(c io.Closer) {
	for {
		time.Sleep(time.Second)
	}
}

// CloseAfterLoopBreak returns from inside a loop before the close.
func CloseAfterLoopBreak(c io.Closer, xs []int) {
	for _, x := range xs {
		if x < 0 {
			return
		}
	}
	c.Close()
}

// CloseInSwitchDefault closes in the default only.
func CloseInSwitchDefault(c io.Closer, k int) {
	switch k {
	case 1:
	default:
		c.Close()
	}
}

// CloseInEveryCase closes in every case including default: a summary counts no release in a
// switch case, even one in every case (conservative: no fact).
func CloseInEveryCase(c io.Closer, k int) {
	switch k {
	case 1:
		c.Close()
	default:
		c.Close()
	}
}

// CloseReturnedFirst closes then returns the error: in the return itself, every path.
func CloseReturnedFirst(c io.Closer) error { // want CloseReturnedFirst:`releases\(0:Close\)`
	return c.Close()
}

// CloseInDeferredGo: a deferred closure that starts a goroutine closing c.
func CloseInDeferredGo(c io.Closer) { // want CloseInDeferredGo:`releases\(0:Close\)`
	defer func() {
		go c.Close()
	}()
}

// CloseRecovered: the close follows a call that may panic; panics are not returns.
func CloseBeforePanic(c io.Closer, bad bool) { // want CloseBeforePanic:`releases\(0:Close\)`
	if bad {
		panic("bad")
	}
	c.Close()
}

// CloseInSelect closes in one case of a select only.
func CloseInSelect(c io.Closer, ch chan int) {
	select {
	case <-ch:
		c.Close()
	default:
	}
}

// CloseAndShadow closes a shadowing variable, not the parameter.
func CloseAndShadow(c io.Closer, d io.Closer) {
	{
		c := d
		c.Close()
	}
}

// CloseAfterGoto jumps past its close.
func CloseAfterGoto(c io.Closer, skip bool) {
	if skip {
		goto end
	}
	c.Close()
end:
}
