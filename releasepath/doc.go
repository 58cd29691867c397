// Package releasepath defines an Analyzer that reports the returns that can skip the release
// of a resource the function acquired.
//
// # Analyzer releasepath
//
// releasepath: check that every return after an acquisition releases it
//
// A function that reserves an address, takes a lock, opens a file or allocates an IP, and
// releases it only at the end of its success path, leaks the resource on every early return
// in between. The GCE internal load balancer controller of Kubernetes v1.20.1 did exactly
// this (kubernetes#97740): it held an address, then returned on five later errors before
// the release at the end, and each failing sync left a reservation behind.
//
// For each acquisition, releasepath searches the control-flow graph from the acquisition to
// every return and reports each return reached without the release, without a deferred
// release and without the resource being handed on:
//
//	gce_loadbalancer_internal.go:173:3: return may skip addrMgr.ReleaseAddress (HoldAddress at line 164)
//
// A call is an acquisition when its name holds an acquire verb (Hold, Reserve, Acquire,
// Claim, Lock, Open, Begin, Dial; Create, Insert, Add, Allocate, Grant, Attach, Mount, Setup,
// Start) and the function also calls the matching release (HoldAddress and ReleaseAddress,
// ExecAdd and ExecDel, RLock and RUnlock) on the same receiver, on the acquired value, or
// with the same arguments; receivers and values are compared by their types.Object, never
// by name. The first group must be released on every return; the second (creates, which
// usually outlive the call) only on the error returns, and only when the function undoes
// the acquisition on some error path already. A small table adds well-known pairs that are
// checked on every error return even when no release is seen (CNI ipam.ExecAdd, netlink
// LinkAdd, etcd Grant, os.Open and os.CreateTemp, net.Listen), and this module's own types: a *lease.Lease
// from lease.New must be released, kept or handed on, and a scope from acquire.New ended by
// a deferred End. The -pairs flag adds pairs of full names, several releases separated by
// "|":
//
//	-pairs=example.com/cloud.Client.Reserve=example.com/cloud.Client.Release
//
// These paths are not leaks: the acquisition's own failure branch (err != nil, errors.Is,
// IsNotFound, err == errNotFound, the non-nil cases of switch err { case nil: … }, checked
// at once or later, while err still holds the acquisition's error); the nil or false edge
// of a guard on the handle (if addrMgr != nil, if owned, if mu.TryLock()); calls that never
// return (panic, os.Exit, log.Fatal, klog.Fatal, t.Fatal); the end of a function no path
// falls off (after a select whose every case returns, or for { select {…} } without a
// break); returns after a deferred release, including a deferred closure that releases
// while an ok flag is false or, for a named err result, while err is non-nil; returns that
// hand the resource on (return it or a closure that releases it with a nil error, store it
// in a field, map, slice or channel, capture it in a go statement, pass a closure that
// releases it, as to t.Cleanup, or the release as a method value, as s.Defer("address/x",
// l.Release) or t.Cleanup(f.Close)). When the release takes the acquired value as an
// argument (ip from HoldAddress, ReleaseAddress(ip)), that value is the resource for these
// rules, a string as much as a pointer. A value returned together with an error that is
// non-nil on that path (the true edge of err != nil, errors.New, fmt.Errorf) is not handed
// on, since by Go's convention the caller drops it; this return is reported even in a
// function that never calls the release, when the receiver or the value has the release
// method (m.ReleaseAddress, a.Release). With an error that may be nil, the value is handed
// on. A call of a function of the same package that releases its argument or receiver
// counts as the release. Function literals are checked as functions of their own, and
// _test.go files only with -tests.
//
// When it is clearly safe, the diagnostic carries a suggested fix, the shape of the #97740
// fix: defer the release right after the acquisition's error check and delete the call on
// the success path. The first leaking return of an acquisition carries it, since it fixes
// them all; releasepath -fix applies it.
//
// A comment silences a finding: //releasepath:ok <reason> on the return or the acquisition
// (the reason is required), //releasepath:handoff in the doc comment of a function that
// returns holding the resource on purpose, or //nolint:releasepath. A directive counts only
// as the exact word, followed by a space or the end of the comment: //releasepath:okay
// silences nothing.
package releasepath
