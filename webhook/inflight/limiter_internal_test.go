package inflight

import (
	"context"
	"encoding/json"
	"io"
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

// Sizes of the tests: a limit of 4 MiB has a small lane of 512 KiB, which
// holds two small requests and not three, and a large lane of 3.5 MiB,
// which holds two big ones and not three.
const (
	limit = 4 << 20
	small = 240 << 10  // weighs 256 KiB
	big   = 1600 << 10 // weighs 1616 KiB
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

// queued waits until listenerset_webhook_requests_waited_total reaches
// want: it counts a request as it starts to wait for room, so that a
// request sent next queues behind it.
func queued(t *testing.T, want float64) {
	t.Helper()
	require.Eventually(t, func() bool { return value(waits) >= want }, 10*time.Second, time.Millisecond,
		"the request never started to wait")
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
	for name, size := range map[string]int{"large lane": big, "small lane": small} {
		t.Run(name, func(t *testing.T) {
			g := newGate()
			h := newLimiter(t, limit).Handler(g)
			waited := value(waits)
			_, done1 := serve(h, request(size, "10s"))
			_, done2 := serve(h, request(size, "10s"))
			entered(t, g)
			entered(t, g)
			assert.Equal(t, float64(2*(size+RequestOverhead)), value(inFlightBytes))
			rec3, done3 := serve(h, request(size, "10s"))
			notEntered(t, g, 200*time.Millisecond)
			assert.Equal(t, waited+1, value(waits), "the third request waits")

			g.release <- struct{}{} // one of the first two finishes
			entered(t, g)
			close(g.release)
			<-done3
			assert.Equal(t, http.StatusOK, rec3.Code)
			<-done1
			<-done2
			assert.Zero(t, value(inFlightBytes), "every weight is given back")
		})
	}
}

// Smaller bodies weigh less: beside one big request, two of half its size
// fit, and a third waits.
func TestLimiterWeighsByBodySize(t *testing.T) {
	g := newGate()
	defer close(g.release)
	h := newLimiter(t, limit).Handler(g)
	serve(h, request(big, "10s"))
	entered(t, g)
	serve(h, request(big/2, "10s"))
	serve(h, request(big/2, "10s"))
	entered(t, g)
	entered(t, g)
	serve(h, request(big/2, "10s"))
	notEntered(t, g, 200*time.Millisecond)
}

// Small requests have their own lane: with the large lane full and more
// large requests waiting, a small one is served at once.
func TestLimiterKeepsALaneForSmallRequests(t *testing.T) {
	g := newGate()
	defer close(g.release)
	h := newLimiter(t, limit).Handler(g)
	serve(h, request(big, "10s"))
	serve(h, request(big, "10s"))
	entered(t, g)
	entered(t, g)
	serve(h, request(big, "10s"))
	notEntered(t, g, 100*time.Millisecond)
	serve(h, request(smallBody, "10s"))
	assert.Equal(t, int64(smallBody), entered(t, g).ContentLength, "the small one, past the waiting large one")
	serve(h, request(smallBody+1, "10s"))
	notEntered(t, g, 100*time.Millisecond) // one byte more is large: it waits
}

// A request that finds no room before its deadline (its timeout less the
// margin) is answered 429 with a Status, not an AdmissionReview, and
// counted; the handler never sees it.
func TestLimiterRefusesAtTheDeadline(t *testing.T) {
	g := newGate()
	defer close(g.release)
	h := newLimiter(t, limit).Handler(g)
	serve(h, request(2*limit, "10s")) // over the limit: weighs all of the large lane
	entered(t, g)
	before := value(refusals.WithLabelValues(reasonCapacity))
	start := time.Now()
	rec, done := serve(h, request(big, "1s"))
	<-done
	waited := time.Since(start)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, before+1, value(refusals.WithLabelValues(reasonCapacity)))
	assert.GreaterOrEqual(t, waited, time.Second-margin(time.Second)-WorkCost(big), "waits until the deadline, less the time its work may take")
	assert.Less(t, waited, time.Second, "answers before kube-apiserver gives up")
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var status metav1.Status
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &status), rec.Body.String())
	assert.Equal(t, metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, status.TypeMeta)
	assert.Equal(t, metav1.StatusFailure, status.Status)
	assert.Equal(t, metav1.StatusReasonTooManyRequests, status.Reason)
	assert.Equal(t, int32(http.StatusTooManyRequests), status.Code)
	assert.Contains(t, status.Message, "no room for this request of 1638400 bytes in the webhook's limit of 4194304 bytes in flight within its 1s timeout")
	notEntered(t, g, 0)
}

