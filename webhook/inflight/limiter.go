package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// DefaultMaxBytes is the default of Options.MaxBytes, sized for the chart's
// default memory limit of 256Mi: a request costs the server a small
// multiple of its body while it is decoded, judged and answered (the
// review is read twice, decoded into a review and then into a ListenerSet,
// re-encoded for the patch), measured at about 6x for a 1 MiB review
// (test/reliability TestInFlightLimitUnderLargeRequests prints the
// figures), so 24 MiB of bodies in flight need some 150 MiB beside the idle
// process's 20-40 MiB (more with --cluster-checks' caches), under the
// chart's GOMEMLIMIT of 95% of 256Mi. Raise it with the memory limit, in
// proportion.
const DefaultMaxBytes = 24 << 20

// requestOverhead is what a request weighs besides its body: its
// goroutine, buffers and decoded headers. It also bounds how many bodiless
// or tiny requests run at once (MaxBytes / requestOverhead).
const requestOverhead = 16 << 10

// Options configure a Limiter; the zero value uses the defaults.
type Options struct {
	// MaxBytes bounds the sum of the weights of the requests being handled:
	// each weighs its Content-Length plus a small fixed overhead. A request
	// that would go over waits, in arrival order, until enough of the
	// others have finished, or until its deadline. A request heavier than
	// the whole limit (or one without Content-Length, which could be up to
	// the body cap) weighs the whole limit: it is served alone, when its
	// turn comes, rather than never. 0 means DefaultMaxBytes.
	MaxBytes int64
	// DefaultTimeout is a request's time limit when its URL has no timeout
	// parameter (kube-apiserver always adds one); 0 means DefaultTimeout.
	DefaultTimeout time.Duration
}

// Limiter is the http.Handler middleware that gives each request its
// deadline and its place in the limit (see Options and Handler).
type Limiter struct {
	sem            *semaphore.Weighted
	maxBytes       int64
	defaultTimeout time.Duration
}

// New returns a Limiter with opts, or an error for values it cannot use.
func New(opts Options) (*Limiter, error) {
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.DefaultTimeout == 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxBytes < requestOverhead {
		return nil, fmt.Errorf("in-flight limit %d bytes: must be at least %d", opts.MaxBytes, requestOverhead)
	}
	if opts.DefaultTimeout < 0 || opts.DefaultTimeout > MaxTimeout {
		return nil, fmt.Errorf("default timeout %v: must be more than 0 and at most %v, as a webhook's timeoutSeconds", opts.DefaultTimeout, MaxTimeout)
	}
	limitBytes.Set(float64(opts.MaxBytes))
	return &Limiter{sem: semaphore.NewWeighted(opts.MaxBytes), maxBytes: opts.MaxBytes, defaultTimeout: opts.DefaultTimeout}, nil
}

// MaxBytes is the limit in use.
func (l *Limiter) MaxBytes() int64 { return l.maxBytes }

// DefaultTimeout is the time limit of a request without a timeout parameter.
func (l *Limiter) DefaultTimeout() time.Duration { return l.defaultTimeout }

// weight is what a request with this Content-Length (-1: unknown) counts
// against the limit.
func (l *Limiter) weight(contentLength int64) int64 {
	if contentLength < 0 || contentLength > l.maxBytes-requestOverhead {
		return l.maxBytes
	}
	return contentLength + requestOverhead
}

// Handler wraps next: each request gets a context whose deadline is its
// timeout (timeoutParam, else the default) less the margin, counted from
// its arrival, and waits until its weight fits in the limit. next then runs
// with that context, holding its weight until it returns. A request that
// finds no room before its deadline is answered 429 and counted in
// listenerset_webhook_requests_refused_total.
//
// The waiting happens before the body is read, so that a request over the
// limit holds no more memory than its headers; its weight is therefore
// what Content-Length announces (net/http never reads more). A body that
// arrives slowly keeps its weight until the server's read timeout ends it;
// kube-apiserver sends its bodies at once.
func (l *Limiter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		timeout := requestTimeout(r, l.defaultTimeout)
		ctx, cancel := context.WithTimeout(r.Context(), timeout-margin(timeout))
		defer cancel()
		n := l.weight(r.ContentLength)
		if !l.sem.TryAcquire(n) {
			waits.Inc()
			start := time.Now()
			if err := l.sem.Acquire(ctx, n); err != nil {
				refuse(w, r, reasonCapacity, fmt.Errorf("no room for this request of %d bytes in the webhook's limit "+
					"of %d bytes in flight within its %v timeout (waited %v): %w",
					max(r.ContentLength, 0), l.maxBytes, timeout, time.Since(start).Round(time.Millisecond), err))
				return
			}
		}
		inFlightBytes.Add(float64(n))
		defer func() {
			inFlightBytes.Sub(float64(n))
			l.sem.Release(n)
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Expired answers r as refused and returns true when r's deadline has
// passed: work begun after it would be answered too late to count. A
// handler calls it before its costly part (decoding and judging), after
// reading the body.
func Expired(w http.ResponseWriter, r *http.Request) bool {
	err := r.Context().Err()
	if err == nil {
		return false
	}
	refuse(w, r, reasonDeadline, fmt.Errorf("the request's deadline passed before it could be judged: %w", err))
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
