package releasepath

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An obligation says on which returns an acquisition must have been undone.
type obligation uint8

const (
	// scoped: released on every return unless ownership is handed on (Hold, Lock, Open).
	scoped obligation = iota + 1
	// rollback: undone on the error returns, and only when the function itself undoes it on
	// some error path already (Create, Add, Allocate). A reconciler's create is usually meant
	// to outlive the call; an inconsistent rollback is the bug worth a report.
	rollback
	// errorReturns: undone on every error return, whether or not the function ever undoes it
	// (the configured and default pairs: an IPAM allocation never outlives a failed ADD).
	errorReturns
)

// scopedVerbs maps each acquire verb whose hold must end before the function returns to the
// verbs that end it.
var scopedVerbs = map[string][]string{
	"Hold":    {"Release", "Unhold"},
	"Reserve": {"Release", "Unreserve", "Free"},
	"Acquire": {"Release", "Destroy"}, // a pooled resource goes back released or destroyed
	"Claim":   {"Release", "Unclaim"},
	"Lock":    {"Unlock"},
	"Open":    {"Close", "Commit", "Abort", "Discard"}, // a content writer's Commit closes it, even on error (containerd); an upload's Abort and a transaction's Discard end it (goleveldb's OpenTransaction)
	"Begin":   {"Commit", "Rollback", "End", "Discard"},
	"Dial":    {"Close"},
}

// rollbackVerbs maps each acquire verb whose result usually outlives the function to the verbs
// that undo it.
var rollbackVerbs = map[string][]string{
	"Create":   {"Delete", "Destroy", "Remove"},
	"Insert":   {"Delete", "Remove"},
	"Add":      {"Del", "Delete", "Remove"},
	"Allocate": {"Release", "Free", "Deallocate"},
	"Alloc":    {"Free", "Release", "Dealloc"},
	"Grant":    {"Revoke"},
	"Attach":   {"Detach"},
	"Mount":    {"Unmount", "Umount"},
	"Setup":    {"Teardown", "Cleanup"},
	"Start":    {"Stop", "Shutdown"},
}

// A pair is an acquisition and the calls that end it, named by their full names as
// [funcName] prints them: "os.Open", "os.File.Close", "example.com/ipam.ExecAdd".
type pair struct {
	acquire  string
	releases []string
	kind     obligation
	source   string // "default" or "config"
}

const (
	leasePkg   = "github.com/safereconcile/safereconcile/lease"
	acquirePkg = "github.com/safereconcile/safereconcile/acquire"
)

