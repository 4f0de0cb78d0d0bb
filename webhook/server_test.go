package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/airlock/listenerset-webhook/test/testpki"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

// running is a Run in the background on loopback ports.
type running struct {
	opts    webhook.Options
	addr    string // host:port of the webhook
	health  string // http://host:port
	metrics string
	logs    *logLines
	done    chan error
	cancel  context.CancelFunc
}

// logLines collects what Run logs, one entry per line.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, prefix+" "+args)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func start(t *testing.T, opts webhook.Options) *running {
	t.Helper()
	// The ports were free a moment ago: another process (go test runs
	// packages in parallel) may take one before Run binds it. That is the
	// test's race, not the server's, so it picks new ports, twice at most.
	for attempt := 1; ; attempt++ {
		r, err := launch(t, opts)
		if err == nil {
			t.Cleanup(func() { r.stop(t) })
			return r
		}
		r.cancel()
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			require.NoError(t, err, "Run")
		}
		t.Logf("attempt %d: %v; again on other ports", attempt, err)
	}
}

// launch runs webhook.Run with opts on new ports and waits until it is
// ready: the TLS listener serves (/readyz dials it).
func launch(t *testing.T, opts webhook.Options) (*running, error) {
	t.Helper()
	ports, err := testproc.NewPorts()
	require.NoError(t, err)
	opts.Server.Host = "127.0.0.1"
	opts.Server.Port = ports.Webhook
	if opts.Certs.Dir == "" {
		opts.Certs.Dir = filepath.Join(t.TempDir(), "certs")
	}
	opts.Server.HealthProbeBindAddress = ports.HealthAddr()
	opts.Server.MetricsBindAddress = ports.MetricsAddr()
	logs := &logLines{}
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), funcr.New(logs.add, funcr.Options{})))
	r := &running{
		opts:    opts,
		addr:    ports.Addr(),
		health:  "http://" + opts.Server.HealthProbeBindAddress,
		metrics: "http://" + opts.Server.MetricsBindAddress,
		logs:    logs,
		done:    make(chan error, 1),
		cancel:  cancel,
	}
	go func() { r.done <- webhook.Run(ctx, opts) }()
	return r, testproc.WaitReady(t.Context(), ports.ReadyzURL(), 20*time.Second, testproc.Returned(r.done))
}

// stop cancels Run and expects a clean return.
func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		assert.NoError(t, err, "Run returns nil after ctx is cancelled")
	case <-time.After(70 * time.Second):
		t.Error("Run did not return after cancel")
	}
}

func caPool(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	ca, err := os.ReadFile(filepath.Join(dir, certs.CAFile))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(ca))
	return pool
}

// dial opens a TLS connection that verifies the server against ca.crt.
func dial(r *running, cfg *tls.Config) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return tls.DialWithDialer(d, "tcp", r.addr, cfg)
}

