package reliability

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
)

// Sizes of TestInFlightLimitUnderLargeRequests.
const (
	// inflightBody is the size of each large review: a ListenerSet of
	// about 1 MiB, three times as many bytes as kube-apiserver's own 3 MiB
	// request limit leaves room for.
	inflightBody = 1 << 20
	// inflightSenders send large reviews at once, each again as soon as it
	// has its answer: more than the default limit holds (24 of them fit),
	// so that some always wait.
	inflightSenders = 40
	inflightLoad    = 8 * time.Second
	// inflightMemoryLimit is the chart's default resources.limits.memory,
	// and the GOMEMLIMIT the chart derives from it (95.4%).
	inflightMemoryLimit = 256 << 20
	inflightGoMemLimit  = 256 * 1000 * 1000
)

// TestInFlightLimitUnderLargeRequests: the server, with
// the chart's default in-flight limit and GOMEMLIMIT, is flooded with large
// valid reviews to both webhooks, more at once than the limit holds, while
// a normal review is sent every 100ms. Every normal review is answered
// (allowed) meanwhile; every large one is answered too, allowed or, when it
// found no room within its timeout, 429 (never a denial), and
// listenerset_webhook_requests_refused_total counts exactly the 429s. The
// limit is really filled (requests waited) and never exceeded, and the
// peak RSS stays under the chart's memory limit. The figures are logged.
func TestInFlightLimitUnderLargeRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := webhookBinary(t)
	t.Setenv("GOMEMLIMIT", strconv.Itoa(inflightGoMemLimit)) // inherited by the server, as the chart sets it
	s := hostileStart(t, bin)
	large := largeReview(t, inflightBody)
	normal := reviewMix()[1] // validate two-listeners
	require.Equal(t, admission.ValidatePath, normal.path)
	idle := procMemory(t, s.Pid())

	var (
		stop          = make(chan struct{})
		wg            sync.WaitGroup
		served, shed  atomic.Int64
		bad           tally
		normalLatency []time.Duration
		normalBad     tally
		maxInFlight   float64
	)
	for i := range inflightSenders {
		wg.Go(func() {
			c := s.client(true)
			path := []string{admission.ValidatePath, admission.MutatePath}[i%2]
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, err := postReview(c, s.addr, path+"?timeout=10s", large)
				switch {
				case err != nil:
					bad.record(err)
				case status == http.StatusOK:
					served.Add(1)
				case status == http.StatusTooManyRequests:
					shed.Add(1)
				default:
					bad.record(fmt.Errorf("large review: HTTP %d", status))
				}
			}
		})
	}
	// The normal reviews, and the gauge, sampled while the load runs.
	c := s.client(true)
	deadline := time.Now().Add(inflightLoad)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		_, err := send(c, s.addr, review{name: normal.name, path: normal.path + "?timeout=10s", uid: normal.uid, body: normal.body, allowed: true}, nil)
		normalLatency = append(normalLatency, time.Since(start))
		normalBad.record(err)
		maxInFlight = max(maxInFlight, s.samples(t)["listenerset_webhook_in_flight_bytes"])
	}
	close(stop)
	wg.Wait()
	peak := procMemory(t, s.Pid())
	m := s.samples(t)

	require.Zero(t, normalBad.failed.Load(), "normal reviews failed during the load:\n%s", normalBad.String())
	require.Zero(t, bad.failed.Load(), "large reviews got neither an answer nor a 429:\n%s", bad.String())
	assert.Equal(t, float64(shed.Load()), m[`listenerset_webhook_requests_refused_total{reason="capacity"}`], "every 429 is counted")
	assert.Positive(t, m["listenerset_webhook_requests_waited_total"], "the limit was full: requests waited")
	assert.LessOrEqual(t, maxInFlight, float64(inflight.DefaultMaxBytes))
	assert.Equal(t, float64(inflight.DefaultMaxBytes), m["listenerset_webhook_in_flight_limit_bytes"])
	assert.Less(t, peak.hwm, int64(inflightMemoryLimit), "peak RSS under the chart's memory limit")

	slices.Sort(normalLatency)
	t.Logf("limit %d MiB, %d senders of %d KiB reviews for %v: %d answered, %d refused (429), %.0f waited; "+
		"peak in flight %.1f MiB; RSS idle %.1f MiB, peak %.1f MiB (VmHWM); normal review (%d): p50 %v, p90 %v, max %v",
		inflight.DefaultMaxBytes>>20, inflightSenders, len(large)>>10, inflightLoad, served.Load(), shed.Load(),
		m["listenerset_webhook_requests_waited_total"], maxInFlight/(1<<20),
		float64(idle.rss)/(1<<20), float64(peak.hwm)/(1<<20), len(normalLatency),
		normalLatency[len(normalLatency)/2].Round(time.Millisecond), normalLatency[len(normalLatency)*9/10].Round(time.Millisecond),
		normalLatency[len(normalLatency)-1].Round(time.Millisecond))
}

// largeReview is a CREATE review of a valid ListenerSet of about size bytes:
// 64 HTTPS listeners at the CRD's limits of names and route kinds, with
// options of another domain (which our rules do not judge) to make up the
// size. It must be valid, so that its cost is that of an object admitted.
func largeReview(t *testing.T, size int) []byte {
	t.Helper()
	ls := fixtures.Defaulted(fixtures.Largest())
	perOption := size / (validation.MaxListeners * validation.MaxOptions)
	for i := range ls.Spec.Listeners {
		tls := ls.Spec.Listeners[i].TLS
		tls.CertificateRefs = tls.CertificateRefs[:1]
		opts := map[gwv1.AnnotationKey]gwv1.AnnotationValue{}
		for j := range validation.MaxOptions {
			opts[gwv1.AnnotationKey(fmt.Sprintf("example.com/option-%02d", j))] = gwv1.AnnotationValue(strings.Repeat("x", perOption))
		}
		tls.Options = opts
	}
	errs, _ := validation.Validate(ls, nil, validation.Options{})
	require.Empty(t, errs, "the large object must be valid")
	return fixtures.Review("00000000-0000-0000-0000-00000000large", admissionv1.Create, ls, nil)
}

// postReview posts body and reads the answer to its end, returning the
// status (200 means an allowed review).
func postReview(c *http.Client, addr, path string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, "https://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var answer bytes.Buffer
	if _, err := answer.ReadFrom(resp.Body); err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusOK && !bytes.Contains(answer.Bytes(), []byte(`"allowed":true`)) {
		return 0, fmt.Errorf("large review not allowed: %.300s", answer.Bytes())
	}
	return resp.StatusCode, nil
}

// memory is a process's resident memory now and at its peak.
type memory struct{ rss, hwm int64 }

// procMemory reads a process's memory from /proc/<pid>/status.
func procMemory(t *testing.T, pid int) memory {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var m memory
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			m.rss = kb << 10
		case "VmHWM":
			m.hwm = kb << 10
		}
	}
	return m
}
