package ilbcontroller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/ilbcontroller"
	"github.com/safereconcile/safereconcile/orphans/internal/fakecloud"
)

// The points at which the crash test stops the controller: with SIGKILL, except during-shutdown.
const (
	killDuringAcquire     = "during-acquire"       // the cloud has reserved the address; the response never arrives
	killAfterFailure      = "after-failed-release" // the release failed; the process dies before it can report or record it
	killDuringRecordWrite = "during-record-write"  // the PATCH of the record: about to be sent, or applied with its answer unread
	killAfterRecord       = "after-record"         // the record is on the Service
	killDuringRetry       = "during-retry"         // a recorded orphan's release is in flight, before or after it took effect
	killDuringShutdown    = "during-shutdown"      // SIGTERM while a reconcile holds a failed release; the process exits on its own
	killAtRandom          = "at-random"            // any time in the first second and a half
	crashSeedsEnv         = "ORPHANS_CRASH_SEEDS"  // overrides the number of seeds
	crashServices         = 3                      // Services per seed
	maxFailuresPerName    = 3                      // injected failures per address, so backoff stays short
	crashParallel         = 5                      // seeds at a time: each mostly waits
	firstRun              = 10 * time.Second       // how long the first process may run before its kill point
)

var killPoints = []string{killDuringAcquire, killAfterFailure, killDuringRecordWrite, killAfterRecord,
	killDuringRetry, killDuringShutdown, killAtRandom}

// crashTally sums the crash test's figures over every seed, by kill point.
var crashTally struct {
	sync.Mutex
	started int // seeds run
	clean   int // seeds that left nothing behind
	byPoint map[string]*pointTally
}

// A pointTally sums the figures of the seeds of one kill point.
type pointTally struct {
	seeds    int            // seeds that ran to the end
	atPoint  int            // first processes stopped at the point; the others ran firstRun and were killed
	how      map[string]int // how those were stopped there, for the points that have variants
	kills    int            // first processes SIGKILLed, at the point or after firstRun
	failures int            // injected release failures, to the first process and the fresh one
	reported int            // of those, reported by a log line
	lost     int            // of those, received by a process killed before it could log them
	evented  int            // Services with a reported failure; each had a ReleaseFailed Event
}

// TestCrash runs the controller in a child process, stops it at one of killPoints, and then
// runs a fresh process to quiescence and through the deletion of every Service. Afterwards no
// reservation and no record may be left, and every injected failure must have been reported,
// except one that its process received in its last moments before a SIGKILL. A process killed
// during the record write after the API server applied the PATCH must have left that record
// on the Service; a process stopped with SIGTERM while it held a failed release, if it exits on
// its own, must have recorded that orphan first.
//
// go test -run TestCrash -v ./orphans/ilbcontroller logs its tally by kill point. In one run
// of 50 seeds, 8 at during-acquire and 7 at each other point, every first process was stopped
// at its point and every seed left no reservation, no record, no rule and no Service. Of 407
// injected failures, 399 were logged; the other 8 (7 after-failed-release, 1 during-retry)
// reached a process killed before it could log them, and their resources were released by
// name all the same. Each of the 150 Services with a logged failure had a ReleaseFailed
// Event. During the record write, 3 processes died as the PATCH was about to be sent and 4
// once the API server had applied it (2 records, 2 removals); the 7 stopped during a reconcile
// that held a failed release all exited on their own, with status 0 and that orphan recorded.
// The test took 84s on two shared cores, with -race.
func TestCrash(t *testing.T) {
	env.Need(t)
	seeds := 50
	if s, err := strconv.Atoi(os.Getenv(crashSeedsEnv)); err == nil && s > 0 {
		seeds = s
	}
	crashTally.byPoint = map[string]*pointTally{}
	for _, p := range killPoints {
		crashTally.byPoint[p] = &pointTally{how: map[string]int{}}
	}
	sem := make(chan struct{}, crashParallel)
	t.Run("seeds", func(t *testing.T) {
		for seed := range seeds {
			t.Run(strconv.Itoa(seed), func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				crashOnce(t, uint64(seed))
			})
		}
	})
	crashTally.Lock()
	defer crashTally.Unlock()
	t.Logf("crash test: %d of %d seeds (%d Services each) left nothing behind: no reservation, no record, no rule, no Service",
		crashTally.clean, crashTally.started, crashServices)
	for _, p := range killPoints {
		pt := crashTally.byPoint[p]
		how := ""
		if len(pt.how) > 0 {
			how = fmt.Sprintf(" %v", pt.how)
		}
		t.Logf("%s: %d seeds, %d stopped at the point%s, %d SIGKILLed; %d injected release failures: %d reported by a log line, %d lost with a process killed before it could log them; a ReleaseFailed Event on each of the %d Services with a reported failure",
			p, pt.seeds, pt.atPoint, how, pt.kills, pt.failures, pt.reported, pt.lost, pt.evented)
	}
}