func TestRunServesAdmissionOverTLS(t *testing.T) {
	r := start(t, webhook.Options{})
	pool := caPool(t, r.opts.Certs.Dir)

	t.Run("self-signed certificate generated for loopback", func(t *testing.T) {
		for _, f := range []string{certs.CertFile, certs.KeyFile, certs.CAFile} {
			assert.FileExists(t, filepath.Join(r.opts.Certs.Dir, f))
		}
		info, err := os.Stat(filepath.Join(r.opts.Certs.Dir, certs.KeyFile))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the key is private")
		for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
			conn, err := dial(r, &tls.Config{RootCAs: pool, ServerName: name})
			if assert.NoError(t, err, "certificate valid for %s", name) {
				conn.Close()
			}
		}
	})

	t.Run("health", func(t *testing.T) {
		for _, path := range []string{"/healthz", "/readyz", "/readyz/webhook"} {
			resp, err := http.Get(r.health + path)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		}
	})

	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: true, // offer h2: the server must still pick HTTP/1.1
	}}
	defer client.CloseIdleConnections()

	t.Run("AdmissionReview over HTTPS", func(t *testing.T) {
		url := "https://" + r.addr
		resp := reviewtest.Post(t, client, url+admission.MutatePath, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil))
		assert.True(t, resp.Allowed)
		assert.NotEmpty(t, resp.Patch)

		resp = reviewtest.Post(t, client, url+admission.ValidatePath, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Invalid), nil))
		assert.False(t, resp.Allowed)
		assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
	})

	t.Run("HTTP/2 is not negotiated by default", func(t *testing.T) {
		conn, err := dial(r, &tls.Config{RootCAs: pool, NextProtos: []string{"h2", "http/1.1"}})
		require.NoError(t, err)
		defer conn.Close()
		assert.Equal(t, "http/1.1", conn.ConnectionState().NegotiatedProtocol)

		resp, err := client.Get("https://" + r.addr + "/nothing-here")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 1, resp.ProtoMajor)
	})

	t.Run("TLS 1.1 is refused", func(t *testing.T) {
		conn, err := dial(r, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11})
		if err == nil {
			conn.Close()
		}
		assert.ErrorContains(t, err, "protocol version not supported", "refused by the server, not by the client")
	})

	t.Run("TLS 1.2 is accepted", func(t *testing.T) {
		conn, err := dial(r, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12})
		require.NoError(t, err)
		conn.Close()
	})

	t.Run("metrics", func(t *testing.T) {
		resp, err := http.Get(r.metrics + "/metrics")
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		text := string(body)
		assert.Contains(t, text, `controller_runtime_webhook_requests_total{code="200",webhook="`+admission.ValidatePath+`"}`)
		assert.Contains(t, text, `controller_runtime_webhook_requests_total{code="200",webhook="`+admission.MutatePath+`"}`)
		assert.Contains(t, text, "controller_runtime_webhook_latency_seconds")
		assert.Contains(t, text, "go_goroutines")
		got := reviewtest.Denials(t, strings.NewReader(text))
		assert.GreaterOrEqual(t, got["spec.listeners[*].name FieldValueDuplicate"], 1.0, "%v", got)
	})
}

func TestRunReloadsCertificate(t *testing.T) {
	r := start(t, webhook.Options{})
	first := servedCert(t, r, caPool(t, r.opts.Certs.Dir))

	// A renewed certificate, as a Secret update or cert-manager writes it.
	next := filepath.Join(t.TempDir(), "next")
	_, err := certs.EnsureSelfSignedCert(next, "localhost", "127.0.0.1")
	require.NoError(t, err)
	for _, f := range []string{certs.KeyFile, certs.CertFile} {
		data, err := os.ReadFile(filepath.Join(next, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(r.opts.Certs.Dir, f), data, 0o600))
	}
	nextPool := caPool(t, next)

	// certwatcher reacts to the file events, and re-reads every 10s anyway.
	require.Eventually(t, func() bool {
		conn, err := dial(r, &tls.Config{RootCAs: nextPool, ServerName: "127.0.0.1"})
		if err != nil {
			return false
		}
		defer conn.Close()
		return !bytes.Equal(conn.ConnectionState().PeerCertificates[0].Raw, first.Raw)
	}, 25*time.Second, 100*time.Millisecond, "new connections never saw the new certificate")
}

