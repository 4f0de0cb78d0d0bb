package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// The burst figure (-burst N): N of the costliest worst objects at once to
// the validating webhook, each with kube-apiserver's ?timeout=1s, and a
// usual request sent meanwhile, against one fresh server. A request's
// deadline bounds its work: each worst request must be answered within its
// second (judged, 200, or refused for the time it would take, 429, which
// kube-apiserver's failurePolicy decides), and the usual one answered.
var (
	burstN       = flag.Int("burst", 0, "burst figure: send this many worst objects at once with ?timeout=1s, and a usual request meanwhile (0 skips it; the only figure then)")
	burstTimeout = flag.Duration("burst-timeout", time.Second, "burst figure: the timeout parameter of each worst request")
	burstRuns    = flag.Int("burst-runs", 1, "burst figure: how many bursts, each against a fresh server; the target holds only when it holds in every one")
)

// burstShapes are the costliest worst objects to judge
// (docs/performance.md): the longest selector and the largest valid object.
var burstShapes = []string{"longest-selector", "largest-valid"}

func runBurst(ctx context.Context, o options) (int, error) {
	root, abs, err := repoPaths()
	if err != nil {
		return 0, err
	}
	o.oursBin, o.outDir = abs(o.oursBin), abs(o.outDir)
	if o.build {
		say("burst: building %s", testproc.WebhookPackage)
		if err := testproc.Build(ctx, o.oursBin, testproc.WebhookPackage, "-trimpath"); err != nil {
			return 0, err
		}
	}
	var bodies [][]byte
	for k := range *burstN {
		s := shapeNamed(burstShapes[k%len(burstShapes)])
		bodies = append(bodies, fixtures.Review(fmt.Sprintf("burst-%d", k), admissionv1.Create, fixtures.Defaulted(s.Build(validation.MaxListeners)), nil))
	}
	cert, err := localcluster.NewServingCert(filepath.Join(o.outDir, "certs"), "127.0.0.1", "localhost")
	if err != nil {
		return 0, err
	}
	missed := 0
	for run := range max(*burstRuns, 1) {
		met, err := burstOnce(ctx, o, root, cert, bodies, filepath.Join(o.outDir, fmt.Sprintf("burst-%d.log", run+1)))
		if err != nil {
			return 0, err
		}
		if !met {
			missed++
		}
	}
	if missed > 0 {
		fmt.Printf("target missed in %d of %d bursts: every worst request answered before its timeout, and the usual request answered\n", missed, max(*burstRuns, 1))
		return 1, nil
	}
	fmt.Printf("target met in each of %d bursts: every worst request answered before its timeout, and the usual request answered\n", max(*burstRuns, 1))
	return 0, nil
}

// burstOnce sends one burst of bodies to a fresh server logging to logPath,
// prints its figures, and says whether every answer came in time.
func burstOnce(ctx context.Context, o options, root string, cert *localcluster.ServingCert, bodies [][]byte, logPath string) (bool, error) {
	usual := mix()[0]
	srv, err := startServer(ctx, "ours", o.oursBin, append([]string{"serve"}, testproc.ServeFlags()...), cert.Dir, logPath)
	if err != nil {
		return false, err
	}
	defer srv.stop()
	m := describeMachine(root)
	say("burst: commit %s, load average %s: %d worst requests (%v, %d-%d bytes) with ?timeout=%v at once, a usual request 50 ms later",
		m.Commit, m.LoadAvgStart, *burstN, burstShapes, len(bodies[0]), len(bodies[len(bodies)-1]), *burstTimeout)

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cert.CAPEM)
	client := func() *http.Client {
		return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}}
	}
	type answer struct {
		code int
		took time.Duration
		err  error
	}
	post := func(c *http.Client, path string, body []byte) answer {
		start := time.Now()
		resp, err := c.Post(srv.baseURL()+path, "application/json", bytes.NewReader(body))
		if err != nil {
			return answer{err: err, took: time.Since(start)}
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return answer{code: resp.StatusCode, took: time.Since(start), err: err}
	}
	// warm the connections, so that the burst times the work, not TLS handshakes
	clients := make([]*http.Client, len(bodies))
	for k := range clients {
		clients[k] = client()
		if a := post(clients[k], usual.path, usual.body); a.err != nil || a.code != http.StatusOK {
			return false, fmt.Errorf("burst: warming up: status %d, %v", a.code, a.err)
		}
	}
	answers := make([]answer, len(bodies))
	var wg sync.WaitGroup
	start := time.Now()
	for k := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[k] = post(clients[k], admission.ValidatePath+"?timeout="+burstTimeout.String(), bodies[k])
		}()
	}
	time.Sleep(50 * time.Millisecond)
	usualAnswer := post(client(), usual.path, usual.body)
	wg.Wait()
	all := time.Since(start)

	judged, refused, late, failed := 0, 0, 0, 0
	var slowest time.Duration
	var lateCodes []string
	for _, a := range answers {
		slowest = max(slowest, a.took)
		switch {
		case a.err != nil:
			failed++
		case a.took >= *burstTimeout:
			late++
			lateCodes = append(lateCodes, fmt.Sprintf("%d in %v", a.code, a.took.Round(time.Millisecond)))
		case a.code == http.StatusOK:
			judged++
		case a.code == http.StatusTooManyRequests:
			refused++
		default:
			failed++
		}
	}
	fmt.Printf("burst: %d worst requests with ?timeout=%v: %d judged (200), %d refused in time (429), %d answered after the timeout %v, %d failed; slowest answer %v, all in %v\n",
		len(answers), *burstTimeout, judged, refused, late, lateCodes, failed, slowest.Round(time.Millisecond), all.Round(time.Millisecond))
	fmt.Printf("burst: a usual request meanwhile (%s): status %d in %v (%v)\n", usual.name, usualAnswer.code, usualAnswer.took.Round(time.Millisecond), usualAnswer.err)
	fmt.Printf("load average: %s at start, %s at end (2 cores: above 2, other work competed)\n", m.LoadAvgStart, loadAvg())
	return late == 0 && failed == 0 && usualAnswer.err == nil && usualAnswer.code == http.StatusOK, nil
}

// shapeNamed is the worst shape of that name.
func shapeNamed(name string) validationtest.Shape {
	for _, s := range validationtest.WorstShapes {
		if s.Name == name {
			return s
		}
	}
	panic("no worst shape " + name)
}
