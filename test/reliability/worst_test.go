package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
)

// Bounds for one request of a worst object (the figures are
// in docs/performance.md; the time is printed, not asserted).
const (
	// maxWorstResponse is the largest answer a worst object may get.
	maxWorstResponse = 64 << 10
	// maxWorstRSSGrowth is how far one worst request may raise the
	// server's peak RSS over the idle process.
	maxWorstRSSGrowth = 48 << 20
)

// awaitInFlight waits until the server handles a request (its in-flight
// gauge is above 0 once a request's headers are read and its handler runs),
// and fails when none is within timeout.
func awaitInFlight(t *testing.T, s *hostileServer, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); s.samples(t)[inflight.InFlightBytesMetric] <= 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no request in flight (%s above 0) within %v: the usual request would not be sent meanwhile", inflight.InFlightBytesMetric, timeout)
		}
	}
}

// worstReview is the AdmissionReview kube-apiserver sends for a worst
// shape at 64 listeners: a create, or an update of its stored object.
func worstReview(s validationtest.Shape, uid string) []byte {
	ls := fixtures.Defaulted(s.Build(validation.MaxListeners))
	if s.Update == nil {
		return fixtures.Review(uid, admissionv1.Create, ls, nil)
	}
	return fixtures.Review(uid, admissionv1.Update, ls, fixtures.Defaulted(s.Update(validation.MaxListeners)))
}

// TestWorstObjectsThroughTheServer sends every worst object the CRD admits
// (validationtest.WorstShapes) through the server binary to both webhooks,
// one at a time, each shape to a server of its own: each is answered with an AdmissionReview of at most
// maxWorstResponse bytes, a denial with at most a report's errors, and
// raises the server's peak RSS by at most maxWorstRSSGrowth; the server
// then still answers a usual request. Then all of them at once, as many
// as the server takes in parallel, with a usual request sent meanwhile:
// the peak RSS stays under the chart's memory limit, and the usual request
// is answered.
func TestWorstObjectsThroughTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server binary and sends it objects of megabytes")
	}
	bin := webhookBinary(t)
	usual := reviewMix()[1] // validate two-listeners

	// One request's growth: a server of its own for each shape, so that
	// what an earlier request left on the heap does not count.
	for i, shape := range append(validationtest.WorstShapes[:len(validationtest.WorstShapes):len(validationtest.WorstShapes)], validationtest.TextShapes...) {
		body := worstReview(shape, fmt.Sprintf("worst-%d", i))
		t.Run(shape.Name, func(t *testing.T) {
			s := hostileStart(t, bin)
			c := s.client(true)
			// idle connections would hold the drain at the end
			defer c.CloseIdleConnections()
			if _, err := send(c, s.addr, usual, nil); err != nil {
				t.Fatal(err)
			}
			idle := procMemory(t, s.Pid()).hwm
			for _, path := range []string{admission.MutatePath, admission.ValidatePath} {
				start := time.Now()
				resp, size := reviewAnswer(t, c, s.addr, path, body)
				elapsed := time.Since(start)
				peak := procMemory(t, s.Pid()).hwm
				causes := 0
				if resp.Result != nil && resp.Result.Details != nil {
					causes = len(resp.Result.Details.Causes)
				}
				t.Logf("RESULT worst: %s %s: request %d bytes, answered in %v, allowed=%v, %d causes, %d warnings, response %d bytes, peak RSS %.1f MiB (+%.1f over the idle %.1f)",
					shape.Name, hostileShortPath(path), len(body), elapsed.Round(time.Millisecond), resp.Allowed, causes, len(resp.Warnings), size,
					hostileMiB(float64(peak)), hostileMiB(float64(peak-idle)), hostileMiB(float64(idle)))
				assert.LessOrEqual(t, size, maxWorstResponse, "%s: response size", path)
				assert.LessOrEqual(t, causes, findings.MaxErrors+1, "%s: causes", path)
				assert.LessOrEqual(t, peak-idle, int64(maxWorstRSSGrowth), "%s: peak RSS growth over the idle server", path)
				if path == admission.MutatePath {
					assert.True(t, resp.Allowed, "the mutating webhook allows")
				}
				if _, err := send(c, s.addr, usual, nil); err != nil {
					t.Errorf("the usual request after it: %v", err)
				}
			}
		})
	}

	t.Run("all-at-once", func(t *testing.T) {
		s := hostileStart(t, bin)
		limit := chartMemoryLimit(t)
		var wg sync.WaitGroup
		// three of each, about 39 MB, more than the default in-flight limit
		// (24 MiB): some wait, or get the limiter's 429
		const copies = 3
		errs := make(chan error, copies*len(validationtest.WorstShapes)+1)
		start := time.Now()
		for k := range copies {
			for i, shape := range validationtest.WorstShapes {
				body := worstReview(shape, fmt.Sprintf("worst-%d-%d", k, i))
				wg.Add(1)
				go func() {
					defer wg.Done()
					cc := s.client(false)
					if code, err := postStatus(cc, s.addr, admission.ValidatePath, body); err != nil {
						errs <- fmt.Errorf("%s: %w", shape.Name, err)
					} else if code != http.StatusOK && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
						errs <- fmt.Errorf("%s: status %d", shape.Name, code)
					}
				}()
			}
		}
		// a usual request while they are in flight
		awaitInFlight(t, s, 30*time.Second)
		usualStart := time.Now()
		if _, err := send(s.client(false), s.addr, usual, nil); err != nil {
			errs <- fmt.Errorf("the usual request meanwhile: %w", err)
		}
		usualTook := time.Since(usualStart)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		peak := procMemory(t, s.Pid()).hwm
		t.Logf("RESULT worst: %d worst requests at once: done in %v; a usual request meanwhile answered in %v; peak RSS %.1f MiB (chart limit %.0f MiB)",
			copies*len(validationtest.WorstShapes), time.Since(start).Round(time.Millisecond), usualTook.Round(time.Millisecond),
			hostileMiB(float64(peak)), hostileMiB(float64(limit)))
		assert.Less(t, peak, limit, "peak RSS over the chart's memory limit")
	})
}

