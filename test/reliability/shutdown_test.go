package reliability

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testpki"
	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// TestShutdownUnderLoad: two instances share the load the
// way a Service spreads it: the test's client polls each /readyz every
// 100ms, as a readiness probe feeding the endpoints would, and sends only to
// instances that were ready at the last poll. SIGTERM to A mid-load, with
// slow requests to A in flight. A's /readyz must fail before A stops
// accepting connections, every request (in flight on A or not) must succeed,
// and A must exit 0 within its shutdown delay and timeout.
func TestShutdownUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	const (
		delay        = 2 * time.Second
		drainTimeout = 10 * time.Second
		exitMargin   = 5 * time.Second
		workers      = 8
		pollEvery    = 100 * time.Millisecond
	)
	bin := webhookBinary(t)
	ca := testpki.NewCA(t)
	certDir := t.TempDir()
	leaf := ca.Issue(t, loopbackHosts)
	require.NoError(t, os.WriteFile(filepath.Join(certDir, certs.CertFile), leaf.CertPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(certDir, certs.KeyFile), leaf.KeyPEM, 0o600))
	args := []string{"--shutdown-delay=" + delay.String(), "--shutdown-timeout=" + drainTimeout.String()}
	procs := []*webhookProc{
		startWebhookProc(t, bin, "A", certDir, args...),
		startWebhookProc(t, bin, "B", certDir, args...),
	}
	a := procs[0]
	mix := reviewMix()

	var (
		ready         [2]atomic.Bool
		sent          [2]atomic.Int64 // per instance
		sentToBAfter  atomic.Int64    // to B after SIGTERM to A
		sigterm       atomic.Bool
		load          tally
		stop          = make(chan struct{})
		wg            sync.WaitGroup
		readyFailedAt time.Time // A's first failed poll, written by the poller only
		refusedAt     time.Time // A's first refused connection, written by the prober only
	)
	for i := range ready {
		ready[i].Store(true)
	}

	// The endpoints: readiness as last polled.
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for i, p := range procs {
				ok := p.ready(500 * time.Millisecond)
				ready[i].Store(ok)
				if i == 0 && !ok && sigterm.Load() && readyFailedAt.IsZero() {
					readyFailedAt = time.Now()
				}
			}
		}
	}()
	// When does A stop accepting connections? A TLS handshake every 20ms
	// (a bare TCP connect would fill A's log with handshake errors).
	wg.Add(1)
	go func() {
		defer wg.Done()
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"}}
		for refusedAt.IsZero() {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			conn, err := d.Dial("tcp", a.addr)
			if err == nil {
				conn.Close()
			} else if isRefused(err) {
				refusedAt = time.Now()
			}
		}
	}()
	// kube-apiserver: keep-alive connections, requests to ready instances.
	var next atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := tlsClient(ca.Pool(), true)
			defer client.CloseIdleConnections()
			for n := w; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				i := int(next.Add(1) % 2)
				if !ready[i].Load() {
					i = 1 - i
				}
				if !ready[i].Load() {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				after := sigterm.Load()
				_, err := send(client, procs[i].addr, mix[n%len(mix)], nil)
				load.record(err)
				sent[i].Add(1)
				if i == 1 && after {
					sentToBAfter.Add(1)
				}
			}
		}()
	}

	const settled = 50 // requests each instance answers before SIGTERM, and B after A's exit
	waitUntil(t, 30*time.Second, "both instances serve the load", func() bool {
		return sent[0].Load() >= settled && sent[1].Load() >= settled
	})
	// Slow requests to A, their bodies still arriving when SIGTERM comes:
	// two finish during the delay, two only during the drain.
	slowDurations := []time.Duration{time.Second, time.Second, delay + time.Second, delay + time.Second}
	slowErrs := make([]error, len(slowDurations))
	slowBodies := make([]*slowReader, len(slowDurations))
	var slowWG sync.WaitGroup
	for k, d := range slowDurations {
		rv := mix[k%len(mix)]
		slowBodies[k] = newSlowReader(rv.body, d, 10)
		slowWG.Add(1)
		go func() {
			defer slowWG.Done()
			_, slowErrs[k] = send(tlsClient(ca.Pool(), false), a.addr, rv, slowBodies[k])
		}()
	}
	waitUntil(t, 10*time.Second, "the slow requests' bodies are on their way", func() bool {
		for _, b := range slowBodies {
			if !b.midway() {
				return false
			}
		}
		return true
	})
	beforeA := sent[0].Load()
	sigtermAt := time.Now()
	sigterm.Store(true)
	require.NoError(t, a.Signal(syscall.SIGTERM))

	a.Wait(delay + drainTimeout + exitMargin)
	code := a.ExitCode()
	exitAfter := a.ExitedAt().Sub(sigtermAt)
	slowWG.Wait()
	toB := sentToBAfter.Load()
	waitUntil(t, 30*time.Second, "B alone serves the load", func() bool { return sentToBAfter.Load() >= toB+settled })
	close(stop)
	wg.Wait()

	require.NotEqual(t, -1, code, "A did not exit within %s", delay+drainTimeout+exitMargin)
	assert.Equal(t, 0, code, "A exits 0")
	assert.GreaterOrEqual(t, exitAfter, delay, "A served through its shutdown delay")
	for k, err := range slowErrs {
		assert.NoError(t, err, "slow request %d (body over %s) to A, in flight at SIGTERM", k, slowDurations[k])
	}
	require.False(t, readyFailedAt.IsZero(), "A's /readyz never failed")
	require.False(t, refusedAt.IsZero(), "A never refused a connection")
	// That it fails at once is TestRunShutdownPhases' (in-process); here,
	// through a poll on a busy machine, it must fail within the delay, which
	// is what lets the endpoints drop A before its listener closes.
	assert.Less(t, readyFailedAt.Sub(sigtermAt), delay, "/readyz fails within the shutdown delay")
	assert.True(t, readyFailedAt.Before(refusedAt), "/readyz failed (%s) before A stopped accepting (%s)",
		readyFailedAt.Sub(sigtermAt), refusedAt.Sub(sigtermAt))
	assert.Zero(t, load.failed.Load(), "failed requests:\n%s", load.String())
	assert.Positive(t, sentToBAfter.Load(), "B took the load")
	assert.Positive(t, beforeA, "A had its share before SIGTERM")
	log := a.Log()
	for _, phase := range []string{"Shutdown requested", "Draining", "Drained", "Stopped"} {
		assert.Contains(t, log, phase)
	}
	assert.NotContains(t, log, "Drain incomplete")
	assert.False(t, strings.Contains(log, `"level":"error"`), "A logged an error:\n%s", log)

	t.Logf("RESULT shutdown: %d requests (%d clients, keep-alive) + %d slow ones to A in flight at SIGTERM; "+
		"to A %d, to B %d (%d after SIGTERM); failed %d; slow failed %d; "+
		"A /readyz failed %s after SIGTERM, stopped accepting %s after, exited %d %s after (delay %s, timeout %s)",
		load.total.Load(), workers, len(slowDurations), sent[0].Load(), sent[1].Load(), sentToBAfter.Load(),
		load.failed.Load(), countErrs(slowErrs),
		readyFailedAt.Sub(sigtermAt).Round(time.Millisecond), refusedAt.Sub(sigtermAt).Round(time.Millisecond),
		code, exitAfter.Round(time.Millisecond), delay, drainTimeout)
}

func countErrs(errs []error) int {
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	return n
}
