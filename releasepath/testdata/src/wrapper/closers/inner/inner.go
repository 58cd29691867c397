// Package inner is a third package whose helper closers calls: its summary reaches closers
// as a fact, and closers' summary passes it on.
package inner

import "io"

// Close closes c.
func Close(c io.Closer) {
	c.Close()
}