func crashOnce(t *testing.T, seed uint64) {
	crashTally.Lock()
	crashTally.started++
	crashTally.Unlock()
	rng := rand.New(rand.NewPCG(seed, 0x6f727068616e73))
	point := killPoints[seed%uint64(len(killPoints))]
	w := newWorld(t, fmt.Sprintf("crash-%d", seed))
	var rmu sync.Mutex // rng is not safe for concurrent use
	failed := map[string]int{}
	w.inject = func(name string) bool { // called with w.mu held
		rmu.Lock()
		defer rmu.Unlock()
		// The first release of each address fails, then half of them, a few times at most.
		if failed[name] < maxFailuresPerName && (failed[name] == 0 || rng.IntN(2) == 0) {
			failed[name]++
			return true
		}
		return false
	}
	rmu.Lock()
	nth := 1 + rng.IntN(crashServices) // kill at the nth occurrence of the point
	delay := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
	before := rng.IntN(2) == 0 // during-retry and during-record-write: before the call takes effect, or after
	// Each Service's record is written at least twice, when its first orphan is recorded and
	// when its last is released, so the nth record write may be either.
	nthWrite := 1 + rng.IntN(2*crashServices)
	rmu.Unlock()

	const first = "first"
	var extra []string
	var once sync.Once
	var atPoint atomic.Bool // this process stopped the first at the point
	killFirst := func() { once.Do(func() { atPoint.Store(true); go w.kill(first) }) }
	stopFirst := func() { once.Do(func() { atPoint.Store(true); go w.stop(first) }) }
	seen := 0
	// A release of an address whose release failed before is the retry of its orphan (or a
	// later scope's release of the same name, which the retry precedes).
	isRetrying := func(name string) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, f := range w.failures {
			if f.name == name && f.caller == first {
				return true
			}
		}
		return false
	}
	switch point {
	case killAfterFailure:
		extra = append(extra, childKillOnFailed+"="+strconv.Itoa(nth))
	case killDuringRecordWrite:
		when := writeAfterApply
		if before {
			when = writeBeforeSend
		}
		extra = append(extra, childKillOnWrite+"="+strconv.Itoa(nthWrite)+":"+when)
	case killDuringShutdown:
		extra = append(extra, childStopOnFailed+"="+strconv.Itoa(nth))
	case killDuringAcquire:
		w.hook = func(ctx context.Context, op fakecloud.Op, _ string, done bool) error {
			if op == fakecloud.ReserveAddress && done && fakecloud.Caller(ctx) == first {
				rmu.Lock()
				seen++
				now := seen == nth
				rmu.Unlock()
				if now {
					atPoint.Store(true)
					w.kill(first)
				}
			}
			return nil
		}
	case killDuringRetry:
		w.hook = func(ctx context.Context, op fakecloud.Op, name string, done bool) error {
			if op == fakecloud.ReleaseAddress && done != before && fakecloud.Caller(ctx) == first && isRetrying(name) {
				atPoint.Store(true)
				w.kill(first)
			}
			return nil
		}
	}
	w.createServices(crashServices)
	ch := w.start(first, false, extra...)

	// The first record to appear on a Service is a kill point; the child's report that it
	// holds a failed release is the moment to SIGTERM it.
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(10 * time.Millisecond):
			}
			switch point {
			case killAfterRecord:
				for _, s := range w.servicesQuiet() {
					if _, ok := s.Annotations[orphans.Key(ilbcontroller.Name)]; ok {
						killFirst()
					}
				}
			case killDuringShutdown:
				if len(w.reported(first)) > 0 {
					stopFirst()
				}
			}
		}
	}()
	if point == killAtRandom {
		time.AfterFunc(delay, killFirst)
	}
	select {
	case <-ch.done:
	case <-time.After(firstRun):
		if !atPoint.Load() {
			// The kill point never came (a seed whose failures all fell elsewhere): kill at the end.
			w.kill(first)
		}
		<-ch.done // a stop under way ends within the child's graceful shutdown timeout
	}
	close(stopWatch)
	<-watched

	// Where the first process stopped, and what it left there, before anything else runs.
	reports := w.reported(first)
	if point == killAfterFailure || point == killDuringRecordWrite {
		atPoint.Store(len(reports) > 0) // the child killed itself there
	}
	how := "" // the point's variant, for the tally
	if point == killDuringRetry {
		how = "after the release took effect"
		if before {
			how = "before the release took effect"
		}
	}
	for _, r := range reports {
		switch r.Point {
		case killDuringRecordWrite:
			what := "a record"
			if r.Record == nil {
				what = "a removal"
			}
			how = r.When + " of " + what
			if r.When != writeAfterApply {
				break
			}
			// The answer died with the process, but the API server had applied the write.
			s := w.service(r.Service)
			got, ok := s.Annotations[orphans.Key(ilbcontroller.Name)]
			if r.Record == nil {
				assert.False(t, ok, "%s: the removal of the record, applied before the kill, is not there: %s", r.Service, got)
			} else {
				assert.Equal(t, *r.Record, got, "%s: the record written before the kill", r.Service)
			}
		case killDuringShutdown:
			st := ch.cmd.ProcessState
			if !st.Exited() {
				how = "SIGKILLed after its graceful shutdown timeout"
				break
			}
			how = fmt.Sprintf("exited with status %d", st.ExitCode())
			// The reconcile went on with its context cancelled and recorded the failed
			// release it held before the process exited.
			assert.Contains(t, w.recordedOn(r.Address), "address/"+r.Address, "orphan held at SIGTERM, after the process exited")
		}
	}

	// A fresh process, with the same cloud still failing now and then, must finish the job.
	w.start("fresh", false)
	w.await("converge after the crash", 60*time.Second, w.converged)
	w.deleteServices()
	w.await("delete every Service", 60*time.Second, w.gone)
	w.stop("fresh")

	// Every failure was reported. The log line is the report of each occurrence: it is
	// written synchronously, before the record, so only a kill between the cloud's answer and
	// the log line (the failure was the process's last call) can lose it. Events are the
	// report per object: the events library folds repeats of one reason and action on one
	// object into a series on the first Event, so each Service with a failure has at least
	// one ReleaseFailed Event.
	w.mu.Lock()
	failures := append([]failure(nil), w.failures...)
	killed := !w.children[first].killed.IsZero()
	logs := map[string]string{}
	for id, ch := range w.children {
		logs[id] = ch.stderr.String()
	}
	lastCall := w.lastCall[first]
	w.mu.Unlock()
	evented := map[string]bool{}
	for _, e := range w.events(orphans.ReasonReleaseFailed) {
		evented[e.InvolvedObject.Name] = true
	}
	byLog, unreported := 0, 0
	wantEvent := map[string]bool{}
	for _, f := range failures {
		switch {
		case strings.Contains(logs[f.caller], f.text()+":"):
			byLog++
			wantEvent[f.svc] = true
		case f.caller == first && killed && f.seq == lastCall:
			unreported++ // killed between the cloud's answer and the log line
		default:
			t.Errorf("failure %s of %s (caller %s) was never reported", f.text(), f.name, f.caller)
		}
	}
	for svc := range wantEvent {
		assert.True(t, evented[svc], "no ReleaseFailed Event on %s", svc)
	}
	assert.NotEmpty(t, failures)
	crashTally.Lock()
	defer crashTally.Unlock()
	crashTally.clean++
	pt := crashTally.byPoint[point]
	pt.seeds++
	if atPoint.Load() {
		pt.atPoint++
		if how != "" {
			pt.how[how]++
		}
	}
	if killed {
		pt.kills++
	}
	pt.failures += len(failures)
	pt.reported += byLog
	pt.evented += len(wantEvent)
	pt.lost += unreported
}

