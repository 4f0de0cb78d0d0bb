package inflight

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withDeadline is r with a deadline d from now, as the Limiter gives it.
func withDeadline(t *testing.T, r *http.Request, d time.Duration) *http.Request {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return r.WithContext(ctx)
}

// A request whose deadline leaves less than its work may take is refused
// at once, and counted: its work is never started.
func TestBeginRefusesWhatCannotBeDoneInTime(t *testing.T) {
	const size = 3 << 20 // may take WorkCost(size), 0.3 s
	before := value(refusals.WithLabelValues(reasonDeadline))
	rec := httptest.NewRecorder()
	start := time.Now()
	_, ok := Begin(rec, withDeadline(t, request(size, ""), WorkCost(size)/2), size)
	assert.False(t, ok)
	assert.Less(t, time.Since(start), WorkCost(size)/2, "refused at once, not at the deadline")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Contains(t, rec.Body.String(), "a body of 3145728 bytes may take to judge")
	assert.Equal(t, before+1, value(refusals.WithLabelValues(reasonDeadline)))

	rec = httptest.NewRecorder()
	done, ok := Begin(rec, withDeadline(t, request(size, ""), 2*WorkCost(size)), size)
	require.True(t, ok, "enough time left")
	done()
	assert.Equal(t, 0, rec.Body.Len())
}

// Large requests are worked on one a core: with every core taken, one waits
// until its deadline less its work, then is refused, before the deadline;
// a small one is not held up; a core given back is taken by the next.
func TestBeginTakesACore(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	var dones []func()
	for range n {
		done, ok := Begin(httptest.NewRecorder(), request(smallBody+1, ""), smallBody+1)
		require.True(t, ok)
		dones = append(dones, done)
	}
	const size = 1 << 20 // 0.1 s of work
	deadline := WorkCost(size) + 200*time.Millisecond
	rec := httptest.NewRecorder()
	start := time.Now()
	_, ok := Begin(rec, withDeadline(t, request(size, ""), deadline), size)
	waited := time.Since(start)
	assert.False(t, ok)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Contains(t, rec.Body.String(), "no core free in time")
	assert.GreaterOrEqual(t, waited, deadline-WorkCost(size)-10*time.Millisecond, "waited for a core")
	assert.Less(t, waited, deadline, "refused before the deadline")

	done, ok := Begin(httptest.NewRecorder(), withDeadline(t, request(smallBody, ""), time.Second), smallBody)
	require.True(t, ok, "a small request takes no core")
	done()

	got := make(chan bool)
	go func() {
		done, ok := Begin(httptest.NewRecorder(), withDeadline(t, request(size, ""), 5*time.Second), size)
		if ok {
			done()
		}
		got <- ok
	}()
	dones[0]()
	assert.True(t, <-got, "a core given back is taken")
	for _, done := range dones[1:] {
		done()
	}
}

// Late answers a request whose deadline passed while it was judged with the
// 429, so that no late verdict is written; one in time is untouched.
func TestLate(t *testing.T) {
	rec := httptest.NewRecorder()
	assert.False(t, Late(rec, withDeadline(t, request(10, ""), time.Second)))
	assert.Equal(t, 0, rec.Body.Len())
	before := value(refusals.WithLabelValues(reasonDeadline))
	assert.True(t, Late(rec, withDeadline(t, request(10, ""), -time.Second)))
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Contains(t, rec.Body.String(), "the request's deadline passed while it was judged")
	assert.Equal(t, before+1, value(refusals.WithLabelValues(reasonDeadline)))
}

// Work begun with Begin keeps the request's weight in the limit until it
// is done, even once its handler has returned (a verdict abandoned at the
// deadline still holds the memory it weighs).
func TestBeginKeepsTheWeight(t *testing.T) {
	var done func()
	h := newLimiter(t, limit).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ok bool
		done, ok = Begin(w, r, small)
		require.True(t, ok)
	}))
	before := value(inFlightBytes)
	h.ServeHTTP(httptest.NewRecorder(), request(small, "10s"))
	assert.Equal(t, before+float64(small+RequestOverhead), value(inFlightBytes), "held after the handler returned")
	done()
	assert.Equal(t, before, value(inFlightBytes), "given back once the work is done")
}
