package closers

import (
	"fmt"
	"io"
	"os"
)

var keptOne io.Closer

// KeepSecond keeps its second argument only.
func KeepSecond(a, b io.Closer) { // want KeepSecond:`releases\(\) keeps\(1\)`
	keptOne = b
}

var lastName string

// RememberName keeps a field of f: nothing of f. No fact.
func RememberName(f *os.File) {
	lastName = f.Name()
}

// RememberVia keeps c through Remember.
func RememberVia(c io.Closer) { // want RememberVia:`releases\(\) keeps\(0\)`
	Remember(c)
}

// RememberViaHidden keeps c through an unexported keeper.
func RememberViaHidden(c io.Closer) { // want RememberViaHidden:`releases\(\) keeps\(0\)`
	remember(c)
}

func remember(c io.Closer) { keptOne = c }

var ch = make(chan io.Closer, 1)

// Send sends c.
func Send(c io.Closer) { // want Send:`releases\(\) keeps\(0\)`
	ch <- c
}

// Watch hands c to a goroutine.
func Watch(c io.Closer) { // want Watch:`releases\(\) keeps\(0\)`
	go func() {
		fmt.Println(c)
	}()
}

// WatchName hands only a copy of the name to a goroutine: no fact.
func WatchName(f *os.File) {
	name := f.Name()
	go func() { fmt.Println(name) }()
}

// Registry keeps closers.
type Registry struct{ cs []io.Closer }

// Add keeps c in its receiver.
func (r *Registry) Add(c io.Closer) { // want Add:`releases\(\) stores\(0\)`
	r.cs = append(r.cs, c)
}

// AddCopy has a value receiver: its append is lost, nothing kept. No fact.
func (r Registry) AddCopy(c io.Closer) {
	r.cs = append(r.cs, c)
}

// KeepAll is variadic and keeps every argument.
func KeepAll(cs ...io.Closer) { // want KeepAll:`releases\(\) keeps\(0\)`
	for _, c := range cs {
		keptOne = c
	}
}

// KeepGeneric keeps its argument whatever T is.
func KeepGeneric[T io.Closer](c T) { // want KeepGeneric:`releases\(\) keeps\(0\)`
	keptOne = c
}

// CloseAndKeepOther closes a and keeps b.
func CloseAndKeepOther(a, b io.Closer) { // want CloseAndKeepOther:`releases\(0:Close\) keeps\(1\)`
	a.Close()
	keptOne = b
}
