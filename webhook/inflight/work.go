package inflight

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"golang.org/x/sync/semaphore"
)

// A request's deadline bounds its work, not only its wait: a verdict that
// arrives after kube-apiserver stopped waiting is lost, and its work with
// it, while the requests behind it wait for the cores it took. So the
// costly part of a request (decoding, judging, encoding its answer) is
// begun only when the time left covers what it may take (WorkCost), and,
// for a large request, only on a free core; what cannot be done in time is
// refused at once, with the same 429 as a request that found no room, and
// kube-apiserver's failurePolicy decides.

// Estimated cost of a request's work on one core: the worst objects the CRD
// admits took up to 70 ns a byte of review on an idle core and 2-5 times as
// long on a loaded one (BenchmarkHandlerWorst, docs/performance.md); 100 ns
// a byte, 0.3 s for a 3 MiB object, is a loaded core's, and a minimum for
// the fixed part.
const (
	WorkPerByte = 100 * time.Nanosecond
	MinWork     = 5 * time.Millisecond
)

// WorkCost is how long the work of a request of size bytes may take.
func WorkCost(size int) time.Duration {
	return max(MinWork, time.Duration(size)*WorkPerByte)
}

// cores bounds the large requests worked on at once to the cores the
// process may use (GOMAXPROCS, which follows the container's CPU limit):
// more at once would only share the cores, each taking longer, and all of
// them could miss their deadlines where some would have met theirs. Small
// requests (smallBody) take no core of it: their work is short, and they
// are not to queue behind large ones.
var cores = semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0)))

// Begin is called by a handler before the costly part of r, whose body of
// size bytes it has read. It returns done, to call when the answer is
// written, and true when the work may begin: r's deadline leaves at least
// WorkCost(size), and, for a large body, a core became free in time for
// that. Otherwise it answers r 429, counted under reason deadline, and
// returns false: the work is never started. Until done is called, r keeps
// its weight in the Limiter's limit, even once its handler has returned.
func Begin(w http.ResponseWriter, r *http.Request, size int) (done func(), ok bool) {
	if Expired(w, r) {
		return nil, false
	}
	ctx := r.Context()
	cost := WorkCost(size)
	deadline, bounded := ctx.Deadline()
	if bounded && time.Until(deadline) < cost {
		refuse(w, r, reasonDeadline, fmt.Errorf("%v left before the request's deadline, less than the %v a body of %d bytes may take to judge",
			time.Until(deadline).Round(time.Millisecond), cost.Round(time.Millisecond), size))
		return nil, false
	}
	if size <= smallBody {
		return keep(ctx), true
	}
	wait := ctx
	if bounded {
		var cancel context.CancelFunc
		wait, cancel = context.WithDeadline(ctx, deadline.Add(-cost))
		defer cancel()
	}
	start := time.Now()
	if err := cores.Acquire(wait, 1); err != nil {
		refuse(w, r, reasonDeadline, fmt.Errorf("no core free in time to judge a body of %d bytes (%v) before the request's deadline (waited %v): %w",
			size, cost.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), err))
		return nil, false
	}
	drop := keep(ctx)
	return func() {
		cores.Release(1)
		drop()
	}, true
}

// Late answers r as refused and returns true when r's deadline passed
// while it was worked on: its answer would arrive after kube-apiserver
// stopped waiting (the deadline keeps a margin for the answer's way back),
// and a late verdict must not stand for the failed call kube-apiserver
// counts. A handler calls it once its answer is ready, before writing it.
func Late(w http.ResponseWriter, r *http.Request) bool {
	return passed(w, r, "while it was judged")
}
