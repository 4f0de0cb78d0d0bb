package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
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
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// TestMixVerdicts: every request of the mix gets the verdict the tool
// expects, from our handlers in process, and the floor allows them all.
func TestMixVerdicts(t *testing.T) {
	ours := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: ours}))
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

// TestFloorDecodes: the floor decodes the review's object as a ListenerSet
// (it does not only allow): an object that is not one is answered 400.
func TestFloorDecodes(t *testing.T) {
	mux := http.NewServeMux()
	floor.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}))
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE",` +
		`"object":{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","spec":"not an object"}}}`
	for _, path := range []string{admission.MutatePath, admission.ValidatePath} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		mux.ServeHTTP(rec, req)
		var answer struct {
			Response struct {
				Allowed bool `json:"allowed"`
				Status  struct {
					Code int `json:"code"`
				} `json:"status"`
			} `json:"response"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s: HTTP %d: %v: %s", path, rec.Code, err, rec.Body)
		}
		if answer.Response.Allowed || answer.Response.Status.Code != http.StatusBadRequest {
			t.Errorf("%s: allowed=%v code=%d, want a denial with 400: %s", path, answer.Response.Allowed, answer.Response.Status.Code, rec.Body)
		}
	}
}

// TestFloorServer runs the floor's server (what bin/listenerset-webhook-floor
// runs) in process and uses it as the load tool does: /readyz on the health
// address, the mix over HTTPS with the certificate from the cert dir, the
// request counters from /metrics. It offers only HTTP/1.1, and stops on
// cancel.
func TestFloorServer(t *testing.T) {
	cert, err := localcluster.NewServingCert(t.TempDir(), "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	ports, err := testproc.NewPorts()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- floor.Run(ctx, floor.Options{
			Host: "127.0.0.1", Port: ports.Webhook, CertDir: cert.Dir, HealthProbeBindAddress: ports.HealthAddr(), MetricsBindAddress: ports.MetricsAddr(),
		})
	}()
	if err := testproc.WaitReady(ctx, ports.ReadyzURL(), 20*time.Second, testproc.Returned(done)); err != nil {
		t.Fatalf("floor.Run: %v", err)
	}
	if resp, err := http.Get("http://" + ports.HealthAddr() + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	baseURL := "https://" + ports.Addr()

	res := drive(ctx, baseURL, cert.CAPEM, 2, 0, 300*time.Millisecond, mix(), false)
	if res.Requests == 0 || res.Errors > 0 {
		t.Fatalf("%d requests, %d errors, first: %s", res.Requests, res.Errors, res.FirstError)
	}
	mutate, validate, err := (&server{ports: ports}).calls()
	if err != nil {
		t.Fatal(err)
	}
	if mutate == 0 || validate == 0 || mutate+validate < float64(res.Requests) {
		t.Errorf("/metrics counts %v mutate and %v validate calls, want both > 0 and at least the %d requests sent", mutate, validate, res.Requests)
	}

	// kube-apiserver offers h2 and http/1.1; the floor must pick HTTP/1.1.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cert.CAPEM)
	h2 := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}, ForceAttemptHTTP2: true}
	defer h2.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, baseURL+admission.ValidatePath, bytes.NewReader(mix()[0].body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: h2}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 1 || resp.TLS.NegotiatedProtocol == "h2" {
		t.Errorf("protocol %s (ALPN %q), want HTTP/1.1: HTTP/2 must be off", resp.Proto, resp.TLS.NegotiatedProtocol)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("floor.Run after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("floor.Run did not return within 20s of cancel")
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