// When, in a child with childKillOnWrite, the PATCH of the orphan record kills the process.
const (
	writeBeforeSend = "before-send" // as it is about to send the request: not applied
	writeAfterApply = "after-apply" // once the API server answered 200: applied, answer unread
)

// A child that reaches a kill point of its own writes one line to standard error, pointMarker
// and a pointReport in JSON, before it kills itself or waits for the parent's signal: so the
// parent, which reads that output to its end once the child is gone, knows which point it
// reached.
const pointMarker = "ilbcontroller crash test: at kill point "

// A pointReport says which kill point a child reached, and what it was doing there.
type pointReport struct {
	Point string `json:"point"`
	// Address is the reservation whose release failed (after-failed-release, during-shutdown).
	Address string `json:"address,omitempty"`
	// When, Service and Record describe the PATCH of the record (during-record-write):
	// writeBeforeSend or writeAfterApply, the Service patched, and the record the patch
	// writes, nil when it removes the record.
	When    string  `json:"when,omitempty"`
	Service string  `json:"service,omitempty"`
	Record  *string `json:"record,omitempty"`
}

func reportPoint(r pointReport) {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // strings always encode
	}
	fmt.Fprintf(os.Stderr, "%s%s\n", pointMarker, b) // one write: one line, whole
}

// die SIGKILLs this process and never returns.
func die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// A recordWriteKill kills the child at its nth PATCH of the orphan record (the annotation key),
// through the REST client's transport: every client the manager makes from the config sends
// its requests through it. Before sending, the API server never sees the write; after a 200,
// the API server has applied it and the answer dies unread with the process. Either way the
// process never learns whether its record was written, as when a node dies mid-request.
type recordWriteKill struct {
	key  string
	when string // writeBeforeSend or writeAfterApply
	nth  int64
	seen atomic.Int64 // record PATCHes so far: sent (before-send) or applied (after-apply)
}