// defaultPairs is the table for the field: what controllers, CNI plugins and node agents
// acquire through well-known APIs, and this module's own types.
var defaultPairs = []pair{
	{"github.com/containernetworking/plugins/pkg/ipam.ExecAdd", []string{"github.com/containernetworking/plugins/pkg/ipam.ExecDel"}, errorReturns, "default"},
	{"github.com/containernetworking/cni/pkg/invoke.DelegateAdd", []string{"github.com/containernetworking/cni/pkg/invoke.DelegateDel"}, errorReturns, "default"},
	{"github.com/vishvananda/netlink.LinkAdd", []string{"github.com/vishvananda/netlink.LinkDel"}, errorReturns, "default"},
	{"github.com/vishvananda/netlink.Handle.LinkAdd", []string{"github.com/vishvananda/netlink.Handle.LinkDel"}, errorReturns, "default"},
	{"go.etcd.io/etcd/client/v3.Lease.Grant", []string{"go.etcd.io/etcd/client/v3.Lease.Revoke"}, errorReturns, "default"},
	{"go.etcd.io/etcd/client/v3/concurrency.NewSession", []string{"go.etcd.io/etcd/client/v3/concurrency.Session.Close", "go.etcd.io/etcd/client/v3/concurrency.Session.Orphan"}, scoped, "default"}, // Orphan ends the keepalive and leaves the lease to its owner
	{"os.Open", []string{"os.File.Close"}, scoped, "default"},
	{"os.OpenFile", []string{"os.File.Close"}, scoped, "default"},
	{"os.Create", []string{"os.File.Close"}, scoped, "default"},
	{"os.CreateTemp", []string{"os.File.Close"}, scoped, "default"},
	{"io/ioutil.TempFile", []string{"os.File.Close"}, scoped, "default"},
	{"net.Listen", []string{"net.Listener.Close"}, scoped, "default"},
	// A dialed conn is closed as the net.Conn it is, or as the *net.TCPConn (or UnixConn,
	// UDPConn) it is asserted to be, whose Close is its embedded net.conn's.
	{"net.Dial", []string{"net.Conn.Close", "net.conn.Close"}, scoped, "default"},
	{"net.DialTimeout", []string{"net.Conn.Close", "net.conn.Close"}, scoped, "default"},
	{"net.Dialer.Dial", []string{"net.Conn.Close", "net.conn.Close"}, scoped, "default"},
	{"net.Dialer.DialContext", []string{"net.Conn.Close", "net.conn.Close"}, scoped, "default"},
	// A TLS connection is closed as a *tls.Conn or as the net.Conn it is kept in.
	{"crypto/tls.Dial", []string{"crypto/tls.Conn.Close", "net.Conn.Close"}, scoped, "default"},
	{"crypto/tls.DialWithDialer", []string{"crypto/tls.Conn.Close", "net.Conn.Close"}, scoped, "default"},
	{"crypto/tls.Dialer.Dial", []string{"net.Conn.Close", "crypto/tls.Conn.Close"}, scoped, "default"},
	{"crypto/tls.Dialer.DialContext", []string{"net.Conn.Close", "crypto/tls.Conn.Close"}, scoped, "default"},
	{leasePkg + ".New", []string{leasePkg + ".Lease.Release", leasePkg + ".Lease.Keep"}, scoped, "default"},
	{acquirePkg + ".New", []string{acquirePkg + ".Scope.End"}, scoped, "default"},
}

// parsePairs parses the -pairs flag: a comma-separated list of acquire=release, each a full
// name as in "example.com/ipam.ExecAdd=example.com/ipam.ExecDel" or, for methods,
// "example.com/cloud.Client.Reserve=example.com/cloud.Client.Release". Several releases for
// one acquisition are separated by "|".
func parsePairs(s string) ([]pair, error) {
	var ps []pair
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		acq, rels, ok := strings.Cut(f, "=")
		if !ok || !validName(acq) {
			return nil, fmt.Errorf("releasepath: pair %q: want acquire=release, each a full name such as example.com/pkg.Func or example.com/pkg.Type.Method", f)
		}
		p := pair{acquire: strings.TrimSpace(acq), kind: errorReturns, source: "config"}
		for _, r := range strings.Split(rels, "|") {
			r = strings.TrimSpace(r)
			if !validName(r) {
				return nil, fmt.Errorf("releasepath: pair %q: release %q is not a full name such as example.com/pkg.Func or example.com/pkg.Type.Method", f, r)
			}
			p.releases = append(p.releases, r)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// validName reports whether s is a full name, pkg.Func or pkg.Type.Method: an import path
// of segments of letters, digits and "._~-" joined by "/", then one or two Go identifiers.
// Anything else (a second "=", a leading "*", a parenthesized receiver, a space) is an
// error, since it would match no function and silence the pair without a word.
func validName(s string) bool {
	s = strings.TrimSpace(s)
	path, last := "", s
	if i := strings.LastIndex(s, "/"); i >= 0 {
		path, last = s[:i], s[i+1:]
	}
	parts := strings.Split(last, ".")
	if len(parts) < 2 || len(parts) > 3 || !validPathSegment(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if !token.IsIdentifier(p) {
			return false
		}
	}
	if path != "" {
		for _, seg := range strings.Split(path, "/") {
			if !validPathSegment(seg) {
				return false
			}
		}
	}
	return true
}

func validPathSegment(seg string) bool {
	if seg == "" {
		return false
	}
	for _, r := range seg {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._~-", r))) {
			return false
		}
	}
	return true
}

// funcName returns the full name of fn as the pair table spells it: "os.Open" for a
// function, "os.File.Close" for a method (pointer receivers included), "" when fn has no
// package (a builtin or an error method).
func funcName(fn *types.Func) string {
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return fn.Pkg().Path() + "." + fn.Name()
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := t.(type) {
	case *types.Named:
		return fn.Pkg().Path() + "." + t.Obj().Name() + "." + fn.Name()
	case *types.Alias:
		return fn.Pkg().Path() + "." + t.Obj().Name() + "." + fn.Name()
	}
	// A method of an unnamed interface: identify it by the interface's origin when the
	// selection names one, which the caller handles; here there is no stable name.
	return ""
}

// words splits a CamelCase or camelCase identifier into its words: "HoldAddress" gives
// [Hold Address], "RLock" gives [R Lock], "holdAddressV1201" gives [hold Address V1201].
func words(name string) []string {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return runeWords(name)
		}
	}
	// ASCII, as nearly every name is: the words are slices of name, no copy made.
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	lower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	ws := make([]string, 0, 4)
	start := 0
	for i := 1; i < len(name); i++ {
		if upper(name[i]) && (!upper(name[i-1]) || i+1 < len(name) && lower(name[i+1])) {
			// "RLock": the run "RL" splits before the upper letter that starts a word.
			ws = append(ws, name[start:i])
			start = i
		}
	}
	return append(ws, name[start:])
}

