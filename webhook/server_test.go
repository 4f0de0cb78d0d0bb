package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/airlock/listenerset-webhook/webhook"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// running is a Run in the background on loopback ports.
type running struct {
	opts    webhook.Options
	addr    string // host:port of the webhook
	health  string // http://host:port
	metrics string
	done    chan error
	cancel  context.CancelFunc
}

func start(t *testing.T, opts webhook.Options) *running {
	t.Helper()
	opts.Host = "127.0.0.1"
	opts.Port = freePort(t)
	if opts.CertDir == "" {
		opts.CertDir = filepath.Join(t.TempDir(), "certs")
	}
	opts.HealthProbeBindAddress = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	opts.MetricsBindAddress = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{
		opts:    opts,
		addr:    fmt.Sprintf("127.0.0.1:%d", opts.Port),
		health:  "http://" + opts.HealthProbeBindAddress,
		metrics: "http://" + opts.MetricsBindAddress,
		done:    make(chan error, 1),
		cancel:  cancel,
	}
	go func() { r.done <- webhook.Run(ctx, opts) }()
	t.Cleanup(func() { r.stop(t) })

	// Ready means the TLS listener serves: /readyz dials it.
	require.Eventually(t, func() bool {
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("Run returned early: %v", err)
		default:
		}
		resp, err := http.Get(r.health + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 20*time.Second, 50*time.Millisecond, "readyz never became 200")
	return r
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
	ca, err := os.ReadFile(filepath.Join(dir, webhook.CAFile))
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
	pool := caPool(t, r.opts.CertDir)

	t.Run("self-signed certificate generated for loopback", func(t *testing.T) {
		for _, f := range []string{webhook.CertFile, webhook.KeyFile, webhook.CAFile} {
			assert.FileExists(t, filepath.Join(r.opts.CertDir, f))
		}
		info, err := os.Stat(filepath.Join(r.opts.CertDir, webhook.KeyFile))
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
		resp := post(t, client, url+webhook.MutatePath, request(t, admissionv1.Create, toJSON(t, minimal), nil))
		assert.True(t, resp.Allowed)
		assert.NotEmpty(t, resp.Patch)

		resp = post(t, client, url+webhook.ValidatePath, request(t, admissionv1.Create, toJSON(t, invalid), nil))
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
		assert.Contains(t, text, `controller_runtime_webhook_requests_total{code="200",webhook="`+webhook.ValidatePath+`"}`)
		assert.Contains(t, text, `controller_runtime_webhook_requests_total{code="200",webhook="`+webhook.MutatePath+`"}`)
		assert.Contains(t, text, "controller_runtime_webhook_latency_seconds")
		assert.Contains(t, text, "go_goroutines")
		got := parseDenials(t, strings.NewReader(text))
		assert.GreaterOrEqual(t, got["spec.listeners[*].name FieldValueDuplicate"], 1.0, "%v", got)
	})
}

func TestRunReloadsCertificate(t *testing.T) {
	r := start(t, webhook.Options{})
	first := servedCert(t, r, caPool(t, r.opts.CertDir))

	// A renewed certificate, as a Secret update or cert-manager writes it.
	next := filepath.Join(t.TempDir(), "next")
	_, err := webhook.EnsureSelfSignedCert(next, "localhost", "127.0.0.1")
	require.NoError(t, err)
	for _, f := range []string{webhook.KeyFile, webhook.CertFile} {
		data, err := os.ReadFile(filepath.Join(next, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(r.opts.CertDir, f), data, 0o600))
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

func TestRunTLS13AndHTTP2(t *testing.T) {
	r := start(t, webhook.Options{TLSMinVersion: "1.3", EnableHTTP2: true})
	pool := caPool(t, r.opts.CertDir)

	_, err := dial(r, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12})
	assert.ErrorContains(t, err, "protocol version not supported", "TLS 1.2 refused with a 1.3 minimum")

	conn, err := dial(r, &tls.Config{RootCAs: pool, NextProtos: []string{"h2", "http/1.1"}})
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, uint16(tls.VersionTLS13), conn.ConnectionState().Version)
	assert.Equal(t, "h2", conn.ConnectionState().NegotiatedProtocol, "HTTP/2 on request")
}

func TestRunKeepsProvidedCertificate(t *testing.T) {
	dir := t.TempDir()
	// Someone else's certificate (here: one made beforehand, for another name).
	_, err := webhook.EnsureSelfSignedCert(dir, "provided.example", "127.0.0.1")
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(dir, webhook.CertFile))
	require.NoError(t, err)

	r := start(t, webhook.Options{CertDir: dir})

	after, err := os.ReadFile(filepath.Join(dir, webhook.CertFile))
	require.NoError(t, err)
	assert.Equal(t, before, after, "a present certificate is never replaced")
	assert.Equal(t, []string{"provided.example"}, servedCert(t, r, caPool(t, dir)).DNSNames)
}

func TestRunRejectsBadOptions(t *testing.T) {
	for name, opts := range map[string]webhook.Options{
		"TLS 1.1":  {TLSMinVersion: "1.1", CertDir: t.TempDir()},
		"TLS junk": {TLSMinVersion: "tls1.2", CertDir: t.TempDir()},
		"port":     {Port: 70000, CertDir: t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Error(t, webhook.Run(t.Context(), opts))
		})
	}
	t.Run("taken health port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		err = webhook.Run(t.Context(), webhook.Options{
			Host: "127.0.0.1", Port: freePort(t), CertDir: t.TempDir(), HealthProbeBindAddress: l.Addr().String(),
		})
		assert.ErrorContains(t, err, "health probes")
	})
}

func TestEnsureSelfSignedCert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")

	generated, err := webhook.EnsureSelfSignedCert(dir)
	require.NoError(t, err)
	assert.True(t, generated)
	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())

	crtPEM, err := os.ReadFile(filepath.Join(dir, webhook.CertFile))
	require.NoError(t, err)
	caPEM, err := os.ReadFile(filepath.Join(dir, webhook.CAFile))
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
	_, err = tls.LoadX509KeyPair(filepath.Join(dir, webhook.CertFile), filepath.Join(dir, webhook.KeyFile))
	require.NoError(t, err, "certificate and key match")

	generated, err = webhook.EnsureSelfSignedCert(dir)
	require.NoError(t, err)
	assert.False(t, generated, "second call keeps what is there")
	again, err := os.ReadFile(filepath.Join(dir, webhook.CertFile))
	require.NoError(t, err)
	assert.Equal(t, crtPEM, again)

	require.NoError(t, os.Remove(filepath.Join(dir, webhook.KeyFile)))
	_, err = webhook.EnsureSelfSignedCert(dir)
	assert.ErrorContains(t, err, "exists but", "half a certificate is an error, not replaced")
}