func (k *recordWriteKill) wrap(next http.RoundTripper) http.RoundTripper {
	return recordWriteTransport{k: k, next: next}
}

type recordWriteTransport struct {
	k    *recordWriteKill
	next http.RoundTripper
}

func (t recordWriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rep, ok := t.k.recordPatch(req)
	if !ok {
		return t.next.RoundTrip(req)
	}
	if t.k.when == writeBeforeSend && t.k.seen.Add(1) == t.k.nth {
		reportPoint(rep)
		die()
	}
	resp, err := t.next.RoundTrip(req) // returns with the headers, before the body is read
	if t.k.when == writeAfterApply && err == nil && resp.StatusCode == http.StatusOK && t.k.seen.Add(1) == t.k.nth {
		reportPoint(rep)
		die()
	}
	return resp, err
}

// recordPatch reports whether req is a PATCH of a Service that sets or removes the record
// annotation, and describes it. It reads a copy of the body, so req is sent unchanged.
func (k *recordWriteKill) recordPatch(req *http.Request) (pointReport, bool) {
	if req.Method != http.MethodPatch || req.GetBody == nil || !strings.Contains(req.URL.Path, "/services/") {
		return pointReport{}, false
	}
	body, err := req.GetBody()
	if err != nil {
		return pointReport{}, false
	}
	defer body.Close()
	var patch struct {
		Metadata struct {
			Annotations map[string]*string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.NewDecoder(body).Decode(&patch); err != nil {
		return pointReport{}, false
	}
	rec, ok := patch.Metadata.Annotations[k.key]
	if !ok {
		return pointReport{}, false
	}
	return pointReport{Point: killDuringRecordWrite, When: k.when, Service: path.Base(req.URL.Path), Record: rec}, true
}