// runeWords is words for a name with letters beyond ASCII.
func runeWords(name string) []string {
	var ws []string
	start := 0
	rs := []rune(name)
	for i := 1; i < len(rs); i++ {
		if unicode.IsUpper(rs[i]) && !unicode.IsUpper(rs[i-1]) {
			ws = append(ws, string(rs[start:i]))
			start = i
		} else if unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) && i-start > 0 {
			ws = append(ws, string(rs[start:i]))
			start = i
		}
	}
	return append(ws, string(rs[start:]))
}

// A verbMatch is an acquire verb found in a call's name.
type verbMatch struct {
	verb     string   // canonical verb, "Hold"
	releases []string // release names made by swapping the verb: "ReleaseAddress"
	relVerbs []string // the release verbs themselves, with the lock's mode: "Release", "RUnlock"
	kind     obligation
}

// verbModifiers are the words that may come before a lock verb: RLock, TryLock, TryRLock.
// "R" is the lock's mode, which its release keeps (RLock, RUnlock); "Try" is how it was
// taken, which its release drops (TryLock, Unlock).
var verbModifiers = map[string]bool{"R": true, "Try": true}

// matchVerb finds the acquire verb that leads name and returns the release names the swap
// gives. Go method names lead with their verb, so only the first word counts (after a lock
// modifier, RLock, TryLock): IsLikelyNotMountPoint and GetMountRefs are queries, not mounts.
func matchVerb(name string) (verbMatch, bool) {
	ws := words(name)
	lead := 0
	for lead < len(ws)-1 && verbModifiers[ws[lead]] {
		lead++
	}
	for i, w := range ws[:lead+1] {
		canon := strings.ToUpper(w[:1]) + w[1:]
		kind := scoped
		rels, ok := scopedVerbs[canon]
		if !ok {
			if rels, ok = rollbackVerbs[canon]; !ok {
				continue
			}
			kind = rollback
		}
		// The lock's mode stays with the verb: RLock and TryRLock are released by RUnlock
		// only, Lock and TryLock by Unlock only (lockmode).
		mode := strings.Join(slices.DeleteFunc(slices.Clone(ws[:i]), func(m string) bool { return m == "Try" }), "")
		m := verbMatch{verb: canon, kind: kind}
		for _, r := range rels {
			m.relVerbs = append(m.relVerbs, mode+r)
			if unicode.IsLower([]rune(w)[0]) {
				r = strings.ToLower(r[:1]) + r[1:]
			}
			m.releases = append(m.releases, mode+r+strings.Join(ws[i+1:], ""))
		}
		return m, true
	}
	return verbMatch{}, false
}