func servedCert(t *testing.T, r *running, pool *x509.CertPool) *x509.Certificate {
	t.Helper()
	conn, err := dial(r, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// The served certificate's validity is in the certificate gauges, which the
// chart's ListenerSetWebhookCertificateNotRenewed alert reads: after a
// renewal, the new certificate's.
func TestRunExposesTheServedCertificatesValidity(t *testing.T) {
	r := start(t, webhook.Options{})
	pool := caPool(t, r.opts.Certs.Dir)
	first := servedCert(t, r, pool)
	assert.Equal(t, float64(first.NotBefore.Unix()), gauge(certs.NotBeforeMetric, "serving"))
	assert.Equal(t, float64(first.NotAfter.Unix()), gauge(certs.NotAfterMetric, "serving"))

	// A renewed certificate, signed by the same CA, one hour shorter.
	ca := testpki.NewCA(t)
	leaf := ca.Issue(t, []string{"127.0.0.1"}, testpki.Valid(time.Now().Add(-time.Minute), time.Hour))
	require.NoError(t, os.WriteFile(filepath.Join(r.opts.Certs.Dir, certs.KeyFile), leaf.KeyPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(r.opts.Certs.Dir, certs.CertFile), leaf.CertPEM, 0o600))
	pool.AddCert(ca.Cert)
	require.Eventually(t, func() bool { return servedCert(t, r, pool).NotAfter.Unix() == leaf.Cert.NotAfter.Unix() },
		20*time.Second, 100*time.Millisecond, "the renewed certificate is served")
	assert.Equal(t, float64(leaf.Cert.NotAfter.Unix()), gauge(certs.NotAfterMetric, "serving"))
}

func TestRunTLS13AndHTTP2(t *testing.T) {
	r := start(t, webhook.Options{Server: serving.Options{TLSMinVersion: "1.3", EnableHTTP2: true}})
	pool := caPool(t, r.opts.Certs.Dir)

	_, err := dial(r, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12})
	assert.ErrorContains(t, err, "protocol version not supported", "TLS 1.2 refused with a 1.3 minimum")

	conn, err := dial(r, &tls.Config{RootCAs: pool, NextProtos: []string{"h2", "http/1.1"}})
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, uint16(tls.VersionTLS13), conn.ConnectionState().Version)
	assert.Equal(t, "h2", conn.ConnectionState().NegotiatedProtocol, "HTTP/2 on request")

	// And the server speaks it, not only ALPN.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	resp := reviewtest.Post(t, client, "https://"+r.addr+admission.ValidatePath, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil))
	assert.True(t, resp.Allowed)
	raw, err := client.Get("https://" + r.addr + "/nothing-here")
	require.NoError(t, err)
	raw.Body.Close()
	assert.Equal(t, 2, raw.ProtoMajor)
}

func TestRunKeepsProvidedCertificate(t *testing.T) {
	dir := t.TempDir()
	// Someone else's certificate (here: one made beforehand, for another name).
	_, err := certs.EnsureSelfSignedCert(dir, "provided.example", "127.0.0.1")
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(dir, certs.CertFile))
	require.NoError(t, err)

	r := start(t, webhook.Options{Certs: certs.Options{Dir: dir}})

	after, err := os.ReadFile(filepath.Join(dir, certs.CertFile))
	require.NoError(t, err)
	assert.Equal(t, before, after, "a present certificate is never replaced")
	assert.Equal(t, []string{"provided.example"}, servedCert(t, r, caPool(t, dir)).DNSNames)
}

func TestRunRejectsBadOptions(t *testing.T) {
	for name, opts := range map[string]webhook.Options{
		"TLS 1.1":  {Server: serving.Options{TLSMinVersion: "1.1"}, Certs: certs.Options{Dir: t.TempDir()}},
		"TLS junk": {Server: serving.Options{TLSMinVersion: "tls1.2"}, Certs: certs.Options{Dir: t.TempDir()}},
		"port":     {Server: serving.Options{Port: 70000}, Certs: certs.Options{Dir: t.TempDir()}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Error(t, webhook.Run(t.Context(), opts))
		})
	}
	t.Run("taken health port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		port, err := testproc.FreePort()
		require.NoError(t, err)
		err = webhook.Run(t.Context(), webhook.Options{
			Server: serving.Options{Host: "127.0.0.1", Port: port, HealthProbeBindAddress: l.Addr().String()},
			Certs:  certs.Options{Dir: t.TempDir()},
		})
		assert.ErrorContains(t, err, "health probes")
	})
}

