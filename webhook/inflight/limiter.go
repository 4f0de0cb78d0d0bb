package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// DefaultMaxBytes is the default of Options.MaxBytes, sized for the chart's
// default memory limit of 256Mi. A request costs the server a multiple of
// its body while it is decoded, judged and answered (the review is read
// twice, decoded into a review and then into a ListenerSet, and re-encoded
// for the patch): with this limit full of 1.1 MiB reviews to both webhooks
// and more waiting, the peak RSS was 145-178 MiB over an idle 38 MiB, some
// 6x the bodies in flight (TestInFlightLimitUnderLargeRequests logs the
// figures; docs/reliability.md). That leaves 65 MiB under the chart's
// GOMEMLIMIT (95% of 256Mi) for the cluster view's caches and the garbage
// collector. Raise it with the memory limit, in proportion.
const DefaultMaxBytes = 24 << 20

// RequestOverhead is what a request weighs besides its body: its
// goroutine, buffers and decoded headers. It also bounds how many bodiless
// or tiny requests run at once.
const RequestOverhead = 16 << 10

// smallBody is the largest body of a small request: the review of every
// ListenerSet a person writes (64 HTTPS listeners are a 51 KB review, and
// an UPDATE carries the object twice, kubectl's client-side apply once
// more in an annotation). Small requests have a lane of their own, an
// eighth of the limit (smallShare), so that they never queue behind large
// ones: a flood of large objects fills the rest of the limit and waits
// there, while the ordinary writes of everyone else are still answered.
const (
	smallBody  = 256 << 10
	smallShare = 8
)

// MinMaxBytes is the smallest limit New accepts (2176 KiB): the small lane
// must hold one request of smallBody.
const MinMaxBytes = smallShare * (smallBody + RequestOverhead)

// Options configure a Limiter; the zero value uses the defaults.
type Options struct {
	// MaxBytes bounds the sum of the weights of the requests being handled:
	// each weighs its Content-Length plus a small fixed overhead. Small
	// requests (at most 256 KiB) share an eighth of it, larger ones the
	// rest; a request that would go over its share waits, in arrival order
	// within its lane, until enough of the others have finished, or until
	// its deadline. A large request heavier than its whole share (or one
	// without Content-Length, which could be up to the body cap) weighs the
	// whole share: it is served alone when its turn comes, rather than
	// never. 0 means DefaultMaxBytes.
	MaxBytes int64
	// DefaultTimeout is a request's time limit when its URL has no timeout
	// parameter (kube-apiserver always adds one); 0 means DefaultTimeout.
	DefaultTimeout time.Duration
}

// Limiter is the http.Handler middleware that gives each request its
// deadline and its place in the limit (see Options and Handler).
type Limiter struct {
	small, large   lane
	maxBytes       int64
	defaultTimeout time.Duration
}

// lane is a share of the limit, handed out first come, first served.
type lane struct {
	sem  *semaphore.Weighted
	size int64
}

// New returns a Limiter with opts, or an error for values it cannot use.
func New(opts Options) (*Limiter, error) {
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.DefaultTimeout == 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxBytes < MinMaxBytes {
		return nil, fmt.Errorf("in-flight limit %d bytes: must be at least %d", opts.MaxBytes, MinMaxBytes)
	}
	if opts.DefaultTimeout < 0 || opts.DefaultTimeout > MaxTimeout {
		return nil, fmt.Errorf("default timeout %v: must be more than 0 and at most %v, as a webhook's timeoutSeconds", opts.DefaultTimeout, MaxTimeout)
	}
	limitBytes.Set(float64(opts.MaxBytes))
	small := opts.MaxBytes / smallShare
	return &Limiter{
		small:          lane{sem: semaphore.NewWeighted(small), size: small},
		large:          lane{sem: semaphore.NewWeighted(opts.MaxBytes - small), size: opts.MaxBytes - small},
		maxBytes:       opts.MaxBytes,
		defaultTimeout: opts.DefaultTimeout,
	}, nil
}

// MaxBytes is the limit in use.
func (l *Limiter) MaxBytes() int64 { return l.maxBytes }

// DefaultTimeout is the time limit of a request without a timeout parameter.
func (l *Limiter) DefaultTimeout() time.Duration { return l.defaultTimeout }

// place is the lane of a request with this Content-Length (-1: unknown)
// and what it weighs there.
func (l *Limiter) place(contentLength int64) (*lane, int64) {
	switch {
	case contentLength >= 0 && contentLength <= smallBody:
		return &l.small, contentLength + RequestOverhead
	case contentLength < 0 || contentLength > l.large.size-RequestOverhead:
		return &l.large, l.large.size
	default:
		return &l.large, contentLength + RequestOverhead
	}
}

