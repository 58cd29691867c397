// Package conntrackorder clears stale conntrack entries in the one order that works: program
// the forwarding rules first, then flush. (Package doc in progress.)
package conntrackorder