func TestEnsureSelfSignedCert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")

	generated, err := certs.EnsureSelfSignedCert(dir)
	require.NoError(t, err)
	assert.True(t, generated)
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())

	crtPEM, err := os.ReadFile(filepath.Join(dir, certs.CertFile))
	require.NoError(t, err)
	caPEM, err := os.ReadFile(filepath.Join(dir, certs.CAFile))
	require.NoError(t, err)
	assert.Equal(t, crtPEM, caPEM, "self-signed: the certificate is its own CA bundle")
	block, _ := pem.Decode(crtPEM)
	require.NotNil(t, block)
	crt, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	assert.Equal(t, []string{"localhost"}, crt.DNSNames)
	require.Len(t, crt.IPAddresses, 2)
	assert.Equal(t, "127.0.0.1", crt.IPAddresses[0].String())
	assert.Equal(t, "::1", crt.IPAddresses[1].String())
	assert.Contains(t, crt.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	_, err = tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFile), filepath.Join(dir, certs.KeyFile))
	require.NoError(t, err, "certificate and key match")

	generated, err = certs.EnsureSelfSignedCert(dir)
	require.NoError(t, err)
	assert.False(t, generated, "second call keeps what is there")
	again, err := os.ReadFile(filepath.Join(dir, certs.CertFile))
	require.NoError(t, err)
	assert.Equal(t, crtPEM, again)

	require.NoError(t, os.Remove(filepath.Join(dir, certs.KeyFile)))
	_, err = certs.EnsureSelfSignedCert(dir)
	assert.ErrorContains(t, err, "exists but", "half a certificate is an error, not replaced")
}

// TLS 1.2 is offered with ECDHE key exchange and AEAD ciphers only: Go's
// defaults would also accept the CBC-SHA1 suites. Each refused suite is
// first shown to work against a server that offers it, so the refusal is
// the webhook's and not the client's. Both key types, since the ECDHE_RSA
// and TLS_RSA suites need an RSA certificate.
func TestRunTLS12CipherSuites(t *testing.T) {
	for _, keyType := range []string{"ECDSA", "RSA"} {
		t.Run(keyType, func(t *testing.T) {
			dir := t.TempDir()
			if keyType == "RSA" {
				writeRSACert(t, dir)
			}
			r := start(t, webhook.Options{Certs: certs.Options{Dir: dir}})
			pool := caPool(t, dir)
			cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFile), filepath.Join(dir, certs.KeyFile))
			require.NoError(t, err)
			control := permissiveTLSServer(t, cert)

			suites := map[string][]uint16{
				"ECDSA": {
					tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
					tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
					tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
					tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
				},
				"RSA": {
					tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
					tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
					tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
					tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
					tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
				},
			}[keyType]
			for _, suite := range suites {
				name := tls.CipherSuiteName(suite)
				aead := strings.HasPrefix(name, "TLS_ECDHE_") && (strings.Contains(name, "_GCM_") || strings.Contains(name, "CHACHA20"))
				t.Run(name, func(t *testing.T) {
					cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{suite}}
					if !aead {
						c, err := tls.Dial("tcp", control, cfg)
						require.NoError(t, err, "the client can negotiate %s at all", name)
						c.Close()
					}
					conn, err := dial(r, cfg)
					if aead {
						require.NoError(t, err)
						assert.Equal(t, suite, conn.ConnectionState().CipherSuite)
						conn.Close()
						return
					}
					if err == nil {
						conn.Close()
					}
					assert.ErrorContains(t, err, "handshake failure", "refused by the server")
				})
			}
		})
	}
}

// permissiveTLSServer completes TLS 1.2 handshakes with any suite Go knows,
// as a control for TestRunTLS12CipherSuites; it returns its address.
func permissiveTLSServer(t *testing.T, cert tls.Certificate) string {
	t.Helper()
	var all []uint16
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		all = append(all, s.ID)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{cert}, CipherSuites: all, MaxVersion: tls.VersionTLS12,
	})
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// writeRSACert writes a serving certificate for 127.0.0.1 with an RSA key,
// issued by a CA with an RSA key, as tls.crt, tls.key and ca.crt.
func writeRSACert(t *testing.T, dir string) {
	t.Helper()
	ca := testpki.NewCA(t, testpki.RSA())
	leaf := ca.Issue(t, []string{"127.0.0.1"}, testpki.RSA())
	require.NoError(t, os.WriteFile(filepath.Join(dir, certs.CertFile), leaf.CertPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, certs.KeyFile), leaf.KeyPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, certs.CAFile), ca.CertPEM, 0o600))
}

