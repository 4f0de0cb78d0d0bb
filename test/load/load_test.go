package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/airlock/listenerset-webhook/test/load/floor"
	"github.com/airlock/listenerset-webhook/webhook"
)

// TestMixVerdicts: every request of the mix gets the verdict the tool
// expects, from our handlers in process, and the floor allows them all.
func TestMixVerdicts(t *testing.T) {
	ours := http.NewServeMux()
	webhook.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: ours}))
	floorMux := http.NewServeMux()
	floor.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: floorMux}))
	invalid := 0
	for _, r := range mix() {
		for name, mux := range map[string]*http.ServeMux{"ours": ours, "floor": floorMux} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, r.path, bytes.NewReader(r.body))
			req.Header.Set("Content-Type", "application/json")
			mux.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s, %s: HTTP %d", name, r.name, rec.Code)
			}
			var answer struct {
				Response struct {
					Allowed bool `json:"allowed"`
				} `json:"response"`
			}
			body, _ := io.ReadAll(rec.Body)
			if err := json.Unmarshal(body, &answer); err != nil {
				t.Fatal(err)
			}
			if want := r.allowed || name == "floor"; answer.Response.Allowed != want {
				t.Errorf("%s, %s: allowed=%v, want %v: %s", name, r.name, answer.Response.Allowed, want, body)
			}
		}
		if !r.allowed {
			invalid += r.weight
		}
	}
	if invalid == 0 {
		t.Error("the mix has no invalid requests")
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 90: 90 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond} {
		if got := percentile(d, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("empty")
	}
}

func TestLatencySVGIsWellFormed(t *testing.T) {
	var results []loadResult
	for i, c := range []int{1, 8, 32} {
		for _, s := range []string{"ours", "floor"} {
			results = append(results, loadResult{Server: s, Concurrency: c, P50Ms: float64(i + 1), P90Ms: float64(2*i + 2), P99Ms: float64(3*i + 3)})
		}
	}
	svg := latencySVG(results, []int{1, 8, 32}, "a <title> & more")
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, svg)
		}
	}
	if n := strings.Count(svg, "<polyline"); n != 6 {
		t.Errorf("%d lines, want 6 (p50, p90, p99 of two servers)", n)
	}
}
