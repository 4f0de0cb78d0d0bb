package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// request is one AdmissionReview the tool posts, with what ours must answer.
type request struct {
	name    string
	path    string
	body    []byte
	allowed bool // ours' verdict; the floor allows everything
	weight  int  // in the mix, out of the sum of all weights
}

// mix is the traffic: what kube-apiserver sends for creates and updates of
// ListenerSets, to both webhooks (each write calls both). Objects arrive
// defaulted by the CRD, as they do from kube-apiserver. One in five writes
// is rejected (a mistake in a TLS option, or many), one in five is an
// update, a few are large, and a few arrive undefaulted (an older CRD) so
// that the mutating webhook answers with a patch.
func mix() []request {
	two := func() *gwv1.ListenerSet { return fixtures.Defaulted(fixtures.TwoListeners()) }
	edited := two()
	edited.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("www.shop.example.com")
	badCipher := fixtures.Defaulted(fixtures.BadCipher())
	badCipherLabelled := badCipher.DeepCopy()
	badCipherLabelled.Labels = map[string]string{"team": "shop"}

	type write struct {
		name     string
		op       admissionv1.Operation
		obj, old *gwv1.ListenerSet
		allowed  bool
		weight   int
	}
	writes := []write{
		{"create two-listeners", admissionv1.Create, two(), nil, true, 40},
		{"update two-listeners", admissionv1.Update, edited, two(), true, 15},
		{"create reference-example", admissionv1.Create, fixtures.Defaulted(fixtures.ReferenceExample()), nil, true, 10},
		{"create sixty-four-tls", admissionv1.Create, fixtures.Defaulted(fixtures.SixtyFour()), nil, true, 2},
		{"create undefaulted two-listeners", admissionv1.Create, fixtures.TwoListeners(), nil, true, 3},
		{"create bad-cipher (invalid)", admissionv1.Create, badCipher, nil, false, 15},
		{"create many-errors (invalid)", admissionv1.Create, fixtures.Defaulted(fixtures.ManyErrors()), nil, false, 10},
		{"update bad-cipher, unchanged (ratcheted)", admissionv1.Update, badCipherLabelled, badCipher, true, 5},
	}
	var reqs []request
	for i, w := range writes {
		body := fixtures.Review(fmt.Sprintf("00000000-0000-0000-0000-%012d", i), w.op, w.obj, w.old)
		reqs = append(reqs,
			request{name: "mutate " + w.name, path: admission.MutatePath, body: body, allowed: true, weight: w.weight},
			request{name: "validate " + w.name, path: admission.ValidatePath, body: body, allowed: w.allowed, weight: w.weight})
	}
	return reqs
}

