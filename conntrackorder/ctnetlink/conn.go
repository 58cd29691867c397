//go:build linux

package ctnetlink

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// conn is one netfilter netlink socket that sends ctnetlink requests and reads their answers
// into one buffer it reuses, so that reading a table dump of any size allocates nothing per
// entry. netlink v1.3.1's sockets allocate a 64 KiB buffer and a copy for every read, and its
// ConntrackDeleteFilters keeps every message of the dump until the end (kubernetes#129982).
//
// A conn is not safe for concurrent use; the Flusher serializes its calls.
type conn struct {
	fd     int
	portID uint32 // the address the kernel gave the socket; answers are sent to it
	seq    uint32
	kernel unix.SockaddrNetlink // where requests go
	buf    []byte               // receive buffer
	req    []byte               // request buffer
	// batch holds requests queued to be sent in one write, seqs first to last.
	batch       []byte
	first, last uint32
}

// recvBufSize holds the largest batch the kernel puts in one read of a dump (it sizes its
// batches by earlier reads, up to 32 KiB), with room to spare.
const recvBufSize = 64 << 10

// openConn opens a netfilter netlink socket in the calling thread's network namespace; the
// socket stays in that namespace whichever thread uses it later.
func openConn() (*conn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
	if err != nil {
		return nil, fmt.Errorf("ctnetlink: open netfilter netlink socket: %w", err)
	}
	c := &conn{fd: fd, kernel: unix.SockaddrNetlink{Family: unix.AF_NETLINK}, buf: make([]byte, recvBufSize)}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		c.close()
		return nil, fmt.Errorf("ctnetlink: bind netfilter netlink socket: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("ctnetlink: netfilter netlink socket address: %w", err)
	}
	nla, ok := sa.(*unix.SockaddrNetlink)
	if !ok {
		c.close()
		return nil, fmt.Errorf("ctnetlink: netfilter netlink socket has address %T", sa)
	}
	c.portID = nla.Pid
	return c, nil
}

func (c *conn) close() {
	_ = unix.Close(c.fd)
}

// send sends one ctnetlink request of type op with flags for address family fam, carrying
// attrs (already encoded), and returns its sequence number.
func (c *conn) send(op uint16, flags uint16, fam uint8, attrs []byte) (uint32, error) {
	c.seq++
	n := unix.NLMSG_HDRLEN + nl.SizeofNfgenmsg + len(attrs)
	c.req = c.req[:0]
	c.req = binary.NativeEndian.AppendUint32(c.req, uint32(n))
	c.req = binary.NativeEndian.AppendUint16(c.req, unix.NFNL_SUBSYS_CTNETLINK<<8|op)
	c.req = binary.NativeEndian.AppendUint16(c.req, unix.NLM_F_REQUEST|flags)
	c.req = binary.NativeEndian.AppendUint32(c.req, c.seq)
	c.req = binary.NativeEndian.AppendUint32(c.req, c.portID)
	c.req = append(c.req, fam, nl.NFNETLINK_V0, 0, 0) // struct nfgenmsg; res_id 0
	c.req = append(c.req, attrs...)
	if err := unix.Sendto(c.fd, c.req, 0, &c.kernel); err != nil {
		return 0, err
	}
	return c.seq, nil
}

// batchBytes bounds a batch of queued requests: a write of it costs one round trip instead of
// one per request, and the kernel's answers to a batch of failures fit the receive buffer.
const batchBytes = 16 << 10

// queue adds a request like send's to the batch, to be sent by flush, and reports whether the
// batch is full.
func (c *conn) queue(op uint16, fam uint8, attrs []byte) (full bool) {
	c.seq++
	if len(c.batch) == 0 {
		c.first = c.seq
	}
	c.last = c.seq
	n := unix.NLMSG_HDRLEN + nl.SizeofNfgenmsg + len(attrs)
	c.batch = binary.NativeEndian.AppendUint32(c.batch, uint32(n))
	c.batch = binary.NativeEndian.AppendUint16(c.batch, unix.NFNL_SUBSYS_CTNETLINK<<8|op)
	c.batch = binary.NativeEndian.AppendUint16(c.batch, unix.NLM_F_REQUEST)
	c.batch = binary.NativeEndian.AppendUint32(c.batch, c.seq)
	c.batch = binary.NativeEndian.AppendUint32(c.batch, c.portID)
	c.batch = append(c.batch, fam, nl.NFNETLINK_V0, 0, 0)
	c.batch = append(c.batch, attrs...)
	for len(c.batch)%unix.NLMSG_ALIGNTO != 0 {
		c.batch = append(c.batch, 0)
	}
	return len(c.batch) >= batchBytes
}