// isReleaseVerbName reports whether name starts with one of verbs (any case of its first
// letter), the loose form of a release: "releaseOwn" for the verb Release. A verb of two
// words counts only whole: "Unlock" does not start "RUnlock", nor "RUnlock" "Unlock".
func isReleaseVerbName(name string, verbs []string) bool {
	ws := words(name)
	if len(ws) == 0 {
		return false
	}
	for _, v := range verbs {
		n := len(words(v))
		if n > len(ws) {
			continue
		}
		k := 0
		for _, w := range ws[:n] {
			k += len(w)
		}
		if lead := name[:k]; len(lead) == len(v) && lead[1:] == v[1:] && upperFirst(lead) == v[:1] {
			return true
		}
	}
	return false
}

// upperFirst returns the first byte of s in upper case, as a string.
func upperFirst(s string) string {
	if c := s[0]; 'a' <= c && c <= 'z' {
		return string(rune(c - 'a' + 'A'))
	}
	return strings.ToUpper(s[:1])
}

// noun returns what follows the leading verb of name, its modifiers and a lock's mode
// included ("Address" of HoldAddress, "WireBytes" of releaseWireBytes), or "" for a bare verb
// (Close) or a name that leads with no verb.
func noun(name string) string {
	ws := words(name)
	for i, w := range ws {
		canon := strings.ToUpper(w[:1]) + w[1:]
		if _, ok := scopedVerbs[canon]; ok {
			return strings.Join(ws[i+1:], "")
		}
		if _, ok := rollbackVerbs[canon]; ok {
			return strings.Join(ws[i+1:], "")
		}
		if releaseVerbs[canon] {
			return strings.Join(ws[i+1:], "")
		}
		if !verbModifiers[w] {
			return ""
		}
	}
	return ""
}

// namesAgree reports whether a release of this name may end a by their names (sharesNoun),
// and a noun phrase is released only by a release that names its noun: mountpoint :=
// d.mountPath(id) is the path of a mount, which unix.Unmount(mountpoint, 0) does not undo,
// while id := a.AllocateID() … a.ReleaseID(id) is a pair.
func (a *acquisition) namesAgree(rel string) bool {
	return sharesNoun(a.name, rel) && (noun(rel) != "" || !a.nounPhrase())
}

// nounPhrase reports whether a's call names a thing rather than an act: a verb with a noun
// after it (mountPath, lockName, openCount) whose callee returns one string or number and
// no error. Such a call computes a value; an acquisition that cannot fail and gives back a
// number or a string is rare, and its release names what it gives back (ReleaseID).
func (a *acquisition) nounPhrase() bool {
	if noun(a.name) == "" {
		return false
	}
	res := a.fn.Type().(*types.Signature).Results()
	if res.Len() != 1 {
		return false
	}
	b, ok := res.At(0).Type().Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsString|types.IsNumeric) != 0 // a bool may say a try-lock held
}

// sharesNoun reports whether an acquisition and a release of another name may be one pair
// by their names: either is a bare verb (f.Close() for os.Open), or their nouns are the same
// word or words, or one is the other's plural (CreateVolume and DeleteVolumes, AllocateIP and
// ReleaseIPs). req.claimAbandon() and mc.releaseWireBytes(req.reserved) name two things, and
// so do CreateIndex and DeleteIndexFile.
func sharesNoun(acq, rel string) bool {
	a, r := strings.ToLower(noun(acq)), strings.ToLower(noun(rel))
	plural := func(x, y string) bool { return y == x+"s" || y == x+"es" }
	return a == "" || r == "" || a == r || plural(a, r) || plural(r, a)
}