// Plain HTTP to the TLS port gets net/http's own 400, and a failed handshake
// is logged through the logger, not the process's stderr.
func TestRunPlainHTTPAndHandshakeErrors(t *testing.T) {
	r := start(t, webhook.Options{})
	resp, err := http.Post("http://"+r.addr+admission.ValidatePath, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(body), "Client sent an HTTP request to an HTTPS server")

	_, err = dial(r, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11})
	require.Error(t, err)
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Contains(c, r.logs.String(), "TLS handshake error")
	}, 5*time.Second, 20*time.Millisecond)
}

// rawRequest starts a POST of body to path on a new TLS connection, writing
// the headers and the first n bytes of the body only.
func rawRequest(t *testing.T, r *running, path string, body []byte, n int) *tls.Conn {
	t.Helper()
	conn, err := dial(r, &tls.Config{InsecureSkipVerify: true})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, len(body))
	require.NoError(t, err)
	_, err = conn.Write(body[:n])
	require.NoError(t, err)
	return conn
}

// awaitInFlight waits until the server has taken a request in: its headers
// read and its handler running, its weight in the in-flight gauge (the
// in-process server registers it in controller-runtime's registry; no
// other request is in flight in these tests).
func awaitInFlight(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { return gauge(inflight.InFlightBytesMetric, "") > 0 },
		10*time.Second, 5*time.Millisecond, "the server never took the request in")
}

// gauge reads the in-process server's gauge name from controller-runtime's
// registry: its series whose first label has the value label, or its only
// series when label is ""; 0 when there is none.
func gauge(name, label string) float64 {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		return 0
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if label == "" || len(m.GetLabel()) > 0 && m.GetLabel()[0].GetValue() == label {
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

// RequestTimeout is the server's ReadTimeout: a body that stalls is cut off
// (no goroutine waits for it forever), but it is per request, so a kept-alive
// connection outlives it.
func TestRunRequestTimeout(t *testing.T) {
	// Long enough for a request on a busy shared machine.
	r := start(t, webhook.Options{Server: serving.Options{RequestTimeout: time.Second}})
	body := reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil)

	t.Run("a stalled body is cut off", func(t *testing.T) {
		conn := rawRequest(t, r, admission.ValidatePath, body, 1)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		began := time.Now()
		_, err := io.ReadAll(conn)
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			t.Fatal("the server kept the connection open for 5s")
		}
		assert.Less(t, time.Since(began), 3*time.Second)
	})

	t.Run("per request", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool(t, r.opts.Certs.Dir)}}}
		defer client.CloseIdleConnections()
		var reused []bool
		var first time.Time
		for range 2 {
			trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
			req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace),
				http.MethodPost, "https://"+r.addr+admission.ValidatePath, bytes.NewReader(body))
			require.NoError(t, err)
			if first.IsZero() {
				first = time.Now()
			}
			resp, err := client.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			// until the first request's read deadline, counted from its
			// start, has passed
			time.Sleep(time.Until(first.Add(r.opts.Server.RequestTimeout + 100*time.Millisecond)))
		}
		assert.Equal(t, []bool{false, true}, reused, "the second request used the same connection")
	})
}