// Handler wraps next: each request gets a context whose deadline is its
// timeout (timeoutParam, else the default) less the margin, counted from
// its arrival, and waits until its weight fits in its lane. next then runs
// with that context, holding its weight until it returns. A request that
// finds no room before its deadline is answered 429 and counted in
// listenerset_webhook_requests_refused_total.
//
// The waiting happens before the body is read, so that a request over the
// limit holds no more memory than its headers, and waits no longer than
// leaves the time its work may take (WorkCost); its weight is therefore
// what Content-Length announces (net/http never reads more). Once admitted,
// the body must arrive by the deadline: a read still waiting then fails, so
// that a body still arriving (a sender short of CPU, or a slow client) ends
// in the limiter's 429 at the deadline (BodyLate), not in a refusal written
// after kube-apiserver stopped waiting.
func (l *Limiter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		timeout := requestTimeout(r, l.defaultTimeout)
		ctx, cancel := context.WithTimeout(r.Context(), timeout-margin(timeout))
		defer cancel()
		ln, n := l.place(r.ContentLength)
		if !ln.sem.TryAcquire(n) {
			waits.Inc()
			start := time.Now()
			// no longer than leaves the time its work may take (Begin would
			// refuse it then): the cores are left to the requests that
			// can still be answered in time
			wait, cancelWait := context.WithTimeout(ctx, timeout-margin(timeout)-WorkCost(int(max(r.ContentLength, 0))))
			err := ln.sem.Acquire(wait, n)
			cancelWait()
			if err != nil {
				drain(w, r, margin(timeout)/2)
				refuse(w, r, reasonCapacity, fmt.Errorf("no room for this request of %d bytes in the webhook's limit "+
					"of %d bytes in flight within its %v timeout (waited %v): %w",
					max(r.ContentLength, 0), l.maxBytes, timeout, time.Since(start).Round(time.Millisecond), err))
				return
			}
		}
		// At the deadline, a read still waiting for the body fails. Set
		// then rather than now, so that it never lengthens the server's
		// own read timeout when that is shorter. (Unsupported only by
		// writers that are not net/http's, tests' recorders, whose body
		// has arrived already.)
		rc := http.NewResponseController(w)
		stopCut := context.AfterFunc(ctx, func() { _ = rc.SetReadDeadline(time.Now()) })
		defer stopCut()
		inFlightBytes.Add(float64(n))
		held := &weight{release: func() {
			inFlightBytes.Sub(float64(n))
			ln.sem.Release(n)
		}}
		held.refs.Store(1)
		defer held.drop()
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, weightKey{}, held)))
	})
}

// weight is a request's place in the limit, given back when both its
// handler and the work it began (Begin) have ended: work the handler leaves
// running past the deadline (Late) still holds the memory it weighs.
type weight struct {
	refs    atomic.Int32
	release func()
}

type weightKey struct{}

func (wt *weight) drop() {
	if wt.refs.Add(-1) == 0 {
		wt.release()
	}
}

// keep makes the weight of the request of ctx, if the Limiter gave it one,
// outlast its handler until the returned drop is called.
func keep(ctx context.Context) (drop func()) {
	wt, ok := ctx.Value(weightKey{}).(*weight)
	if !ok {
		return func() {}
	}
	wt.refs.Add(1)
	return wt.drop
}

// drain reads and discards the body of a request about to be refused, for
// at most d, so that its sender reads the 429 rather than an error: a
// server that answers and closes while the client still writes a large body
// often leaves the client with a broken pipe instead of the answer, and
// kube-apiserver would then report "connection reset" rather than why. A
// body of unknown length, or one that does not arrive within d, is left,
// and the connection closes after the answer (net/http reads no further).
func drain(w http.ResponseWriter, r *http.Request, d time.Duration) {
	if r.ContentLength <= 0 {
		return
	}
	// Once the body has been read to its end net/http clears the read
	// deadline itself, before it waits for the next request.
	if err := http.NewResponseController(w).SetReadDeadline(time.Now().Add(d)); err != nil {
		return
	}
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		w.Header().Set("Connection", "close")
	}
}

// BodyLate answers r as refused and returns true when err, from reading
// r's body, is the read deadline Handler set: the body had not arrived by
// r's deadline.
func BodyLate(w http.ResponseWriter, r *http.Request, err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	w.Header().Set("Connection", "close")
	refuse(w, r, reasonDeadline, fmt.Errorf("the request's deadline passed before its body had arrived: %w", err))
	return true
}

// Expired answers r as refused and returns true when r's deadline has
// passed: work begun after it would be answered too late to count. A
// handler calls it before its costly part (decoding and judging), after
// reading the body.
func Expired(w http.ResponseWriter, r *http.Request) bool {
	return passed(w, r, "before it could be judged")
}

// passed answers r as refused, saying when its deadline passed, and
// returns true when it has.
func passed(w http.ResponseWriter, r *http.Request, when string) bool {
	err := r.Context().Err()
	if err == nil {
		return false
	}
	refuse(w, r, reasonDeadline, fmt.Errorf("the request's deadline passed %s: %w", when, err))
	return true
}

// refuse answers 429 Too Many Requests with a metav1.Status, as
// kube-apiserver's own priority and fairness does for a request that found
// no seat, and counts it under reason.
//
// An HTTP error rather than an AdmissionReview that denies: kube-apiserver
// reads any answer other than 200 with a review as a failed call to the
// webhook (client-go turns a non-2xx status into an error, which the
// dispatcher wraps as ErrCallingWebhook) and then applies the webhook's
// failurePolicy: Ignore admits, Fail rejects with "failed calling
// webhook", whereas a review that denies is a denial under either policy
// (k8s.io/apiserver pkg/admission/plugin/webhook/validating/dispatcher.go,
// Validate and callHook; the same in mutating/dispatcher.go;
// kubernetes-sigs/controller-runtime#2662). No Retry-After: client-go would
// retry with the same timeout parameter after kube-apiserver's own time had
// run out.
func refuse(w http.ResponseWriter, r *http.Request, reason string, err error) {
	refusals.WithLabelValues(reason).Inc()
	logf.FromContext(r.Context()).Info("Refused a request: the webhook is at its limit", "reason", reason, "path", r.URL.Path, "error", err.Error())
	status := apierrors.NewTooManyRequests(err.Error(), 0).ErrStatus
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	status.Details = nil
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	if err := json.NewEncoder(w).Encode(status); err != nil && !errors.Is(err, http.ErrHandlerTimeout) {
		logf.FromContext(r.Context()).Error(err, "unable to write the refusal")
	}
}
