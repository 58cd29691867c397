// Package releasecheck runs the releasepath analyzer, live, on the two shapes of
// kubernetes#97740 in [github.com/safereconcile/safereconcile/examples/gceaddress/ilb]: the
// v1.20.1 shape, [ilb.EnsureV1201], must be flagged at each return that skips the release of
// its reservation, and the fixed shape, [ilb.Ensure], must be clean. It is the row that
// shows what a reviewer running releasepath would have seen on the diff.
package releasecheck