// schedule spreads the mix over a fixed sequence, so every run and every
// server gets the same requests in the same order.
func schedule(reqs []request) []int {
	var seq []int
	for i, r := range reqs {
		for range r.weight {
			seq = append(seq, i)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	return seq
}

// loadResult is one run of one server at one concurrency.
type loadResult struct {
	Server      string  `json:"server"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	RPS         float64 `json:"requestsPerSecond"`
	P50Ms       float64 `json:"p50Ms"`
	P90Ms       float64 `json:"p90Ms"`
	P99Ms       float64 `json:"p99Ms"`
	MaxMs       float64 `json:"maxMs"`
	Errors      int     `json:"errors"`
	FirstError  string  `json:"firstError,omitempty"`
	// ServerCPUPerRequestUs is the server process's CPU time (user and
	// system) per answered request, warm-up included: the least noisy
	// figure on a shared machine.
	ServerCPUPerRequestUs float64 `json:"serverCpuPerRequestUs"`
	IdleRSSMiB            float64 `json:"idleRssMiB"`
	PeakRSSMiB            float64 `json:"peakRssMiB"`
	Runs                  int     `json:"runs"`
	latencies             []time.Duration
	elapsed               time.Duration
	allRequests           int
	serverCPU             time.Duration
}

// drive posts the mix to baseURL from concurrency clients, each with its own
// keep-alive connection, for warmup (not counted) and then duration.
// checkVerdict compares each answer with ours' expected verdict; without
// it every request must be allowed (the floor).
func drive(ctx context.Context, baseURL string, caPEM []byte, concurrency int, warmup, duration time.Duration, reqs []request, checkVerdict bool) loadResult {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: concurrency,
		MaxConnsPerHost:     concurrency,
		IdleConnTimeout:     time.Minute,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	seq := schedule(reqs)

	start := time.Now()
	measureFrom, end := start.Add(warmup), start.Add(warmup+duration)
	type worker struct {
		latencies []time.Duration
		all       int
		errors    int
		firstErr  string
	}
	workers := make([]worker, concurrency)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			me := &workers[w]
			me.latencies = make([]time.Duration, 0, 1<<16)
			var answer struct {
				Response struct {
					Allowed bool `json:"allowed"`
				} `json:"response"`
			}
			for i := w * len(seq) / concurrency; ctx.Err() == nil; i++ {
				r := &reqs[seq[i%len(seq)]]
				t0 := time.Now()
				if t0.After(end) {
					return
				}
				err := func() error {
					req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+r.path, bytes.NewReader(r.body))
					if err != nil {
						return err
					}
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						return err
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil {
						return err
					}
					if resp.StatusCode != http.StatusOK {
						return fmt.Errorf("%s: HTTP %d", r.name, resp.StatusCode)
					}
					// Both servers' answers are decoded, so the client's
					// work (which shares the 2 cores) is the same for both.
					answer.Response.Allowed = false
					if err := json.Unmarshal(body, &answer); err != nil {
						return fmt.Errorf("%s: %w", r.name, err)
					}
					if want := r.allowed || !checkVerdict; answer.Response.Allowed != want {
						return fmt.Errorf("%s: allowed=%v, want %v", r.name, answer.Response.Allowed, want)
					}
					return nil
				}()
				me.all++
				if t0.Before(measureFrom) {
					continue
				}
				me.latencies = append(me.latencies, time.Since(t0))
				if err != nil {
					if me.errors == 0 {
						me.firstErr = err.Error()
					}
					me.errors++
				}
			}
		}()
	}
	wg.Wait()
	res := loadResult{Concurrency: concurrency, elapsed: time.Since(measureFrom), Runs: 1}
	for _, w := range workers {
		res.latencies = append(res.latencies, w.latencies...)
		res.allRequests += w.all
		res.Errors += w.errors
		if res.FirstError == "" {
			res.FirstError = w.firstErr
		}
	}
	res.finish()
	return res
}

// merge adds another run of the same server and concurrency.
func (r *loadResult) merge(o loadResult) {
	r.latencies = append(r.latencies, o.latencies...)
	r.elapsed += o.elapsed
	r.allRequests += o.allRequests
	r.serverCPU += o.serverCPU
	r.Errors += o.Errors
	if r.FirstError == "" {
		r.FirstError = o.FirstError
	}
	r.IdleRSSMiB = max(r.IdleRSSMiB, o.IdleRSSMiB)
	r.PeakRSSMiB = max(r.PeakRSSMiB, o.PeakRSSMiB)
	r.Runs += o.Runs
	r.finish()
}

func (r *loadResult) finish() {
	slices.Sort(r.latencies)
	r.Requests = len(r.latencies)
	r.Seconds = r.elapsed.Seconds()
	if r.Seconds > 0 {
		r.RPS = float64(r.Requests) / r.Seconds
	}
	if r.allRequests > 0 {
		r.ServerCPUPerRequestUs = float64(r.serverCPU.Microseconds()) / float64(r.allRequests)
	}
	r.P50Ms, r.P90Ms, r.P99Ms = ms(percentile(r.latencies, 50)), ms(percentile(r.latencies, 90)), ms(percentile(r.latencies, 99))
	if len(r.latencies) > 0 {
		r.MaxMs = ms(r.latencies[len(r.latencies)-1])
	}
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