// A body larger than the whole large lane (or of unknown length) weighs
// the whole lane: it is served alone, after what is in flight, and what
// comes after it waits for it (first come, first served), so it is never
// starved by a stream of smaller requests.
func TestLimiterServesAnOversizedRequestAlone(t *testing.T) {
	g := newGate()
	h := newLimiter(t, limit).Handler(g)
	_, doneFirst := serve(h, request(big, "10s"))
	entered(t, g)
	waited := value(waits)
	_, doneHuge := serve(h, request(2*limit, "10s"))
	queued(t, waited+1) // the huge one queues first
	chunked := request(big, "10s")
	chunked.ContentLength = -1
	_, doneChunked := serve(h, chunked)
	queued(t, waited+2)
	_, doneLater := serve(h, request(big, "10s"))
	notEntered(t, g, 200*time.Millisecond) // the later one fits but queues behind the huge one
	g.release <- struct{}{}
	<-doneFirst
	assert.Equal(t, int64(2*limit), entered(t, g).ContentLength)
	assert.Equal(t, float64(limit-limit/smallShare), value(inFlightBytes), "alone, holding the whole large lane")
	notEntered(t, g, 100*time.Millisecond)
	g.release <- struct{}{}
	<-doneHuge
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
		{"1s", 800 * time.Millisecond},
		{"3s", 2700 * time.Millisecond},
		{"30s", 29 * time.Second},
		{"", DefaultTimeout - time.Second},
		{"forever", DefaultTimeout - time.Second},
	} {
		var got time.Duration
		h := newLimiter(t, limit).Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
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
// none is refused, and neither lane ever holds more than its share.
func TestLimiterUnderABurst(t *testing.T) {
	l := newLimiter(t, limit)
	var (
		mu  sync.Mutex
		cur = map[*lane]int64{}
		top = map[*lane]int64{}
	)
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ln, n := l.place(r.ContentLength)
		mu.Lock()
		cur[ln] += n
		top[ln] = max(top[ln], cur[ln])
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		cur[ln] -= n
		mu.Unlock()
	}))
	before := value(refusals.WithLabelValues(reasonCapacity))
	var wg sync.WaitGroup
	codes := make([]int, 96)
	sizes := []int{0, small, smallBody, big / 2, big}
	for i := range codes {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, request(sizes[i%len(sizes)], "10s"))
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		assert.Equal(t, http.StatusOK, c, "request %d", i)
	}
	assert.LessOrEqual(t, top[&l.small], l.small.size)
	assert.LessOrEqual(t, top[&l.large], l.large.size)
	assert.Positive(t, top[&l.small])
	assert.Positive(t, top[&l.large])
	assert.Equal(t, before, value(refusals.WithLabelValues(reasonCapacity)))
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{MaxBytes: 1}, {MaxBytes: MinMaxBytes - 1}, {MaxBytes: -1}, {DefaultTimeout: -time.Second}, {DefaultTimeout: 31 * time.Second}} {
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

// A sender still writing a large body reads the 429 rather than a broken
// pipe (the refused body is drained first), and its connection serves the
// next request.
func TestLimiterRefusalReachesALargeSender(t *testing.T) {
	g := newGate()
	srv := httptest.NewServer(newLimiter(t, limit).Handler(g))
	defer srv.Close()
	_, done := serve(srv.Config.Handler, request(2*limit, "10s")) // holds the large lane
	entered(t, g)
	body := strings.Repeat(" ", big) // more than socket buffers take
	for range 3 {
		resp, err := srv.Client().Post(srv.URL+"/validate?timeout=1s", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.False(t, resp.Close, "the body was drained: the connection stays")
	}
	close(g.release)
	<-done
	resp, err := srv.Client().Post(srv.URL+"/validate?timeout=1s", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the limit serves again")
}

// A body still arriving at the request's deadline ends there: the 429 is
// written before kube-apiserver stops waiting, not once the sender is done.
func TestLimiterEndsABodyThatArrivesLate(t *testing.T) {
	srv := httptest.NewServer(newLimiter(t, limit).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			if !BodyLate(w, r, err) {
				t.Errorf("reading the body: %v", err)
			}
			return
		}
		w.WriteHeader(http.StatusOK)
	})))
	defer srv.Close()
	before := value(refusals.WithLabelValues(reasonDeadline))
	body, sender := io.Pipe()
	defer sender.Close()
	go func() { _, _ = sender.Write([]byte(strings.Repeat(" ", small/2))) }() // half, then nothing
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/validate?timeout=1s", body)
	require.NoError(t, err)
	req.ContentLength = small
	// Without the read deadline the handler would wait for the rest of
	// the body as long as the client waits for the answer.
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	require.NoError(t, err, "the server answered before the client gave up")
	defer resp.Body.Close()
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, before+1, value(refusals.WithLabelValues(reasonDeadline)))
}
