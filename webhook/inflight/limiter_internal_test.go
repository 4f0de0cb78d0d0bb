package inflight

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kib is the body size of most requests below: with requestOverhead, a
// limit of 2*unit holds two of them and not three.
const (
	kib  = 64 << 10
	unit = kib + requestOverhead
)

// request is a POST of a body of size bytes, with timeout as its URL's
// timeout parameter ("" leaves it out).
func request(size int, timeout string) *http.Request {
	target := "/validate"
	if timeout != "" {
		target += "?timeout=" + timeout
	}
	return httptest.NewRequest(http.MethodPost, target, strings.NewReader(strings.Repeat(" ", size)))
}

// gate is a handler that records each request's arrival and holds it until
// released.
type gate struct {
	entered chan *http.Request
	release chan struct{}
}

func newGate() *gate {
	return &gate{entered: make(chan *http.Request, 16), release: make(chan struct{})}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.entered <- r
	<-g.release
	w.WriteHeader(http.StatusOK)
}

// serve runs r through h in a goroutine; the recorder is complete once
// done is closed.
func serve(h http.Handler, r *http.Request) (rec *httptest.ResponseRecorder, done chan struct{}) {
	rec, done = httptest.NewRecorder(), make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, r)
	}()
	return rec, done
}

func newLimiter(t *testing.T, maxBytes int64) *Limiter {
	t.Helper()
	l, err := New(Options{MaxBytes: maxBytes})
	require.NoError(t, err)
	return l
}

func entered(t *testing.T, g *gate) *http.Request {
	t.Helper()
	select {
	case r := <-g.entered:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the handler")
		return nil
	}
}

func notEntered(t *testing.T, g *gate, d time.Duration) {
	t.Helper()
	select {
	case r := <-g.entered:
		t.Fatalf("a request of %d bytes reached the handler while the limit was full", r.ContentLength)
	case <-time.After(d):
	}
}

// A request over the limit waits, and proceeds once another finishes;
// the weight is its body's size: two bodies fit, a third waits.
func TestLimiterWaitsThenProceeds(t *testing.T) {
	g := newGate()
	h := newLimiter(t, 2*unit).Handler(g)
	waited := value(waits)
	_, done1 := serve(h, request(kib, "10s"))
	_, done2 := serve(h, request(kib, "10s"))
	entered(t, g)
	entered(t, g)
	assert.Equal(t, float64(2*unit), value(inFlightBytes))
	rec3, done3 := serve(h, request(kib, "10s"))
	notEntered(t, g, 200*time.Millisecond)
	assert.Equal(t, waited+1, value(waits), "the third request waits")

	g.release <- struct{}{} // one of the first two finishes
	entered(t, g)
	<-done1Or2(done1, done2)
	close(g.release)
	<-done3
	assert.Equal(t, http.StatusOK, rec3.Code)
	<-done1
	<-done2
	assert.Zero(t, value(inFlightBytes), "every weight is given back")
}

func done1Or2(a, b chan struct{}) chan struct{} {
	c := make(chan struct{})
	go func() {
		select {
		case <-a:
		case <-b:
		}
		close(c)
	}()
	return c
}

// Smaller bodies weigh less: with one large request in flight, small ones
// still fit beside it.
func TestLimiterWeighsByBodySize(t *testing.T) {
	g := newGate()
	defer close(g.release)
	h := newLimiter(t, 2*unit).Handler(g)
	serve(h, request(kib, "10s"))
	entered(t, g)
	// unit is left: two bodies of a quarter of it (with their overhead) fit.
	small := (kib - requestOverhead) / 2
	serve(h, request(small, "10s"))
	serve(h, request(small, "10s"))
	entered(t, g)
	entered(t, g)
	serve(h, request(kib, "10s"))
	notEntered(t, g, 200*time.Millisecond)
}

// A request that finds no room before its deadline (its timeout less the
// margin) is answered 429 with a Status, not an AdmissionReview, and
// counted; the handler never sees it.
func TestLimiterRefusesAtTheDeadline(t *testing.T) {
	g := newGate()
	defer close(g.release)
	h := newLimiter(t, 2*unit).Handler(g)
	serve(h, request(2*kib, "10s")) // over the limit: weighs all of it
	entered(t, g)
	before := value(refusals.WithLabelValues(reasonCapacity))
	start := time.Now()
	rec, done := serve(h, request(kib, "1s"))
	<-done
	waited := time.Since(start)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, before+1, value(refusals.WithLabelValues(reasonCapacity)))
	assert.GreaterOrEqual(t, waited, time.Second-margin(time.Second), "waits until the deadline")
	assert.Less(t, waited, time.Second, "answers before kube-apiserver gives up")
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var status metav1.Status
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &status), rec.Body.String())
	assert.Equal(t, metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, status.TypeMeta)
	assert.Equal(t, metav1.StatusFailure, status.Status)
	assert.Equal(t, metav1.StatusReasonTooManyRequests, status.Reason)
	assert.Equal(t, int32(http.StatusTooManyRequests), status.Code)
	assert.Contains(t, status.Message, "no room for this request of 65536 bytes in the webhook's limit of 163840 bytes in flight within its 1s timeout")
	notEntered(t, g, 0)
}

