// Package inner is a third package whose helper closers calls: its summary reaches closers
// as a fact, and closers' summary passes it on.
package inner

import "io"

// Close closes c.
func Close(c io.Closer) {
	c.Close()
}

// Packet keeps the writer it was packed with.
type Packet struct{ w io.Writer }

// Pack returns a packet that keeps w.
func Pack(w io.Writer) (*Packet, error) { return &Packet{w: w}, nil }
