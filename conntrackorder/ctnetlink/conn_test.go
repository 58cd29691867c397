//go:build linux

package ctnetlink

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// appendMessage appends one netlink message, padded to 4 bytes unless unpadded.
func appendMessage(b []byte, typ, flags uint16, seq uint32, payload []byte, unpadded bool) []byte {
	b = binary.NativeEndian.AppendUint32(b, uint32(unix.NLMSG_HDRLEN+len(payload)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = binary.NativeEndian.AppendUint16(b, flags)
	b = binary.NativeEndian.AppendUint32(b, seq)
	b = binary.NativeEndian.AppendUint32(b, 4242)
	b = append(b, payload...)
	for !unpadded && len(b)%unix.NLMSG_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

func TestWalkMessages(t *testing.T) {
	type msg struct {
		Typ     uint16
		Seq     uint32
		Payload string
	}
	errStop := errors.New("stop")
	tests := []struct {
		name    string
		give    []byte
		stopAt  int // fn fails on this message, 1-based; 0 never
		want    []msg
		wantErr string
	}{
		{name: "empty"},
		{
			name: "messages, padded and not",
			give: appendMessage(appendMessage(nil, 0x101, unix.NLM_F_MULTI, 7, []byte("abcde"), false), unix.NLMSG_DONE, 0, 7, []byte("xy"), true),
			want: []msg{{0x101, 7, "abcde"}, {unix.NLMSG_DONE, 7, "xy"}},
		},
		{
			name:    "length beyond the read",
			give:    appendMessage(nil, 0x101, 0, 7, []byte("abcd"), false)[:unix.NLMSG_HDRLEN+2],
			wantErr: "malformed netlink message of 20 bytes in 18",
		},
		{
			name: "length shorter than a header",
			give: func() []byte {
				b := appendMessage(nil, 0x101, 0, 7, nil, false)
				binary.NativeEndian.PutUint32(b, 8)
				return b
			}(),
			wantErr: "malformed netlink message of 8 bytes in 16",
		},
		{
			name:    "fn stops the walk",
			give:    appendMessage(appendMessage(nil, 0x101, 0, 1, []byte("a"), false), 0x101, 0, 2, []byte("b"), false),
			stopAt:  1,
			want:    []msg{{0x101, 1, "a"}},
			wantErr: "stop",
		},
		{name: "trailing bytes shorter than a header are ignored", give: []byte{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []msg
			err := walkMessages(tt.give, func(typ, _ uint16, seq uint32, payload []byte) error {
				got = append(got, msg{typ, seq, string(payload)})
				if len(got) == tt.stopAt {
					return errStop
				}
				return nil
			})
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDoneErr(t *testing.T) {
	le := func(v int32) []byte {
		b := make([]byte, 4)
		binary.NativeEndian.PutUint32(b, uint32(v))
		return b
	}
	tests := []struct {
		name string
		give []byte
		want error
	}{
		{name: "no payload", give: nil, want: errDone},
		{name: "zero", give: le(0), want: errDone},
		{name: "dump length", give: le(4096), want: errDone},
		{name: "kernel error", give: le(-int32(unix.ENOBUFS)), want: unix.ENOBUFS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorIs(t, doneErr(tt.give), tt.want)
		})
	}
}