// The phases of a shutdown: /readyz fails at once while /healthz and the
// webhook keep serving for ShutdownDelay; then no new connections, while a
// request in flight completes and the health server still answers; then
// Run returns nil and everything is closed.
func TestRunShutdownPhases(t *testing.T) {
	const delay = 2 * time.Second
	r := start(t, webhook.Options{Server: serving.Options{ShutdownDelay: delay, ShutdownTimeout: 10 * time.Second}})
	pool := caPool(t, r.opts.Certs.Dir)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	body := reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil)
	status := func(url string) int {
		resp, err := http.Get(url)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	slow := rawRequest(t, r, admission.ValidatePath, body, len(body)/2)
	awaitInFlight(t)
	began := time.Now()
	r.cancel()
	r.cancel = nil // stop() must not wait for done again

	assert.Eventually(t, func() bool { return status(r.health+"/readyz") == http.StatusServiceUnavailable },
		time.Second, 10*time.Millisecond, "not ready at once")
	assert.Equal(t, http.StatusOK, status(r.health+"/healthz"), "still alive")
	assert.True(t, reviewtest.Post(t, client, "https://"+r.addr+admission.ValidatePath, body).Allowed, "still serving during the delay")
	client.CloseIdleConnections()

	assert.Eventually(t, func() bool {
		conn, err := dial(r, &tls.Config{RootCAs: pool})
		if err == nil {
			conn.Close()
		}
		return err != nil
	}, delay+5*time.Second, 20*time.Millisecond, "no new connections after the delay")
	assert.GreaterOrEqual(t, time.Since(began), delay, "not before the delay")
	assert.Equal(t, http.StatusOK, status(r.health+"/healthz"), "the health server answers while draining")
	select {
	case err := <-r.done:
		t.Fatalf("Run returned with a request in flight: %v", err)
	default:
	}

	_, err := slow.Write(body[len(body)/2:])
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	require.NoError(t, err)
	var review admissionv1.AdmissionReview
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&review))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the request in flight completed")
	assert.True(t, review.Response.Allowed)
	require.NoError(t, slow.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = slow.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "and its connection is closed after it")

	select {
	case err := <-r.done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the drain")
	}
	assert.Zero(t, status(r.health+"/healthz"), "the health server stopped after the drain")
	logs := r.logs.String()
	for _, phase := range []string{"Shutdown requested", "Draining", "Drained", "Stopping the certificate source", "Stopped"} {
		assert.Contains(t, logs, phase)
	}
}

// A request still in flight after ShutdownTimeout is cut off; Run returns
// nil all the same, in time.
func TestRunShutdownTimeout(t *testing.T) {
	r := start(t, webhook.Options{Server: serving.Options{ShutdownTimeout: 300 * time.Millisecond}})
	body := reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil)
	stuck := rawRequest(t, r, admission.ValidatePath, body, 1)
	awaitInFlight(t)
	began := time.Now()
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	assert.Less(t, time.Since(began), 3*time.Second)
	require.NoError(t, stuck.SetReadDeadline(time.Now().Add(2*time.Second)))
	_, err := io.ReadAll(stuck)
	var netErr net.Error
	assert.False(t, errors.As(err, &netErr) && netErr.Timeout(), "the stuck connection was closed: %v", err)
	assert.Contains(t, r.logs.String(), "Drain incomplete")
}

// TestRunRefusesClusterFlagsWithoutClusterChecks: --strict and
// --watch-secrets alone would silently do nothing.
func TestRunRefusesClusterFlagsWithoutClusterChecks(t *testing.T) {
	for _, opts := range []clusterview.Options{{Strict: true}, {WatchSecrets: true}} {
		err := webhook.Run(t.Context(), webhook.Options{Server: serving.Options{Port: 1}, Cluster: opts})
		assert.ErrorContains(t, err, "--cluster-checks")
	}
}

// Go's profiles are served on their own address when one is given, and
// never beside the metrics.
func TestRunServesProfilesOnlyWhereAsked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	opts := webhook.Options{}
	opts.Server.PprofBindAddress = addr
	r := start(t, opts)

	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	code, body := get("http://" + addr + "/debug/pprof/")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "goroutine")
	code, body = get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "webhook.Run", "the goroutines of this process")
	code, _ = get(r.metrics + "/debug/pprof/")
	assert.Equal(t, http.StatusNotFound, code, "the metrics address serves no profiles")
}
