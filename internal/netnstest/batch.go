//go:build linux

package netnstest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawConn is a netfilter netlink socket that sends conntrack requests in batches: many
// messages in one write, acknowledged by the last. A table of 220,000 entries is built in
// about a second this way, where one round trip per entry takes a minute.
type rawConn struct {
	fd  int
	seq uint32
	req []byte // the batch being built
	buf []byte // receive buffer
	// first and flows map the sequence numbers of the batch to the flows they create, so
	// that an error names its flow.
	first uint32
	flows []Flow
}

// batchBytes bounds one batch; the kernel takes a write of any size, but its answers to a
// batch of failures must fit the socket's receive buffer.
const batchBytes = 64 << 10

// Netlink attribute types and values of include/uapi/linux/netfilter/nfnetlink_conntrack.h
// and nf_conntrack_common.h.
const (
	ctaTupleOrig         = 1
	ctaTupleReply        = 2
	ctaStatus            = 3
	ctaProtoinfo         = 4
	ctaTimeout           = 7
	ctaTupleIP           = 1
	ctaTupleProto        = 2
	ctaIPv4Src           = 1
	ctaIPv4Dst           = 2
	ctaIPv6Src           = 3
	ctaIPv6Dst           = 4
	ctaProtoNum          = 1
	ctaProtoSrc          = 2
	ctaProtoDst          = 3
	ctaProtoinfoTCP      = 1
	ctaProtoinfoTCPState = 1
	tcpEstablished       = 3 // TCP_CONNTRACK_ESTABLISHED

	ctaFilter          = 25     // CTA_FILTER
	ctaFilterOrigFlags = 1      // CTA_FILTER_ORIG_FLAGS
	ctaFilterProtoNum  = 1 << 3 // CTA_FILTER_FLAG_CTA_PROTO_NUM

	ipctnlMsgCtNew = 0 // IPCTNL_MSG_CT_NEW
	ipctnlMsgCtGet = 1 // IPCTNL_MSG_CT_GET
)

// entryTimeout is the timeout of every created entry, in seconds: an hour, longer than any
// benchmark that fills a table once and reads it many times.
const entryTimeout = 3600

func openRawConn() (*rawConn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
	if err != nil {
		return nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	// Room for the answers to a whole batch of failed creates.
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4<<20)
	return &rawConn{fd: fd, buf: make([]byte, 64<<10)}, nil
}

func (c *rawConn) close() { _ = unix.Close(c.fd) }

// create creates one entry per flow, in batches; it stops at the first batch with an error.
func (c *rawConn) create(flows []Flow) error {
	for _, f := range flows {
		if len(c.req) >= batchBytes {
			if err := c.flush(); err != nil {
				return err
			}
		}
		msg, err := c.appendCreate(c.req, f)
		if err != nil {
			return err
		}
		c.req = msg
		c.flows = append(c.flows, f)
	}
	return c.flush()
}

// flush sends the batch, the last message asking for an acknowledgement, and waits for it.
// The kernel answers a failed create of the batch with an error message even without the
// flag, and before the acknowledgement of a later one.
func (c *rawConn) flush() error {
	if len(c.flows) == 0 {
		return nil
	}
	defer func() { c.req, c.flows = c.req[:0], c.flows[:0] }()
	last := c.seq
	off := c.lastOffset()
	flags := binary.NativeEndian.Uint16(c.req[off+6:])
	binary.NativeEndian.PutUint16(c.req[off+6:], flags|unix.NLM_F_ACK)
	if err := unix.Sendto(c.fd, c.req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("netnstest: create conntrack entries: %w", err)
	}
	var firstErr error
	for {
		n, _, err := unix.Recvfrom(c.fd, c.buf, 0)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fmt.Errorf("netnstest: create conntrack entries: %w", err)
		}
		for b := c.buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(binary.NativeEndian.Uint32(b))
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return errors.New("netnstest: malformed netlink answer")
			}
			typ := binary.NativeEndian.Uint16(b[4:])
			seq := binary.NativeEndian.Uint32(b[8:])
			if typ == unix.NLMSG_ERROR && l >= unix.NLMSG_HDRLEN+4 {
				if errno := int32(binary.NativeEndian.Uint32(b[unix.NLMSG_HDRLEN:])); errno != 0 && firstErr == nil {
					i := int(seq - c.first)
					if i >= 0 && i < len(c.flows) {
						firstErr = fmt.Errorf("netnstest: create conntrack entry %+v: %w", c.flows[i], syscall.Errno(-errno))
					} else {
						firstErr = fmt.Errorf("netnstest: create conntrack entries: %w", syscall.Errno(-errno))
					}
				}
				if seq == last {
					return firstErr
				}
			}
			b = b[(l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1):]
		}
	}
}