// TestWorstBurstWithinItsDeadline sends a burst of the costliest worst
// objects at once, each with kube-apiserver's ?timeout=1s, and a usual
// request meanwhile: each worst one is answered, judged (200) or refused
// for the time it would take (429, which failurePolicy decides), and the
// usual request is answered. The times are printed (RESULT lines), not
// asserted: the load tool's -burst figure holds them to the timeout.
func TestWorstBurstWithinItsDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server binary and sends it objects of megabytes")
	}
	const burst = 16
	s := hostileStart(t, webhookBinary(t))
	shapes := []validationtest.Shape{validationtest.WorstShapes[3], validationtest.WorstShapes[6]} // longest-selector, largest-valid
	type result struct {
		shape string
		code  int
		took  time.Duration
		err   error
	}
	results := make(chan result, burst)
	bodies := make([][]byte, burst)
	for k := range burst {
		bodies[k] = worstReview(shapes[k%len(shapes)], fmt.Sprintf("burst-%d", k))
	}
	var ready, wg sync.WaitGroup
	ready.Add(1)
	for k := range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(false)
			ready.Wait()
			start := time.Now()
			code, err := postStatus(c, s.addr, admission.ValidatePath+"?timeout=1s", bodies[k])
			results <- result{shapes[k%len(shapes)].Name, code, time.Since(start), err}
		}()
	}
	start := time.Now()
	ready.Done()
	awaitInFlight(t, s, 30*time.Second)
	usualStart := time.Now()
	_, usualErr := send(s.client(false), s.addr, reviewMix()[1], nil)
	usualTook := time.Since(usualStart)
	wg.Wait()
	close(results)
	judged, refused := 0, 0
	var slowest time.Duration
	for r := range results {
		switch {
		case r.err != nil:
			t.Errorf("%s: %v", r.shape, r.err)
		case r.code == http.StatusOK:
			judged++
		case r.code == http.StatusTooManyRequests:
			refused++
		default:
			t.Errorf("%s: status %d", r.shape, r.code)
		}
		slowest = max(slowest, r.took)
	}
	assert.NoError(t, usualErr, "the usual request meanwhile")
	t.Logf("RESULT burst: %d worst requests (%s, %s) with ?timeout=1s at once: %d judged, %d refused (429), slowest answer %v, all in %v; a usual request meanwhile answered in %v",
		burst, shapes[0].Name, shapes[1].Name, judged, refused, slowest.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), usualTook.Round(time.Millisecond))
}

// reviewAnswer posts body to path and decodes the answer, with its size.
func reviewAnswer(t *testing.T, c *http.Client, addr, path string, body []byte) (*admissionv1.AdmissionResponse, int) {
	t.Helper()
	resp, err := c.Post("https://"+addr+path, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%.300s", data)
	var review admissionv1.AdmissionReview
	require.NoError(t, json.Unmarshal(data, &review))
	require.NotNil(t, review.Response)
	return review.Response, len(data)
}

// postStatus posts body to path and returns the HTTP status.
func postStatus(c *http.Client, addr, path string, body []byte) (int, error) {
	resp, err := c.Post("https://"+addr+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// chartMemoryLimit is the chart's default memory limit
// (resources.limits.memory in values.yaml), in bytes.
func chartMemoryLimit(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("../../charts/listenerset-webhook/values.yaml")
	require.NoError(t, err)
	var values struct {
		Resources struct {
			Limits map[string]string `json:"limits"`
		} `json:"resources"`
	}
	require.NoError(t, yaml.Unmarshal(data, &values))
	q, err := resource.ParseQuantity(values.Resources.Limits["memory"])
	require.NoError(t, err)
	return q.Value()
}
