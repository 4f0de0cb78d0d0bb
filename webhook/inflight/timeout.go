package inflight

import (
	"net/http"
	"time"
)

// DefaultTimeout is a request's time limit when its URL carries no timeout
// parameter. It is the chart's default webhook timeoutSeconds, and
// kube-apiserver's own default for it (admissionregistration.k8s.io/v1),
// so that a request waits no longer here than kube-apiserver waits for it;
// the chart passes its timeoutSeconds as --default-timeout, and test/chart
// checks that its default agrees with this one.
const DefaultTimeout = 10 * time.Second

// MaxTimeout is the longest timeout kube-apiserver sends: a webhook's
// timeoutSeconds is at most 30. A longer one is not from kube-apiserver and
// is ignored.
const MaxTimeout = 30 * time.Second

// margin's bounds: a tenth of the timeout, at least minMargin, at most
// maxMargin.
const (
	minMargin = 200 * time.Millisecond
	maxMargin = time.Second
)

// timeoutParam is the query parameter kube-apiserver adds to a webhook's
// URL. Its value is a Go duration (client-go's rest.Request.Timeout sets it
// with time.Duration.String), rounded up to whole seconds by the webhook
// dispatcher: "10s" for timeoutSeconds 10, less when the request that
// triggered admission has less time left (k8s.io/apiserver
// pkg/admission/plugin/webhook/validating/dispatcher.go and
// mutating/dispatcher.go, callHook; client-go rest/request.go, URL).
const timeoutParam = "timeout"

// requestTimeout is r's time limit: its timeout parameter when that is a
// duration kube-apiserver could send (more than 0, at most MaxTimeout),
// else def. A value that does not parse, or more than one, is ignored in
// the same way: a malformed URL must not give a request more time, nor
// refuse it.
func requestTimeout(r *http.Request, def time.Duration) time.Duration {
	values := r.URL.Query()[timeoutParam]
	if len(values) != 1 {
		return def
	}
	d, err := time.ParseDuration(values[0])
	if err != nil || d <= 0 || d > MaxTimeout {
		return def
	}
	return d
}

// margin is how much sooner than kube-apiserver the server gives up on a
// request: a tenth of its timeout, at least 200ms and at most a second, left
// for writing the answer and for it to travel back before kube-apiserver
// stops waiting (an answer that arrives after that is lost, and its work
// with it). The floor is for the shortest timeouts (timeoutSeconds 1),
// where a tenth leaves too little for the way back from a node whose cores
// are busy (go run ./test/load -burst 16 -burst-runs 10 shows it).
func margin(timeout time.Duration) time.Duration {
	return min(max(timeout/10, minMargin), maxMargin)
}
