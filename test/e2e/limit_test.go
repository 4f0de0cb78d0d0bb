package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
)

// TestFullLimitIsAFailedCall: when the webhook's in-flight limit has no
// room for kube-apiserver's call within the call's timeout (its ?timeout=,
// timeoutSeconds 10), the webhook answers 429, which kube-apiserver treats
// as a failed call, so that failurePolicy decides: with Fail the write is
// rejected with "failed calling webhook" and the reason, with Ignore it is
// admitted; and once there is room again the write is judged as usual. The small requests'
// share of the default limit (3 MiB) is held by connections that announce
// a 256 KiB body and never send it, each with the longest timeout
// kube-apiserver could send (30s), so that its read is cut (and its room
// given back) only after the test.
func TestFullLimitIsAFailedCall(t *testing.T) {
	requireCluster(t)
	const name = "e2e-limit-full"
	cleanupLS(t, name)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(endpoint.CABundle)
	// Bodies of 256 KiB, and one that takes what they leave, fill the
	// share exactly: kube-apiserver's review finds no room, and no waiter
	// ahead of it whose refusal would make room.
	share := inflight.DefaultMaxBytes / 8
	weight := 256<<10 + inflight.RequestOverhead
	bodies := make([]int, share/weight, share/weight+1)
	for i := range bodies {
		bodies[i] = 256 << 10
	}
	if rest := share % weight; rest > inflight.RequestOverhead {
		bodies = append(bodies, rest-inflight.RequestOverhead)
	}
	var conns []*tls.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	addr := strings.TrimPrefix(endpoint.BaseURL, "https://")
	for _, body := range bodies {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST %s?timeout=%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{",
			admission.ValidatePath, inflight.MaxTimeout, body)
	}
	before := refusals(t)
	start := time.Now()
	r := mustReject(t, listenerSet(name, httpListener("web", 8080)), []string{
		`failed calling webhook "` + localcluster.ValidatingWebhookName + `"`,
		"no room for this request of",
	})
	took := time.Since(start)
	t.Logf("create with the limit full, after %v, kubectl printed:\n%s", took.Round(time.Millisecond), r.Stderr)
	if took < 8*time.Second {
		t.Errorf("refused after %v: the call should have waited for room until its deadline (10s less 1s)", took)
	}
	if got := refusals(t); got != before+1 {
		t.Errorf("%s: %v, want %v", inflight.RefusalsMetric, got, before+1)
	}
	mustNotExist(t, name)

	// The same with failurePolicy Ignore: kube-apiserver admits the write
	// (a review that denied would have blocked it under either policy).
	setValidatingFailurePolicy(t, "Ignore")
	t.Cleanup(func() { setValidatingFailurePolicy(t, "Fail") })
	// kube-apiserver reads webhook configurations through an informer:
	// server-side dry runs with a short timeout (each a call the full limit
	// refuses) until one is admitted, which only Ignore does.
	probes := 0
	for deadline := time.Now().Add(time.Minute); ; {
		probes++
		if apply(t, listenerSet(name, httpListener("web", 8080)), "--dry-run=server", "--request-timeout=3s").Err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("failurePolicy Ignore not in effect after %d dry runs", probes)
		}
	}
	t.Logf("failurePolicy Ignore in effect at dry run %d", probes)
	mustApply(t, listenerSet(name, httpListener("web", 8080)))
	if got, want := refusals(t), before+1+float64(probes)+1; got != want {
		t.Errorf("%s: %v, want %v (%d dry runs)", inflight.RefusalsMetric, got, want, probes)
	}
	setValidatingFailurePolicy(t, "Fail")
	deleteLS(t, name)

	for _, c := range conns {
		c.Close()
	}
	conns = nil
	mustApply(t, listenerSet(name, httpListener("web", 8080)))
}

// setValidatingFailurePolicy patches the validating webhook's failurePolicy.
func setValidatingFailurePolicy(t *testing.T, policy string) {
	t.Helper()
	patch := `[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"` + policy + `"}]`
	if r := kubectl(t, "", "patch", "validatingwebhookconfiguration", localcluster.ValidatingConfigName, "--type=json", "-p", patch); r.Err != nil {
		t.Fatalf("setting failurePolicy %s: %v\n%s", policy, r.Err, r.Output())
	}
}

// refusals is the webhook's count of 429s for want of room.
func refusals(t *testing.T) float64 {
	t.Helper()
	return seriesValue(t, inflight.RefusalsMetric+`{reason="capacity"}`)
}