// lastOffset returns where the batch's last message starts.
func (c *rawConn) lastOffset() int {
	off := 0
	for {
		l := int(binary.NativeEndian.Uint32(c.req[off:]))
		next := off + (l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)
		if next >= len(c.req) {
			return off
		}
		off = next
	}
}

// appendCreate appends the request that creates f's entry: the original tuple, the reply
// tuple of a flow that was not NATed, and, for a flow with a ReplySrc, CTA_NAT_DST, so that
// the kernel DNATs it as the rule would (nf_nat_setup_info) and sets IPS_DST_NAT. Given the
// NATed reply tuple instead, as conntrack -I -r is, the kernel finds nothing to rewrite and
// leaves IPS_DST_NAT unset. A TCP entry is ESTABLISHED. (The kernel refuses a CTA_STATUS
// on create with EBUSY, so no entry is marked assured: fill a table below nf_conntrack_max,
// where nothing is dropped early.)
func (c *rawConn) appendCreate(b []byte, f Flow) ([]byte, error) {
	proto, err := f.protocolNumber()
	if err != nil {
		return nil, err
	}
	fam, err := f.family()
	if err != nil {
		return nil, err
	}
	c.seq++
	if len(c.flows) == 0 {
		c.first = c.seq
	}
	start := len(b)
	b = binary.NativeEndian.AppendUint32(b, 0) // length, set below
	b = binary.NativeEndian.AppendUint16(b, unix.NFNL_SUBSYS_CTNETLINK<<8|ipctnlMsgCtNew)
	b = binary.NativeEndian.AppendUint16(b, unix.NLM_F_REQUEST|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	b = binary.NativeEndian.AppendUint32(b, c.seq)
	b = binary.NativeEndian.AppendUint32(b, 0)
	b = append(b, fam, 0, 0, 0) // struct nfgenmsg: family, NFNETLINK_V0, res_id 0

	b = appendNested(b, ctaTupleOrig, func(b []byte) []byte { return appendTuple(b, proto, f.Src, f.Dst) })
	b = appendNested(b, ctaTupleReply, func(b []byte) []byte { return appendTuple(b, proto, f.Dst, f.Src) })
	b = appendAttr(b, ctaTimeout, binary.BigEndian.AppendUint32(nil, entryTimeout))
	nated := f.ReplySrc.IsValid() && f.ReplySrc != f.Dst
	if proto == unix.IPPROTO_TCP {
		b = appendNested(b, ctaProtoinfo, func(b []byte) []byte {
			return appendNested(b, ctaProtoinfoTCP, func(b []byte) []byte {
				return appendAttr(b, ctaProtoinfoTCPState, []byte{tcpEstablished})
			})
		})
	}
	if nated {
		minIP, maxIP := uint16(ctaNATv4MinIP), uint16(ctaNATv4MaxIP)
		if !f.ReplySrc.Addr().Is4() {
			minIP, maxIP = ctaNATv6MinIP, ctaNATv6MaxIP
		}
		ip := f.ReplySrc.Addr().AsSlice()
		port := binary.BigEndian.AppendUint16(nil, f.ReplySrc.Port())
		b = appendNested(b, ctaNATDst, func(b []byte) []byte {
			b = appendAttr(b, minIP, ip)
			b = appendAttr(b, maxIP, ip)
			return appendNested(b, ctaNATProto, func(b []byte) []byte {
				b = appendAttr(b, ctaProtoNATPortLo, port)
				return appendAttr(b, ctaProtoNATPortHi, port)
			})
		})
	}
	binary.NativeEndian.PutUint32(b[start:], uint32(len(b)-start))
	return b, nil
}

// appendTuple appends the attributes of a CTA_TUPLE_ORIG or CTA_TUPLE_REPLY from src to dst.
func appendTuple(b []byte, proto uint8, src, dst netip.AddrPort) []byte {
	b = appendNested(b, ctaTupleIP, func(b []byte) []byte {
		s, d := uint16(ctaIPv4Src), uint16(ctaIPv4Dst)
		if !src.Addr().Is4() {
			s, d = ctaIPv6Src, ctaIPv6Dst
		}
		b = appendAttr(b, s, src.Addr().AsSlice())
		return appendAttr(b, d, dst.Addr().AsSlice())
	})
	return appendNested(b, ctaTupleProto, func(b []byte) []byte {
		b = appendAttr(b, ctaProtoNum, []byte{proto})
		b = appendAttr(b, ctaProtoSrc, binary.BigEndian.AppendUint16(nil, src.Port()))
		return appendAttr(b, ctaProtoDst, binary.BigEndian.AppendUint16(nil, dst.Port()))
	})
}

// appendAttr appends a netlink attribute, padded to 4 bytes.
func appendAttr(b []byte, typ uint16, val []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(unix.SizeofNlAttr+len(val)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, val...)
	for len(b)%unix.NLA_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

// appendNested appends a nested attribute whose value fill appends.
func appendNested(b []byte, typ uint16, fill func([]byte) []byte) []byte {
	start := len(b)
	b = binary.NativeEndian.AppendUint16(b, 0)
	b = binary.NativeEndian.AppendUint16(b, unix.NLA_F_NESTED|typ)
	b = fill(b)
	binary.NativeEndian.PutUint16(b[start:], uint16(len(b)-start))
	return b
}

// dump reads the table of one address family, only the entries of proto when it is not 0
// (the kernel-side filter of Linux 5.8), and returns how many entries it read. It judges
// nothing: it is the least a reader of the table can do, the baseline of the benchmarks.
func (c *rawConn) dump(fam, proto uint8) (int, error) {
	c.seq++
	seq := c.seq
	var b []byte
	b = binary.NativeEndian.AppendUint32(b, 0)
	b = binary.NativeEndian.AppendUint16(b, unix.NFNL_SUBSYS_CTNETLINK<<8|ipctnlMsgCtGet)
	b = binary.NativeEndian.AppendUint16(b, unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	b = binary.NativeEndian.AppendUint32(b, seq)
	b = binary.NativeEndian.AppendUint32(b, 0)
	b = append(b, fam, 0, 0, 0)
	if proto != 0 {
		flags := binary.NativeEndian.AppendUint32(nil, ctaFilterProtoNum)
		b = appendNested(b, ctaFilter, func(b []byte) []byte { return appendAttr(b, ctaFilterOrigFlags, flags) })
		b = appendNested(b, ctaTupleOrig, func(b []byte) []byte {
			return appendNested(b, ctaTupleProto, func(b []byte) []byte { return appendAttr(b, ctaProtoNum, []byte{proto}) })
		})
	}
	binary.NativeEndian.PutUint32(b, uint32(len(b)))
	if err := unix.Sendto(c.fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, err
	}
	entries := 0
	for {
		n, _, err := unix.Recvfrom(c.fd, c.buf, 0)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return entries, err
		}
		for b := c.buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(binary.NativeEndian.Uint32(b))
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return entries, errors.New("netnstest: malformed netlink answer")
			}
			typ := binary.NativeEndian.Uint16(b[4:])
			if binary.NativeEndian.Uint32(b[8:]) == seq {
				switch typ {
				case unix.NLMSG_DONE:
					return entries, nil
				case unix.NLMSG_ERROR:
					if errno := int32(binary.NativeEndian.Uint32(b[unix.NLMSG_HDRLEN:])); errno != 0 {
						return entries, syscall.Errno(-errno)
					}
					return entries, nil
				default:
					entries++
				}
			}
			b = b[(l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1):]
		}
	}
}
