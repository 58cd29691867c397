// Package leasetest proves in tests that no lease outlived its purpose.
//
// [Context] returns a context carrying a fresh [lease.Ledger] and registers a cleanup that fails
// the test for every lease still [lease.Held] or [lease.Orphaned] when the test ends. Pass that
// context to the code under test: every lease the acquire package creates under it is recorded.
// The check runs after the test's own cleanups that were registered later, after its subtests,
// and also when the test failed or stopped early, so a failed attempt is checked too. Each test
// gets its own ledger, so the check is exact under t.Parallel.
//
// Lease names are taken as the identity of the external resource, as [lease.Ledger] does: an
// Orphaned lease is forgiven when a later lease of the same name was Released, which is how a
// retry recovers the leftover of a failed attempt. Name leases "<kind>/<id>" as [lease.New]
// says ("address/k8s-ilb-a1b2"), never by role alone ("address"), or two resources can hide
// each other.
//
//	func TestEnsureFailsCleanly(t *testing.T) {
//		ctx := leasetest.Context(t, context.Background())
//		err := ensure(ctx, cloud) // uses acquire.Run(ctx, ...)
//		require.Error(t, err)
//	} // fails here if ensure left a reservation held
package leasetest