// flush sends the queued requests in one write, the last asking for an acknowledgement, and
// reads the answers up to it. The kernel answers a request of the batch that failed with an
// error even without the flag, and before the acknowledgement of a later one. It returns how
// many requests failed with an error that ignore does not forgive, and the first such error.
func (c *conn) flush(ignore func(error) bool) (failed int, firstErr error) {
	if len(c.batch) == 0 {
		return 0, nil
	}
	first, last := c.first, c.last
	defer func() { c.batch = c.batch[:0] }()
	// The last request's header: walk the batch to it, and ask for the acknowledgement.
	off := 0
	for {
		l := int(binary.NativeEndian.Uint32(c.batch[off:]))
		next := off + (l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)
		if next >= len(c.batch) {
			break
		}
		off = next
	}
	flags := binary.NativeEndian.Uint16(c.batch[off+6:])
	binary.NativeEndian.PutUint16(c.batch[off+6:], flags|unix.NLM_F_ACK)
	if err := unix.Sendto(c.fd, c.batch, 0, &c.kernel); err != nil {
		return int(last - first + 1), err
	}
	for {
		n, _, flags, from, err := unix.Recvmsg(c.fd, c.buf, nil, 0)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return failed + 1, err
		}
		if flags&unix.MSG_TRUNC != 0 {
			return failed + 1, fmt.Errorf("netlink message longer than %d bytes", len(c.buf))
		}
		if nla, ok := from.(*unix.SockaddrNetlink); !ok || nla.Pid != 0 {
			continue
		}
		done := false
		err = walkMessages(c.buf[:n], func(typ, _ uint16, seq uint32, payload []byte) error {
			if seq < first || seq > last || typ != unix.NLMSG_ERROR {
				return nil
			}
			if len(payload) < 4 {
				return errors.New("short netlink error message")
			}
			if errno := int32(binary.NativeEndian.Uint32(payload)); errno != 0 {
				if err := syscall.Errno(-errno); !ignore(err) {
					failed++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			done = done || seq == last
			return nil
		})
		if err != nil {
			return failed + 1, err
		}
		if done {
			return failed, firstErr
		}
	}
}

// errDone ends receive's loop without an error.
var errDone = errors.New("done")

// receive reads the answers to request seq, calling fn with the payload of each data message,
// until the request is answered: NLMSG_DONE ends a dump, NLMSG_ERROR an acknowledged request
// (with errno 0) or a failed one. A payload is valid only during fn. Messages of other
// requests, such as the rest of a dump abandoned after an error, are skipped.
//
// When the kernel marked a message of a dump as interrupted (the table changed in a way that
// may have made it skip entries), receive reads the dump to its end and returns
// nl.ErrDumpInterrupted.
func (c *conn) receive(seq uint32, fn func(payload []byte)) error {
	interrupted := false
	for {
		n, _, flags, from, err := unix.Recvmsg(c.fd, c.buf, nil, 0)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		if flags&unix.MSG_TRUNC != 0 {
			return fmt.Errorf("netlink message longer than %d bytes", len(c.buf))
		}
		if nla, ok := from.(*unix.SockaddrNetlink); !ok || nla.Pid != 0 {
			continue // not from the kernel
		}
		err = walkMessages(c.buf[:n], func(typ, msgFlags uint16, msgSeq uint32, payload []byte) error {
			if msgSeq != seq {
				return nil
			}
			if msgFlags&unix.NLM_F_DUMP_INTR != 0 {
				interrupted = true
			}
			switch typ {
			case unix.NLMSG_DONE:
				return doneErr(payload)
			case unix.NLMSG_ERROR:
				if len(payload) < 4 {
					return errors.New("short netlink error message")
				}
				if errno := int32(binary.NativeEndian.Uint32(payload)); errno != 0 {
					return syscall.Errno(-errno)
				}
				return errDone // the acknowledgement of a request that succeeded
			case unix.NLMSG_NOOP:
				return nil
			}
			fn(payload)
			return nil
		})
		switch {
		case errors.Is(err, errDone):
			if interrupted {
				return nl.ErrDumpInterrupted
			}
			return nil
		case err != nil:
			return err
		}
	}
}

// doneErr returns what the NLMSG_DONE that ends a dump says: errDone, or the error the kernel
// put in it (a negative errno, as netlink_dump does when the dump callback failed), so that a
// dump cut short is never taken for a whole table.
func doneErr(payload []byte) error {
	if len(payload) >= 4 {
		if errno := int32(binary.NativeEndian.Uint32(payload)); errno < 0 {
			return syscall.Errno(-errno)
		}
	}
	return errDone
}

// walkMessages calls fn for each netlink message in b, one read's worth, and stops at the
// first error fn returns.
func walkMessages(b []byte, fn func(typ, flags uint16, seq uint32, payload []byte) error) error {
	for len(b) >= unix.NLMSG_HDRLEN {
		n := int(binary.NativeEndian.Uint32(b[0:4]))
		if n < unix.NLMSG_HDRLEN || n > len(b) {
			return fmt.Errorf("malformed netlink message of %d bytes in %d", n, len(b))
		}
		typ := binary.NativeEndian.Uint16(b[4:6])
		flags := binary.NativeEndian.Uint16(b[6:8])
		seq := binary.NativeEndian.Uint32(b[8:12])
		if err := fn(typ, flags, seq, b[unix.NLMSG_HDRLEN:n]); err != nil {
			return err
		}
		aligned := (n + unix.NLMSG_ALIGNTO - 1) &^ (unix.NLMSG_ALIGNTO - 1)
		if aligned > len(b) {
			aligned = len(b)
		}
		b = b[aligned:]
	}
	return nil
}
