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
// # What it reports
//
// The default tier reports only acquisitions it can stand behind:
//
//   - leadingverb: a call whose name leads with an acquire verb, and which the function also
//     releases, the evidence that it must: the swapped verb on the same receiver with the same
//     value or arguments (m.HoldAddress(a) and m.ReleaseAddress(a), mu.RLock() and
//     mu.RUnlock()), or a release verb on the acquired value or taking it (f.Close(), vol :=
//     c.CreateVolume() and c.DeleteVolume(vol.ID)) when the names agree: a bare verb (Close),
//     or the acquisition's noun or its plural (DeleteVolumes); r.claimAbandon() and
//     c.releaseWireBytes(r.reserved) name two things, and so do c.OpenSession() and
//     c.CloseSocket(s), or CreateIndex and DeleteIndexFile. A scoped hold's release verb that
//     takes nothing but the hold's own arguments may name another noun: releaseOwn(ctx, c, lb)
//     after holdAddress(ctx, c, lb, ip), the #97740 shape. Scoped verbs (Hold, Reserve,
//     Acquire, Claim, Lock, Open, Begin, Dial) are released on every return (a pooled resource
//     from Acquire by its Release or its Destroy, an open writer by its Close or its Commit,
//     which closes a containerd content writer even on error, or its Abort, which discards an
//     upload, or its Discard, which ends goleveldb's OpenTransaction; a begun transaction by
//     its Commit, Rollback, End or Discard); rollback verbs (Create, Insert, Add, Allocate,
//     Grant, Attach, Mount, Setup, Start) only on error returns, and only when the function
//     undoes the acquisition on some error path already. A release in the branch where a create
//     of the same function failed, followed in its own block by a call of that function again
//     (if _, err := images.Create(ctx, img); errors.Is(err, ErrAlreadyExists) {
//     images.Delete(ctx, name); images.Create(ctx, img) }), replaces what was there and undoes
//     nothing: it is no such path. One followed by a return instead (if !force {
//     images.Delete(ctx, name); return err }) is. Only the leading word counts:
//     m.GetMountRefs(p) is a query. A noun phrase names a value, not an act: a verb with a noun
//     after it whose callee returns one string or number and no error (mountpoint :=
//     d.mountPath(id), the path of a mount) is not ended by a bare verb that takes the value
//     (unix.Unmount(mountpoint, 0)), only by a release that names its noun (id :=
//     p.AllocateID() by p.ReleaseID(id)) or the swapped verb on the same receiver with the same
//     value (p.Release(id)). A release may lead with Must, Go's word for the variant that
//     panics instead of returning an error: defer t.MustRollback() ends t, err :=
//     d.BeginTx(ctx) (kine); an acquisition keeps it, so prometheus.MustRegister is no Register
//     to undo. The runtime package acquires nothing: a goroutine leaves runtime.LockOSThread
//     unpaired on purpose, so that its thread dies with it (a CNI plugin's thread whose network
//     namespace could not be restored).
//   - samevalue: the same value or arguments are compared by types.Object (or as equal
//     constants), so m.ReleaseAddress(other) neither releases m.HoldAddress(a) nor is evidence
//     for it: a function that holds a and releases only other reports nothing, since nothing
//     says a must be released there (but see valuewitherror). Another field, constant element
//     or key of the same variable is another value: n.b for n.a, s[1] for s[0], and a helper's
//     release of l.state for rawlock.LockFile(l.fd) (a deferred l.state.Unlock() beside a file
//     lock kept on purpose). A promoted field or method is its embedded field's: l.Lock() and
//     l.Mutex.Unlock() are one lock when l embeds sync.Mutex.
//   - methodvalue: a method value of the release is evidence too, and releases when it is
//     called: unlock := c.mu.Unlock; defer unlock(), also when it was taken before the
//     acquisition, or chosen with it in two branches (if write { mu.Lock(); unlock =
//     mu.Unlock } else { mu.RLock() } after unlock := mu.RUnlock): an assignment in the
//     branch the acquisition's does not run with leaves the variable as it was. A method
//     value of a helper that releases it releases when it is called (unlockFn =
//     r.stopReading, when stopReading unlocks r.mu; see wrapper and receiverfield), of this
//     package or another, but alone is no evidence.
//   - lockmode: a lock is released only by the release of its mode, RLock and TryRLock by
//     RUnlock, Lock and TryLock by Unlock. The other mode's release on the same mutex, after
//     the lock, releases nothing but is evidence: c.mu.RLock(); v := c.m[k]; c.mu.Unlock();
//     return v skips c.mu.RUnlock. A read lock whose type has no RUnlock is released by its
//     Unlock (the lockfile of containers/storage).
//   - holdcallers: a call of a function that returns holding a lock of its receiver or of a
//     parameter by contract (see holdsonsuccess: a try-lock, a lookup that returns its entry
//     locked, a beginUpdate) takes that lock in the caller's terms: t.lookup(k) holds t.mu
//     where its result says success (an entry, true, a nil error), and lockTable(x) holds x.mu.
//     The caller releases it, on the evidence that it does on some path (t.mu.Unlock(), or a
//     helper that unlocks t.mu, such as another package's s.Done()), and that lock only:
//     x.other.Unlock() releases nothing of it. The locks are the ones the function releases
//     where it says failure, each held by the caller on its own evidence: r.startWriting()
//     holds r.lockfile and r.inProcessLock, both ended by r.stopWriting() (a return that skips
//     it is one finding, not one per lock); a function that leaks anything otherwise, or takes
//     a lock it never releases, has no summary. A function whose body is one return of such a
//     call on its receiver or a parameter holds the same locks (startWriting's return
//     r.startWritingWithReload(true)). An exported function's summary reaches other packages as
//     a fact: a caller of store.Lookup(k) holds the store's unexported lock, which it releases
//     through the store's Done. Returning the result on (return t.lookup(k)) or storing the
//     holder (pending = append(pending, x)) hands it on. A lock of a generic type's field is
//     summarized as any other. Not yet summarized: an embedded mutex (t.Lock()); nor is the
//     other mode's release evidence here (t.mu.Unlock() after t.rlookup(k)), nor is a call of a
//     promoted method checked (w.startWriting() through an embedded *layers;
//     w.layers.startWriting() is). A method's call of a method of its own receiver of the
//     package that returns nothing or an error manages the receiver's state (see
//     receiverstate). No fix is offered: where the lock goes is the callee's contract.
//   - the default table: ipam.ExecAdd and invoke.DelegateAdd (CNI), netlink.LinkAdd, etcd
//     Grant and concurrency.NewSession (ended by its Close, or by its Orphan, which leaves
//     the lease to its owner), os.Open, os.OpenFile, os.Create, os.CreateTemp
//     (and ioutil.TempFile), net.Listen, net.Dial, net.DialTimeout and a net.Dialer's Dial
//     and DialContext, tls.Dial, tls.DialWithDialer and a tls.Dialer's Dial and DialContext
//     (released by the connection's Close), and this module's lease.New
//     (released, kept or handed on) and acquire.New (ended by a deferred End).
//
// The -pairs flag adds pairs of full names, several releases separated by "|", checked on
// every error return; a malformed value is an error:
//
//	-pairs=example.com/cloud.Client.Reserve=example.com/cloud.Client.Release
//
// # What is not a leak
//
// Each rule has a testdata package of its name:
//
//   - failurebranch: the acquisition's own failure, checked at once or later
//     while err still holds its error: if err != nil, errors.Is(err, x), IsNotFound(err),
//     err == errNotFound, switch err { case nil: … } (switcherr), and either of two such
//     tests (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)).
//   - sureassertion: the failed edge of an assertion that cannot fail: tlsConn, ok :=
//     conn.(*tls.Conn) right after conn = tls.Client(conn, cfg) (goproxy's transport), where
//     the statement before the assertion (or before the if whose init it is) gives the
//     variable a value of the asserted type itself, a concrete one, and ok is assigned
//     nowhere else.
//   - nilguard: the nil or false edge of a guard on the handle: if addrMgr != nil { … }, if
//     owned { … }, if mu.TryLock() { … }. Around a release it is no condition: if acquired
//     { defer sem.Release() } for acquired := sem.TryAcquire(), also in a literal called
//     where it is written, and for acquired := sem.Acquire(ctx) == nil. A bool the function
//     assigns again guards nothing, unless in a branch the acquisition's does not run with
//     (if read { ok = mu.TryRLock() } else { ok = mu.TryLock() }) and no loop around both
//     carries the bool to a later iteration, before the acquisition with no loop around
//     both, or where it is false by a fallback acquisition of the same resource, once, straight
//     in the body of if !acquired (if !acquired { acquired = sem.Acquire(ctx) == nil }:
//     false still says nothing is held); anything more in that body (acquired = cond())
//     guards nothing.
//   - correlated: the edge of a test of a variable that the path has settled: a bool's value,
//     or whether anything else but an error is nil (if c != nil, if c == nil). The search
//     follows a parameter or local whose every change is a declaration or assignment on the
//     path (never address-taken, also by a bool's pointer method, assigned in a function
//     literal or a range variable): a constant or nil sets its value, a test takes the edge
//     that an earlier test of it on the path took (the true edge of a && b settles both terms),
//     anything else forgets it; past the states a block keeps, a path goes on without it. if
//     doLock { mu.Lock() } … if doLock { mu.Unlock() } is one decision, and so is if c != nil {
//     c.Lock() } … if c != nil { c.Unlock() } (nydus-snapshotter's optional cache), and didOpen
//     = true after an open with if didOpen { f.Close() }. The tests around the acquisition
//     settle a variable never assigned after its declaration. A comparison (==, !=, <, <=, >,
//     >=) or a bool field of values the function changes only by declaring them is such a test
//     too, and so is their length or capacity (if len(tw.changes) != 0 { tw.s.revMu.Lock() } …
//     the same if { Unlock }, etcd's storeTxnWrite.End), a field by any of its names (s.locked,
//     (*s).inner.locked): a local, parameter or receiver, or a field path of one, that the
//     function never assigns, increments, takes the address of, calls a pointer method on or
//     assigns in a literal, neither it nor what holds it (sub or sub.client for sub.client;
//     sub.client.mu.Lock() changes neither), a constant or nil (if sub.client != nil &&
//     sub.client != c { sub.client.mu.Lock() } … the same if { sub.client.mu.Unlock() },
//     nats-server's route protocol; if s.mode == modeLocked; if s.locked). A declaration the
//     path meets again (x := … in a loop, the next iteration of a range) forgets it. Calls
//     between the tests are taken not to change the fields, as a reader takes them. A local
//     slice that holds the value on the path (res = append(res, f)) has an element: len(res) ==
//     0 (also 0 == len(res), len(res) < 1) takes its false edge there, as pebble's benchmark
//     keeps or closes each file it opens and fails only when it kept none; len(res) < 2 may
//     still be true. Not for a slice whose address is taken (drop(&res)), that a pointer method
//     is called on, or that a literal assigns. An error of the function (a local, parameter or
//     result) whose address is never taken and that no literal assigns is followed the same
//     way: past the true edge of if err == nil (or, after the acquisition, err = nil), while
//     the path assigns it nothing else, the true edge of if err != nil is not taken, and an
//     acquisition in the body of if err == nil knows err nil when nothing assigns it between
//     the test and the acquisition (prometheus's convertAndEnqueueNHCB takes a layout in if err
//     == nil { … }, gives it back or keeps it in the next if err == nil { … }, and returns at
//     if err != nil { return true }). What the acquisition knows comes from the ifs around it
//     only, not from the cases of a switch; on the path, a tagless switch's case err == nil is
//     a test like an if's, and a range that assigns err forgets what the path knew of it.
//   - neverreturns: panic, os.Exit, log.Fatal, klog.Fatal, t.Fatal, also through an interface
//     that copies testing.TB's (one with FailNow and Helper, as tailscale's testenv.TB:
//     s.tb.Fatal(…) ends the test's goroutine as t.Fatal does).
//   - callerexits: a return whose error is known non-nil, in a function whose every call ends
//     the process on that error: if err := run(); err != nil { log.Fatal(err) }, err := run()
//     and then if err != nil { fmt.Fprintln(os.Stderr, err); os.Exit(1) }, log.Fatal(run()), or
//     return run() (and if err != nil { return err }, or err = run(); return err) in a function
//     whose own calls do. The error may be tested after other statements, as long as none of
//     them can leave the block, and the exit (os.Exit, a Fatal, a panic) may be the else of if
//     err == nil; the branch that takes the error may hold nothing else that leaves it (if
//     verbose { log.Print(err); return nil } keeps the finding). Only what the process holds
//     ends with it: a lock, or what a Close gives back (a file, a connection, a listener); a
//     link, an IPAM allocation or a reserved address outlives the process and keeps its
//     finding. Only for a function no other package can call (unexported, or in package main),
//     that is called at least once and never taken as a value but as a command (cliaction),
//     and, for a method, no interface of the package has a method of its name; or for a
//     function literal bound once to a local whose every use is such a call (add := func(name
//     string) error {…}, called only as if err := add(n); err != nil { return fmt.Errorf("…:
//     %w", err) } in a function whose callers exit, tailscale's CRD generator). A call that
//     logs the error and goes on, or drops it, keeps every finding; so does t.Fatal, which ends
//     a test's goroutine, not the process, and a function's recursive call (a cycle proves
//     nothing). A return that may say success is still reported: the process goes on after it.
//   - cliaction: a command-line framework ends the process on a command's error:
//     urfave/cli's App.Run and cobra's Execute return it to main, which exits with it, and
//     the CNI plugin skeleton (skel.PluginMainFuncs, skel.PluginMain) exits itself. So a
//     command counts as a function whose callers exit: a function or literal stored in a
//     field of the framework's that returns an error, such as Action, Before, After, RunE,
//     PreRunE, the Add and Del of skel.CNIFuncs, and urfave/cli v1's Action (also through a
//     conversion, cli.ActionFunc(build)), passed to a framework's function for such a
//     parameter, or passed to a function of the package, stored there, that returns a
//     literal returning its call (Action: commandAction(buildAction) for commandAction(fn)
//     returning func(…) error { return fn(…) }); the functions such a literal returns
//     (return run(c)) count too. A wrapper that logs the error and says success, or keeps
//     the function, keeps every finding; so does a function that is also called where its
//     error is dropped, one run from a field that returns no error, and an exported one
//     outside package main.
//   - commandends: in package main, every return of a command ends the process, success
//     too, when main ends once the command returns: a framework's action (not a hook run
//     before it, Before, PreRunE, PersistentPreRunE), every use of which is as an action,
//     when main's last act is to run the framework (if err :=
//     root.Execute(); err != nil { …; os.Exit(1) }, then nothing but an exit; or
//     log.Fatal(app.Run(os.Args))), or a function stored in a command table of the package
//     (command{action: getBigData}) whose field main calls nowhere else but as a statement
//     of its body with nothing after it but an if on the error with no else and an exit
//     (res, err := cmd.action(args); if err != nil { … }; os.Exit(res), or if err :=
//     cmd.run(args); err != nil { … } last), a literal in the table too, when main reads the
//     field otherwise only to test it against nil. As for
//     callerexits, only what the process holds ends with it. A function the command calls,
//     one also called elsewhere, a field main reads or calls before other work, and a main
//     that goes on after the command (log.Print("done"), a shutdown, an else branch, or a
//     defer of anything but a context's cancel) keep every finding.
//   - loopinstance: a path around a loop back to the acquisition ends that instance's
//     search; the next iteration's acquisition is its own: for … { mu.Lock(); …;
//     mu.Unlock() }. So an earlier round's value is not followed into a later round: a
//     loop that opens a file each round and returns when one open fails is not reported
//     for the files the earlier rounds opened. A release in the other branch of an if, or
//     another case of a switch or select, neither ends the acquisition nor is evidence for
//     it, since at most one of them runs (switch op { case reserve: … case release: … }),
//     unless a loop around both carries the value in a variable declared outside it (for a
//     lock, the variable its receiver is rooted at: c of c.mu.Lock()): the other branch
//     then runs in a later iteration (gowarc's record writer opens its next file when a
//     batch is big, and closes it when the channel is closed).
//   - receiverstate: a method's call of a method of its own receiver of the package
//     manages the receiver's state: one that returns nothing (r.lock() inside another method
//     of r) is not checked, and one that returns an error only at a return whose error is
//     known non-nil (see errorevidence), where the method gives up what it took for the
//     receiver: containerd's fetcher takes r.Acquire(ctx, 1) and returns an unsupported
//     encoding's error holding it, while a return that may say success keeps it for the
//     receiver (if renew { return nil }). Only a method that may change the receiver takes
//     anything: one that assigns or increments a field of it, takes its address, passes it
//     on, or calls a method on a field of it, another package's method on it, or one of its
//     own that may; caddy's p.openCurlyBrace() only reads the next token. A method of the
//     receiver with the word Close in its name, leading or after a modifier, ends what its
//     state held, called or deferred: pgx's pgConn.asyncClose() before a return after
//     c.lock() marked the connection busy, defer c.Close(); not c.isClosed() or
//     c.markClosed(), whose word is Closed.
//   - enteredholding: a function entered holding the lock, whose first call on it is the
//     release, takes back its caller's lock: c.mu.Unlock(); runtime.Gosched(); c.mu.Lock(),
//     also through functions of the package on a parameter: unlockQ(q); wait(); lockQ(q).
//   - deferredbefore: a release deferred earlier in the function's own body runs after a
//     later acquisition too: mu.Lock(); defer mu.Unlock(); …; mu.Unlock(); wait();
//     mu.Lock(), also with arguments the function never changes (locks.Lock(key); defer
//     locks.Unlock(key); … locks.Lock(key)). So does a closure deferred earlier in a block
//     around the acquisition (the body, or the loop body it is in) that reads the variable
//     when it runs: var f *os.File; defer func() { if f != nil { f.Close() } }(); f, err =
//     os.Open(p); unless the function assigns the variable again after the open (f = nil),
//     or, for a release on a receiver, the receiver or what it is reached through (r = nil,
//     w.backend = newReaper() after w.backend.startReaper()), under a condition or not.
//     A deferred call's receiver and arguments are read when it is deferred, so defer
//     f.Close(), defer closeQuietly(f) or defer func(f *os.File) { f.Close() }(f) before
//     the open closes nothing of it.
//   - selectend: the end of a function no path falls off: a select whose every case returns.
//   - deferguard: a deferred release counts when unconditional or under a nil guard (of the
//     value, or of the receiver the acquisition was made on: if w.backend != nil {
//     w.backend.stopReaper() }, rclone's serve s3, where a nil receiver started nothing; or a
//     descriptor's, which skips only the values it has when it holds nothing, 0 and -1: fd
//     != 0, fd != -1, fd >= 0, fd > 0, also written the other way round or negated; go-fuse's
//     posixtest reopens fd under such a close deferred earlier; fd != 5 is a condition),
//     also through a sync.Once whose every Do in the function is given a release under no
//     condition, as a literal, a closure variable bound to one or the release as a method
//     value (defer once.Do(func() { f.Close() }), minio-go's snowball upload: whichever Do
//     runs first closes f; defer once.Do(g.mu.Unlock)); a Do not deferred releases where it
//     is called, and with a once also given anything else no Do releases, and on the paths
//     where it runs when under an ok flag the function sets (defer func() { if !ok
//     { release } }()) or an error (if err != nil for a named err, or for a local err where
//     it is non-nil; if err == nil only where err is nil, which for a named err is where
//     the return gives it nil: return t.Put(k, v) or a shadowed return err may skip it; a
//     switch err { case nil: …; default: … } reads as if err == nil { … } else { … }), or
//     both (if err != nil && created, where every term holds: buildkit deletes a lease it
//     created when the update fails);
//     a flag whose address the function takes is known on a path until the path takes it,
//     by &closed, by a pointer method of its type (closed.set()) or by making a literal
//     that does (containers/image's explicitClosed := false; defer func() { if
//     !explicitClosed { f.Close() } }() closes at the returns before d.syncAndRename(f,
//     &explicitClosed)), and from there the release under it counts nowhere, except where
//     a return sets it, as it sets a named result (return false); a bool field is such a
//     flag when the function sets it to a constant (not in a literal, never by its address)
//     through one local never assigned again or a named result assigned once, and the
//     closure reads it through that variable or the literal's parameter bound to it
//     (bleve's defer func(rv *indexImpl) { if !rv.open { rv.i.Close() } }(rv), then
//     rv.open = true before the return that hands rv on);
//     under any other condition it does not count: defer func() { if verbose { f.Close() }
//     }(), nor if err != nil && verbose. A return of the closure before the release under
//     such a condition is one too: if err == nil { return } leaves it to where err is
//     non-nil. Under any other (if _, ok := cg.(*progAttachCgroup); ok { return }, which
//     keeps a file the result holds, or a test of an err the closure declares itself), the
//     exception is the closure's own, and the release counts. A release only in a loop of
//     the closure (for range xs { f.Close() }), or in a closure with a goto or a labeled
//     break or continue, does not count. A deferred call given the address of an error of
//     the function (or of the function around a literal called where it is written) and a
//     closure (a literal, a closure variable bound to one, or the release as a method value:
//     whenFailed(&err, u.Abort)), or the deferred call of what such a call returns (defer
//     atexit.OnError(&err, func() { …; chunkWriter.Abort(ctx) })(), rclone's multipart
//     upload; defer whenFailed(&err, func() { f.Close() })), reads the error as the function
//     returns and runs the closure where it is non-nil, the least it can mean: the
//     closure's releases count as deferred under err != nil, under the closure's own
//     conditions as above. Not when the helper's name says success (onSuccess, IfOK): what
//     such a helper runs, and where, is not read. A function of the package given the
//     address and the value itself releases it so when its body, before anything that may
//     leave, releases that parameter in an if that tests only the error (closeOnErr(errp
//     *error, c io.Closer) { if *errp != nil { c.Close() } }): defer closeOnErr(&err, f).
//   - calledliteral: a function literal called where it is written releases when every path
//     through it does, searched as the function is: func() { if err := use(f); err != nil
//     { f.Close() } else { f.Close() } }(). One that returns before its release where n is
//     0 (func() { if n == 0 { return }; f.Close() }()), releases only in a loop (for range
//     xs { f.Close() }, which may run no time), or may jump past it (goto out, break outer)
//     releases nothing there.
//   - paramrelease: a release through the parameter of a literal called where it is
//     written: defer func(f *os.File) { f.Close() }(x), and the receiver's lock through a
//     parameter passed its root: defer func(fs *T) { fs.mu.Unlock() }(fs). A parameter the
//     literal assigns releases another value.
//   - wrapper: a function of the same package that releases its argument or receiver: defer
//     closeQuietly(f), also on some path only (if c != nil, if f != os.Stdin), but not under a
//     test of a parameter that carries a decision, a bool, a number, a string or the address of
//     an error: closeIf(f, false), closeIf(f, verbose) or closeWhenBig(f, n) release nothing of
//     the caller's, closeIf(f, true) does (releaseflag), and defer closeOnErr(&err, f) does
//     where err is non-nil (deferguard). One that returns a literal or a method value releasing
//     it (closeLater(f) returning func() error { return f.Close() }, or f.Close) releases
//     nothing itself: calling what it returns does (defer closeLater(f)(), c := closeLater(f);
//     defer c()), when every return of the helper makes one that releases under no condition
//     (not a closerIf that returns func() error { return nil } where quiet), and a path that
//     never calls it skips the release (another package's such helper has no summary of it).
//     What it returns stored or returned hands the release on (return &job{done:
//     closeLater(f)}, nil). A release on a field of the parameter made with a local of the
//     helper is the helper's own, no release of the parameter: c.replies.Delete(reply) in a
//     request helper deletes the reply it made. A function of another package counts by the
//     summary its package exports as a fact, which is stricter: the releases it makes, on a
//     parameter, its receiver or a field path of one, before every return (in the return
//     itself, deferred, in a closure it defers, or in a goroutine it starts, which takes the
//     obligation; never in a switch case or on the right of && or ||, and not at all in a
//     function with a goto), and does not take back, so defer util.CloseQuietly(f),
//     t.UnlockAndNotify() for t.Mu.Lock() and locks.Unlock(&b.mu) release. In a summary, a
//     release method called with arguments ends what they name (p.Release(id)), not its
//     receiver (and across packages that release of an argument is not carried: lib.Put(p, c)
//     calling p.Release(c) has no fact), but for a Commit or a Rollback given a context and
//     plain values only: content.CommitOnly(ctx, w) ends w when it returns w.Commit(ctx, size,
//     dgst). A helper that closes on failure and commits on success ends it by neither alone,
//     and has no summary. A helper that only reads f (util.Stat(f)), closes it under a
//     condition or after an early return, closes a parameter it assigned, unlocks a value
//     receiver's own copy of a mutex, or locks and unlocks t.Mu itself releases nothing of the
//     caller's; a nil guard (if c == nil { return }) is no condition, since the caller's value
//     is not nil. A summary reads direct calls: a method value it calls (unlock := mu.Unlock;
//     unlock()) is not read. A helper taken as a method value in the caller releases when the
//     caller calls it (release := t.UnlockAndNotify; release()), as the release's own method
//     value does. The summaries reach the analyzer wherever facts do: go vet, golangci-lint and
//     the command compute them for every package they load.
//   - receiverfield: a function of the same package that releases a field path of its
//     receiver or of an argument releases that lock of what the call passes it:
//     t.unlockAndNotify() for t.mu.Lock() when unlockAndNotify calls t.mu.Unlock() ("must be
//     called with t.mu held"), also through another helper (t.inner.mu by t.unlockInner()),
//     or unlockTable(t); never another value's lock (u.unlockAndNotify()), another field
//     (t.unlockOther()), the other mode (t.runlock() for t.mu.Lock()), a helper that takes
//     the lock itself before it first releases it (t.bump()) or after its last release
//     (unlock, Gosched, lock), or one whose release is under a condition (if t.verbose {
//     t.mu.Unlock() }). A helper entered holding the lock that releases it first and last
//     releases it, whatever it takes and gives back in between (grpc's
//     resetTransportAndUnlock: unlock, dial, lock, count, unlock; rclone's pump, whose for
//     loop with no condition and no break out of it unlocks before each return and locks
//     only to go round again; a break, labeled or not, or a labeled continue that stays
//     inside the loop leaves it endless), called or started in a go statement (go
//     c.resetAndUnlock() hands the held lock to the goroutine). A helper with a goto has no
//     summary. What a helper takes: a call on the receiver itself named as an acquisition
//     (t.lock(), t.acquireRef()) may take any field of it, unless it returns what it takes
//     (layout := t.acquireNHCBLayout(b), a counted reference of prometheus's queue manager,
//     takes no field of the receiver); and a method of the package that locks a field of its
//     own receiver in its body (q.relock() { q.mu.Lock() }, return q.mu.TryLock()), or of a
//     parameter (lockQ(q) { q.mu.Lock() }), takes that field of what it is called on or
//     passed, whatever its name, unless its own summary releases it: relockQ(q) { unlockQ(q);
//     wait(); lockQ(q) } releases nothing of its caller's q.mu.
//   - releaseflag: a helper that releases under a bool parameter of its own, which it never
//     changes (if freeTurn { p.freeTurn() }; no assignment, no &freeTurn, no range or
//     literal that sets it), before every return where the parameter is
//     true, itself or by passing it on (p.removeConn(cn, freeTurn)), releases at a call
//     that passes the constant true: p.putConn(cn, true) gives back the turn of
//     p.semaphore.TryAcquire(), and p.putConn(cn, false) nothing. Another package's helper
//     counts by its fact: defer closers.CloseIf(f, true). A helper that tests the negation
//     (if !keepTurn), changes the flag, or returns before the release where it is true
//     says nothing.
//   - closurevar: a local variable bound once to a function literal, never assigned again or
//     address-taken, releases as its literal does when the literal releases whenever it runs
//     (no condition but a nil guard): defer closeIt(f) for closeIt := func(c io.Closer) {
//     c.Close() }, only for the value the call passes (or the lock, unlock(&p.mu) for func(m
//     *sync.Mutex) { m.Unlock() }); unlock() for unlock := func() { s.mu.Unlock() }, also
//     declared before the lock and called from another literal (defer func() { unlock() }()). A
//     literal that releases under a condition (if verbose), or only inside a loop of it (an
//     endless for too), does not count, called or deferred, unless the condition is ok flags
//     (see deferguard) whose values the path has set so where it is called, or that hold at a
//     return where it is deferred: reject := func(err error) { if held { q.unhold(id) } }
//     releases after held = true, not before it, and not from a literal inside it.
//   - holdsonsuccess: a function whose every release leads to a return that says failure by one
//     result returns holding the resource by contract where that result says success, and its
//     caller takes the obligation: a try-lock that keeps the lock when it returns true, a
//     lookup that returns its entry locked or nil unlocked, a beginUpdate that returns nil
//     holding what endUpdate releases. The results are read from the last to the first, and the
//     first whose every release return says failure decides: an error (nil says success; known
//     non-nil, or returned under err != nil, failure), a bool (true says it holds, as
//     TryLock's; false failure), or a pointer, map, slice, channel, function or interface (nil
//     says failure; anything else success). So try() (bool, error) that returns false, nil
//     unlocked and true, nil locked is read by its bool. A bare return of named results returns
//     what the statements straight before it last assigned (ok = true; return), or the zero
//     value when none did (false, nil), and on a nilable result's own nil edge (if e == nil {
//     c.mu.Unlock(); return }) nil; where a branch before it, a loop around it, a literal or a
//     goto may have assigned the result, it says nothing. A return that holds it and says
//     failure is still reported; so is every return when no result says failure at every
//     release, or when a release needs a local of the function that the return does not give as
//     a result of its own (m.ReleaseAddress(ip) for an ip it does not return): its caller could
//     not release it. A lookup that locks the entry it found, a local, and returns it (e :=
//     t.m[k]; e.mu.Lock(); if e.dead { e.mu.Unlock(); return nil }; return e) returns it locked
//     by contract: the local itself, never assigned after its declaration; not a copy of it (r
//     := e; return r), a value that holds it (return &handle{e: e}), or a local given another
//     entry before the return (e = t.m[next]; return e), which are reported. The releases are
//     the calls of the release, the calls of a local that holds it where the path calls it
//     (unlocker() after unlocker := l.rw.RUnlock), and a deferred release under an ok flag or
//     through a function variable (see funcvar), which releases at the returns where it runs:
//     defer func() { if !succeeded { r.mu.Unlock() } }() gives the lock back at every error
//     return, and succeeded = true; return nil keeps it for the caller's stopWriting. A release
//     that its own block takes back later (r.mu.RUnlock(); reload(); r.mu.RLock()) says nothing
//     of the result. Nor does a release straight in the body of an endless loop (no condition,
//     no break out of it, no continue of a loop around it) that acquires first in each round:
//     the returns after it in the body say what it leads to (for { s.Lock(); if !s.isGCed() {
//     return s, nil }; s.Unlock(); if s, err = next(); err != nil { return nil, err } } returns
//     s locked by contract, prometheus's lockForAppend). A named bool result is such a flag,
//     which every return sets: func tryLock() (ok bool) with defer func() { if !ok {
//     c.mu.Unlock() } }() releases at return false and keeps the lock at return true.
//   - funcvar: a deferred closure that calls a local function variable whenever it runs
//     (defer func() { if unlockFn != nil { unlockFn() } }(), or unlockFn() as a statement
//     of it with nothing before it that may leave) releases at a return what the variable
//     holds there: the release's method value (unlockFn := r.lockfile.Unlock), a helper's
//     that releases it (unlockFn = r.stopReading), or a literal that does, and nothing once
//     it is assigned anything else (unlockFn = nil). The search follows the variable along
//     each path, as containers/storage's startReading reassigns it lock by lock. A call of
//     it only in a loop of the closure releases nothing, nor does a variable whose address
//     is taken (clear(&unlockFn)) or that a literal assigns.
//   - aliasrelease: the release called on a local the path made hold the value releases it:
//     output.Close() after output = f, for output := os.Stdout declared before f :=
//     os.Create(p), also through an interface's method of the release's name (var c io.Closer;
//     c = f; c.Close(), or var c io.Closer = f), through a type assertion (tc :=
//     conn.(*tls.Conn); defer tc.Close(), or tc, ok := conn.(*tls.Conn)) or a type switch's
//     variable (switch c := conn.(type) { case *net.TCPConn: defer c.Close() }), deferred
//     (defer output.Close()), or in a closure deferred before that reads it when it runs (defer
//     func() { output.Close() }()). So does a method of the package named as the release on a
//     holder the function made itself, which holds the value (b := &bundle{}; b.add(f);
//     defer b.Close(), as handoff says), deferred before the open too when b is a pointer the
//     function never assigns again: the call reads b when it is deferred and what b points at
//     when it runs. A method named otherwise (b.describe()) releases nothing. A local
//     pointed at something else again (output = os.Stderr, b = &bundle{}) releases nothing
//     of it, and one whose address is taken or that a literal assigns releases nothing.
//   - rangerelease: a local slice or map that holds the value on the path (files =
//     append(files, f)) releases it in a loop over it whose body releases each element before
//     anything that may leave the loop: for _, f := range files { f.Close() }, also under a
//     nil guard, with its error taken (if err := f.Close(); err != nil { … }) or by index
//     (files[i].Close()), also in a for loop over the whole slice by index, either way (for i
//     := len(files) - 1; i >= 0; i-- { files[i].Close() }), and whatever the element type
//     ([]io.Closer); written before the return, in a closure deferred before or after the
//     open (defer func() { for _, f := range files { f.Close() } }(), which reads files when
//     it runs, also under the closure's own conditions as deferguard reads them: if keep {
//     return } before the loop, or if !ok { for … }), or in a function of the package that
//     ranges over its parameter so and never assigns it (closeFiles(files), also in such a
//     closure). Not defer closeFiles(files), whose argument is read when it is deferred, nor
//     a loop that skips an element (for i := 1; …), may return, break or continue before the
//     release, or releases under a condition of its own.
//   - holderrelease: a local that a composite literal made holding the value in a field, or
//     in a field of a field (ns := &proxyNS{nsPath: nsPath}, var h = plain{f: f}, or var h
//     *plain then h = &plain{f: f}), and that the function gives no other value, releases
//     it by a method whose summary makes the value's release on its receiver or with a field
//     of it: of this package on some path (buildkit's ns.Close(), which deletes n.nsPath
//     unless its pool takes the namespace back), of another package on every path, by its
//     fact; also in a deferred closure (defer func() { if retErr != nil { ns.Close() } }()).
//     Which field that method releases is not compared: a Close that deletes another field
//     of the holder is taken to release the value too. A method that releases nothing of
//     the kind (ns.Describe()), or a holder made any other way, releases nothing of it. A
//     local made holding the release itself, as a literal in a field that makes it before
//     anything that may leave (body := &fnOnClose{BeforeClose: func() { r.Release(1) },
//     ReadCloser: resp.Body}, containerd's fetcher), and given nothing but composite
//     literals, releases by a method of the package that calls that field before anything
//     that may leave (f.BeforeClose(); return f.ReadCloser.Close()): defer func() { if
//     retErr != nil { body.Close() } }() gives the permit back at every error return. Only
//     assignments, declarations, counts and other calls, each a statement of its own, may
//     come before the call, in the literal and in the method (f.closed = true;
//     f.BeforeClose()). A literal that releases under a condition, or a Close that calls
//     the field after an early return, releases nothing. Such a local holds the release
//     wherever it was made, before the acquisition too: return body hands it on. Such
//     a release ends an acquisition but is no evidence that it needs ending: a lock's holder
//     whose replayWAL() unlocks its own mutex does not make the lock a thing to release.
//   - handoff: returning the value, a closure that releases it or the release as a method value
//     (return l.Unlock, nil), also a closure variable bound once, before the acquisition too,
//     to a literal that releases it or captures it (cleanup := func() { for _, f := range files
//     { f.Close() } } before the loop that opens them; return cleanup, nil), assigning it
//     straight to a variable the function did not declare (a package variable, or in a literal
//     the enclosing function's: conn, err = d.DialContext(…) inside ns.Do(func(…) error {…})),
//     storing it in a field, map, slice or channel (a send that is a select's case only on the
//     path into that case), capturing it in a go statement, returning it from a function
//     literal's own return (a factory of the resource, whose caller takes it:
//     tcpproxy.DialProxy{DialContext: func(…) (net.Conn, error) { return outbound, nil }}, also
//     through a local copy, a named result or a literal it calls; the literal hands it on where
//     it is written, so a return before the factory goes anywhere is not reported; not a
//     literal called where it is written, nor one stored in a local, which holds the value as
//     an alias does: get := func() net.Conn { return conn }; c := get()), starting a goroutine
//     whose literal releases it whenever it runs (go func() { defer s.sem.Release(); … }(), the
//     permit of the batch it runs, also a literal the goroutine's function is given: go
//     withRecover(func() { defer b.lock.Unlock(); … }), sarama's broker dialing under its lock;
//     or a release before each of its returns; not one under a condition, in one case of a
//     switch, after an early return, inside a loop of it (an endless for too), or in a literal
//     it never calls), passing a closure or method value that releases it (t.Cleanup(f.Close),
//     s.Defer("address/x", l.Release)), or passing the acquisition's result straight to another
//     call (register(p.reserve(n))). So does passing it to a function with no summary: a
//     function value or an interface method not called on the value itself (h(f), s.Take(f)),
//     since nothing says it does not keep it (the broader tier reports these). Passing it to a
//     function that keeps it beyond the call hands it on too: one that hands the parameter to a
//     goroutine (pprof.StartCPUProfile(f), whose writer goroutine writes f), sends it or stores
//     it in a package variable or in a field of what another of its parameters points at
//     (attach(j, f) setting j.out = f, not a value parameter's own copy), or passes it to a
//     function that does, read from its summary (a fact, for another package's), also through a
//     local copy (g := f) or as an element of a variadic parameter it ranges over. A method
//     that stores it in a field of its receiver (r.add(f) appending to r.files, not a value
//     receiver's own copy; also wrapped in the result of a function of its package, directly,
//     through a local, one of several results, or another such call: n := newNIC(id, ep);
//     s.nics[id] = n, as gvisor's stack keeps an endpoint, or s.nics[id] = newNIC(id,
//     wrapSniffer(ep))) hands it on when that receiver outlives the function, not when the
//     receiver is a fresh local of the function (r := &registry{}; r.add(f)), which then holds
//     it as an alias does (return r hands it on), nor through a constructor that stores it in a
//     fresh value of its own (bufio.NewReader(f) leaves f the function's to close). Storing a
//     field of it (lastName = f.Name()) keeps nothing of it; a keep under a condition still
//     counts. A lock goes with the variable a field of which it is (cr for cr.mu.Lock(), a
//     local or a parameter, not the method's receiver): putting that holder into a composite
//     literal or an appended element (toDelete = append(toDelete, &deleteRecord{cacheRecord:
//     cr}), buildkit's prune leaving the records it deletes locked), storing it anywhere but in
//     a local, or sending it hands the lock on. So does returning it, or a value made holding
//     it, for a function's lock taken on its one argument, which the function never assigns
//     again (lockFile(f), an flock: return &dirLock{f: f}, nil, or return f, nil). When the
//     receiver is what the acquisition holds (a scoped acquisition, not a lock, that takes
//     nothing and returns nothing but an error, b.policy.acquireRef()), storing or returning
//     the receiver hands the hold on: &picker{policy: b.policy}; so does storing or returning
//     what holds it, the root of its field path (return sh, nil after sh.st.Open(); s.shards =
//     append(s.shards, sh)).
//   - receiverowned: in a method's own body (a function literal in it is a function of its
//     own), an acquisition that returns nothing but an error (so what it makes is known by its
//     arguments alone) and whose arguments name it by the receiver's fields alone, directly or
//     through a local declared once from them (veth := &netlink.Veth{LinkAttrs:
//     netlink.LinkAttrs{Name: n.hostName}}; netlink.LinkAdd(veth)), fields the method never
//     changes, before or after it reads them (by assigning them or what they are reached
//     through, taking their address or calling a pointer method on them; a method of the
//     receiver itself, g.Lock(), changes none of them; a change made through a copy of the
//     receiver, q := p; q.host = other, is not seen), when another method of the receiver's
//     type (generic or not) calls a release of its kind (deleteVeth's h.LinkDel): the receiver
//     owns it, and whoever owns the receiver cleans it up through it. A value the call returns
//     (os.Create(p.path)) belongs to the receiver only once stored in it. A name with a
//     parameter or another local in it (p.host + suffix, p.names[i]), a field the method
//     changes (p.host = other, g.host.reset()), a local that it assigns again (s = &spec{Name:
//     other}), or a type no other method of which releases, keeps every finding. So is an Open
//     of a field path of the receiver given nothing but a context (c.Store.Open(ctx) opens
//     c.Store itself) when another method of the type closes that same path of its receiver
//     (c.Store.Close(ctx) in c.Close, litestream's replicate command), also where this method
//     stored a new value there first: the field is the receiver's. Not a count
//     (b.def.acquireRef(), d.sem.Acquire(ctx, 1)), which each call owes, nor a field no other
//     method closes, nor one the method gives another value after the Open (c.Store =
//     NewStore(), which leaves the opened store to nobody).
//   - compositehandoff: passing it inside a composite literal (s.push(entry{lease: l})), or
//     to a Serve-like method, one whose name leads with the word Serve (srv.Serve(ln),
//     c.ServeConn(ln)), or to a function whose summary hands that parameter to one (rclone's
//     s.serve(listener, …) returning hs.Serve(listener)). A function named so, not a method
//     (ServeNothing(ln)), is read by its summary as any other.
//   - resultholds: returning (or storing) the result of a function of the package whose
//     result holds the value it is passed, or its receiver: return c.wrap(data), nil for a
//     wrap that stores c in the rows it returns (r.c = c; return r), as pgx's pool hands a
//     connection to the rows that release it; also through another such call (return
//     rowsOf(c, data)) or a composite literal (return rows{c: c}), a conversion (any(c),
//     also to a number: os.NewFile(uintptr(fd), name) holds the descriptor fd), append, a
//     closure that captures it, or another package's function of one result
//     (bufio.NewWriter(c), taken to hold what it is passed, as below), or a local or named
//     result that holds it (a bare return returns the named ones; a variadic parameter
//     holds every argument passed to it), or a local that holds the result of such a call,
//     one of several too (s, err := newSniffer(fd); … return &network{s: s}, a result that
//     is neither an error nor of a basic type, by its position: st, _, err := split(fd)
//     holds only what split's first result holds; for another package's function of several
//     results its fact says which result holds which parameter or its receiver, endpoint,
//     err := sniffer.NewWithWriter(lower, fd, n) or v, err := t.View(), a string or a
//     number too, and with no fact none does, so result, err :=
//     current.NewResultFromResult(r) keeps nothing of r, and return lib.Fresh(f) hands
//     nothing on). So does the result of an interface's method called on a local that
//     holds the value, when its type can refer to a resource (an interface, a function, or
//     a pointer, channel, container or struct of one): no summary can say it does not
//     (signers, err := ac.Signers() for ac := agent.NewClient(conn): the signers sign
//     through conn, go-libvirt's agent auth). Not one of the value itself or of a copy of it
//     (a local of a type the value can be assigned to, c2 := conn): conn.RemoteAddr() is
//     its data; nor a result that refers to nothing (ac.List()'s []string, a *int). In a
//     summary, the variable each case of a type switch on a parameter binds is the
//     parameter (switch c := c.(type) { case *net.TCPConn: return &tcpConn{c} }:
//     go-multiaddr's WrapNetConn keeps the connection it wraps), unless the function
//     assigns the parameter, or the case its own variable (c = &net.TCPConn{}). A result
//     that holds only a part of the value (return c.dataOnly()), or that a function of the
//     package passed the value makes of something else (return freshPlain(c)), keeps
//     nothing of it; but a part of a local that holds the value in a field may be the
//     value: with client := fcgiClient{rwc: conn}, resp, err := client.Get() holds conn
//     when Get returns a response whose body keeps c.rwc (caddy's FastCGI transport),
//     through the locals and named results it is stored in (closer := bodyCloser{rwc:
//     c.rwc}; resp.Body = closer). A part is a field that can hold a value
//     (c.rwc, not the number c.reqID), and which field holds the value is not compared: a
//     response that keeps c.rwc is taken to keep conn held in c.other too. Only a local
//     that is the call's receiver or argument is read so, and only for a function of the
//     package: s.client.Get() for s := session{client: …}, or another package's method,
//     keeps no part; the result of another package's function of one result passed it
//     (newConn(c)) is taken to hold it, since no summary says otherwise. A store counts
//     though it is undone later (r.c = nil). A summary does not read a type assertion: the
//     CNI's NewResultFromResult(r) returns newResult.(*Result), a result of its own that
//     describes an IPAM allocation, not one that holds it. One of several results stored
//     where it outlives the function with an error beside it (t.out, err = newSniffer(fd))
//     is handed on only where that error may be nil: a return where the path knows it is
//     non-nil (if err != nil { return err }) has stored the nil result of a failed call,
//     which keeps nothing, and the value leaks there; err assigned again makes the store a
//     hand-off (also by the acquisition met again around a loop), unless wrapped back into
//     itself (err = fmt.Errorf("…: %w", err)). Only a test of err itself settles it (err !=
//     nil, a term of &&): not errors.Is(err, x), a copy of err, or one term of ||.
//   - structholder: storing the value, or a literal that returns it, in a field of a local
//     struct value, or in a struct field of one (not through a pointer: the field is the
//     local's own memory), makes the local hold it, as an alias does, rather than handing it
//     on: options.OpenFile = func(…) (*os.File, error) { return temp, nil }, o.Log.File = f.
//     Passing that local, or its address, to a call that returns an error (a function, a
//     method or a function value, whatever its summary says it keeps) hands the value on
//     where the error may be nil: the callee took it when it succeeded, and nothing when it
//     failed, so etcd's defrag leaks its temporary file at the return after tmpdb, err :=
//     bolt.Open(tdbp, 0600, &options) fails (fixed in v3.5.17 by closing it there). So does
//     calling another package's method on it (a method of the package is read by its summary,
//     as resultholds says). Where the call's error is dropped or returned (tp.Run(), return
//     tp.Run()), nothing after it tells whether the call took the value, and it is handed on:
//     etcd's gateway, whose tcpproxy.TCPProxy{Listener: l} serves the listener until Run
//     fails. Passed to a call with no error (store.Describe(o), tp.Describe()) it is still
//     the function's to release; a store into a struct the function only points at
//     (o.OpenFile = … for a parameter o) hands it on.
//   - stringhandoff: when the release takes the acquired value (ReleaseAddress(ip)), that
//     value is the resource for these rules, a string as much as a pointer.
//   - errorevidence: a rollback, or a pair undone on error returns, is reported only at a
//     return whose error is known non-nil on the path: the variable on the true edge of
//     err != nil (also of err != nil && retry), errors.New, fmt.Errorf, a package's error
//     variable (io.EOF, ErrNotFound), a composite literal, or a call passed such an error
//     (wrap(err, "…"), also assigned back: err = fmt.Errorf("…: %w", err)). return f() and
//     an error no test on the path settled may be the success path, which keeps what it
//     created.
//   - valuewitherror: a value returned with an error that is non-nil on that path (err on
//     the true edge of err != nil, errors.New, fmt.Errorf) is not handed on, since the
//     caller drops it: return f, err is reported even in a function that never calls the
//     release, when the value has one and the acquisition is scoped (an Open, a Dial); a
//     rollback verb's (ip, err := a.AllocateNext(); return ip, fmt.Errorf(…)) still needs
//     the function to undo it on some error path, as every rollback does.
//   - transaction: creates inside a literal passed to a transaction are undone by its error
//     returns: db.Update(func(tx *bolt.Tx) error { … tx.CreateBucket(…) … }).
//
// Function literals are checked as functions of their own; _test.go files when the driver
// loads them (go vet always, the command unless -test=false).
//
// # The broader tier
//
// The default tier is what go vet, the command and golangci-lint report unless told
// otherwise: findings with evidence. The -broad flag (Config.Broad, or broad: true in the
// golangci-lint plugin's settings) adds, opt-in, the returns the default tier keeps silent
// for lack of it:
//
//   - a value passed to a function value or an interface method (h(f), s.Take(f)), which
//     the default tier takes as kept, since no summary says what it does;
//   - an error return of a function whose callers exit on its error (callerexits), or of a
//     command-line action (cliaction), and any return of a command main ends after
//     (commandends);
//   - a rollback or pair at an error return whose error no test settled (errorevidence),
//     which may be the success path.
//
// Expect more findings there that a maintainer would not fix.
//
// # Fixes
//
// suggestedfix: a diagnostic carries the #97740 fix, a defer of the release right after the
// acquisition's error check and the success path's release deleted, only when it cannot
// change behaviour: a scoped acquisition with one release, which stands alone on its lines
// (g.Close(); f.Close() gets no fix, since the line goes whole), no path that hands it on,
// and no defer registered in between. The fix edits the file's own lines, whatever a //line
// directive calls them. After a lock's release, nothing may follow but a return whose
// results neither call nor receive: c.mu.Unlock(); c.touch(k) gets no fix, since deferred,
// the Unlock would run after touch; nor does c.mu.Unlock(); return <-ch, nil, or a send or a
// select after the Unlock: each may wait for a goroutine that needs the lock first. After
// any other release, what follows may do anything that mentions neither the acquired value
// nor the acquisition's receiver or arguments: releasepath -fix on
// k8s.io/legacy-cloud-providers v0.20.1 writes the v0.20.2 change, since the release there
// is followed by g.GetRegionForwardingRule, which touches none of them; f.Close();
// os.Remove(path) after os.Open(path) gets no fix. The first leaking return carries the
// fix, since it fixes them all; releasepath -fix applies it.
//
// # Suppressing
//
// //releasepath:ok <reason> at the end of the return's line or the acquisition's, or on the
// line above it, silences that finding (the reason is required; without one the directive
// is itself reported). //releasepath:handoff as a line of the doc comment of a function that
// returns holding the resource on purpose silences the function (for a function literal: on
// its line or the line above). //nolint:releasepath, //nolint:all or a bare //nolint, in
// golangci-lint's syntax (//nolint:a,releasepath // reason), counts in the places of both;
// under golangci-lint, golangci-lint applies //nolint itself.
//
// A comment counts only when it is the directive: it starts with it, with no space after
// the //, and the directive is followed by nothing or by a space and the reason. A comment
// that only mentions a directive is prose and silences nothing, such as "TODO:
// releasepath:ok maybe" or a doc comment's "Do not add //releasepath:handoff here."; nor
// does a longer word (//releasepath:okay) or a space after the // (// nolint:releasepath).
package releasepath
