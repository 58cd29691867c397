// Package ctexec deletes conntrack entries by running the conntrack(8) command, one command
// per filter of a [conntrackorder.Plan].
//
// It is the simple, portable backend: it needs only the conntrack binary from the
// conntrack-tools package in $PATH and CAP_NET_ADMIN. Each command dumps the whole table, so
// a plan of many filters is slow: for 300 NodePort filters, hundreds of times as long as one
// netlink pass (BenchmarkNodePorts in ctnetlink). [github.com/safereconcile/safereconcile/conntrackorder/ctnetlink] matches a
// whole plan in one dump per address family.
//
// The hazard it prevents, besides the ones of [conntrackorder], is a filter that deletes too
// much: `conntrack -D -p udp` alone deletes every UDP flow. Such a filter is refused, never
// run (see [conntrackorder.Filter.Validate]).
//
// Usage:
//
//	syncer := conntrackorder.NewSyncer(tracker, restoreRules, ctexec.New())
//
// # Exit status
//
// conntrack exits with status 1 and prints the line "conntrack v1.4.7 (conntrack-tools): 0
// flow entries have been deleted." when nothing matched: that is success, since the filter's
// entries are gone either way. Only that line, alone in its output and with a count of
// exactly 0, makes status 1 a success; blank lines around it do not count. Beside another
// line, such as "Operation failed: Permission denied", it is an error, as is any other
// failure, including a missing binary; the error names the filter.
//
// Of the command's output, Flush keeps standard error whole and, of standard output, which
// holds a line per deleted entry, the non-blank lines up to 4 KiB of them; blank lines are
// dropped wherever they are. That is what decides status 1 and what [FilterError] shows. A
// non-blank line beyond the 4 KiB still counts: it makes status 1 an error, and the error
// says how many bytes of standard output it does not show.
//
// # Cancellation
//
// Each command runs in a process group of its own. When the context passed to
// [Flusher.Flush] is done, the whole group is killed, so a wrapper script's children die with
// it, and Flush returns promptly with an error that wraps the context's error, even when a
// descendant that left the group still holds the command's output (Flush stops waiting for it
// after half a second).
//
// # Address families
//
// A filter whose addresses are IPv6 runs with "-f ipv6". A filter without addresses (a
// NodePort filter) runs once without -f: conntrack-tools 1.4.7 then deletes matching IPv4 and
// IPv6 entries alike (measured here in a network namespace: "2 flow entries have been
// deleted" for one IPv4 and one IPv6 entry). Older conntrack-tools releases looked at IPv4
// only without -f; on those, prefer the ctnetlink backend for dual-stack NodePorts.
//
// # Limits of --dst-nat
//
// A [conntrackorder.Filter] with ReplySrc runs as --dst-nat with that address, and
// conntrack-tools 1.4.7 honours it less exactly than the filter's doc asks:
//
//   - With an IPv6 address, conntrack(8) ignores the address and deletes every DNATed flow
//     that matches the filter's other fields, so the flows of a service's other IPv6
//     endpoints are deleted with those of the one that went; their next datagram is NATed
//     again.
//   - A flow DNATed to the node's own address on another port (a hostNetwork endpoint) is not
//     selected, so clients of a gone hostNetwork endpoint keep their stale flows.
//
// The ctnetlink backend has neither limit; prefer it for IPv6 and hostNetwork endpoints.
// [Args] keeps the documented vector for all filters.
package ctexec