// A body larger than the whole limit (or of unknown length) weighs the
// whole limit: it is served alone, after what is in flight, and what comes
// after it waits for it (first come, first served), so it is never starved
// by a stream of smaller requests.
func TestLimiterServesAnOversizedRequestAlone(t *testing.T) {
	g := newGate()
	h := newLimiter(t, 2*unit).Handler(g)
	_, doneSmall := serve(h, request(kib, "10s"))
	entered(t, g)
	_, doneBig := serve(h, request(10*kib, "10s"))
	time.Sleep(100 * time.Millisecond) // the big one queues first
	chunked := request(kib, "10s")
	chunked.ContentLength = -1
	_, doneChunked := serve(h, chunked)
	_, doneLater := serve(h, request(kib, "10s"))
	notEntered(t, g, 200*time.Millisecond) // the later small one fits but queues behind the big one
	g.release <- struct{}{}
	<-doneSmall
	big := entered(t, g)
	assert.Equal(t, int64(10*kib), big.ContentLength)
	assert.Equal(t, float64(2*unit), value(inFlightBytes), "alone, holding the whole limit")
	notEntered(t, g, 100*time.Millisecond)
	g.release <- struct{}{}
	<-doneBig
	assert.Equal(t, int64(-1), entered(t, g).ContentLength, "of unknown length: alone, too")
	notEntered(t, g, 100*time.Millisecond)
	g.release <- struct{}{}
	<-doneChunked
	entered(t, g)
	close(g.release)
	<-doneLater
}

// The handler runs with the request's deadline: its timeout parameter
// less the margin, or the default without one.
func TestLimiterGivesTheHandlerItsDeadline(t *testing.T) {
	for _, tc := range []struct {
		timeout string
		want    time.Duration
	}{
		{"10s", 9 * time.Second},
		{"1s", 900 * time.Millisecond},
		{"30s", 29 * time.Second},
		{"", DefaultTimeout - time.Second},
		{"forever", DefaultTimeout - time.Second},
	} {
		var got time.Duration
		h := newLimiter(t, 2*unit).Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			dl, ok := r.Context().Deadline()
			require.True(t, ok)
			got = time.Until(dl)
		}))
		h.ServeHTTP(httptest.NewRecorder(), request(10, tc.timeout))
		assert.InDelta(t, tc.want.Seconds(), got.Seconds(), 0.05, "timeout %q", tc.timeout)
	}
}

// Expired answers a request whose deadline has passed with the same 429,
// counted under reason deadline; a request with time left is untouched.
func TestExpired(t *testing.T) {
	before := value(refusals.WithLabelValues(reasonDeadline))
	rec := httptest.NewRecorder()
	assert.False(t, Expired(rec, request(10, "")))
	assert.Equal(t, 0, rec.Body.Len())

	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	rec = httptest.NewRecorder()
	assert.True(t, Expired(rec, request(10, "").WithContext(ctx)))
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Contains(t, rec.Body.String(), "the request's deadline passed before it could be judged: context deadline exceeded")
	assert.Equal(t, before+1, value(refusals.WithLabelValues(reasonDeadline)))
}

// Many requests at once, more than the limit holds: every one is served,
// none is refused, and the weight in flight never exceeds the limit.
func TestLimiterUnderABurst(t *testing.T) {
	l := newLimiter(t, 4*unit)
	var (
		mu       sync.Mutex
		cur, top int64
	)
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := l.weight(r.ContentLength)
		mu.Lock()
		cur += n
		top = max(top, cur)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		cur -= n
		mu.Unlock()
	}))
	before := value(refusals.WithLabelValues(reasonCapacity))
	var wg sync.WaitGroup
	codes := make([]int, 64)
	for i := range codes {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, request((i%4)*kib/2, "10s"))
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		assert.Equal(t, http.StatusOK, c, "request %d", i)
	}
	assert.LessOrEqual(t, top, int64(4*unit))
	assert.Equal(t, before, value(refusals.WithLabelValues(reasonCapacity)))
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{MaxBytes: 1}, {MaxBytes: -1}, {DefaultTimeout: -time.Second}, {DefaultTimeout: 31 * time.Second}} {
		_, err := New(o)
		assert.Error(t, err, "%+v", o)
	}
	l, err := New(Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(DefaultMaxBytes), l.MaxBytes())
	assert.Equal(t, DefaultTimeout, l.DefaultTimeout())
}

// value reads a counter or gauge.
func value(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		panic(err)
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}
