package webhook_test

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/airlock/listenerset-webhook/test/testpki"
	"github.com/airlock/listenerset-webhook/webhook"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// TestCertificateReloadUnderLoad replaces tls.crt/tls.key in the cert dir
// again and again while clients keep posting AdmissionReviews over new TLS
// connections that verify the server against the (unchanged) CA, as
// kube-apiserver does after a cert-manager renewal: no request fails, and the
// new certificates are served without a restart. Three ways of replacing the
// files: rename into place (each file atomic, the pair not), plain
// overwrite (a reader may see a half-written file), and the key and
// certificate a moment apart (a mismatched pair in between). In each case
// the watcher keeps the last pair that loads.
func TestCertificateReloadUnderLoad(t *testing.T) {
	ca := testpki.NewCA(t)
	dir := filepath.Join(t.TempDir(), "certs")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	writePair(t, dir, ca.Issue(t, loopbackHosts), writeRename)
	r := start(t, webhook.Options{Certs: certs.Options{Dir: dir}})
	roots := ca.Pool()

	body := admissionReviewBody(t)
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var failures []string
	seen := sync.Map{} // serials served
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A new connection per request: every handshake asks for the
			// current certificate.
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
				DisableKeepAlives: true,
				TLSClientConfig:   &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"},
			}}
			for {
				select {
				case <-stop:
					return
				default:
				}
				serial, err := postReview(client, "https://"+r.addr+admission.ValidatePath, body)
				if err != nil {
					failed.Add(1)
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					continue
				}
				ok.Add(1)
				seen.Store(serial, true)
			}
		}()
	}

	const rounds = 5
	var wantSerials []string
	for _, how := range []writeMode{writeRename, writeInPlace, writeKeyFirstSlowly} {
		for range rounds {
			time.Sleep(150 * time.Millisecond)
			pair := ca.Issue(t, loopbackHosts)
			writePair(t, dir, pair, how)
			wantSerials = append(wantSerials, pair.Serial())
			// Each pair must be served before the next one replaces it.
			require.Eventually(t, func() bool { _, ok := seen.Load(pair.Serial()); return ok }, 15*time.Second, 20*time.Millisecond,
				"certificate %s (%s) never served", pair.Serial(), how)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d AdmissionReviews over new TLS connections while the certificate was replaced %d times; %d failed",
		ok.Load(), len(wantSerials), failed.Load())
	assert.Zero(t, failed.Load(), "failures: %v", failures)
	assert.Greater(t, ok.Load(), int64(100))
}

type writeMode string

const (
	writeRename         writeMode = "rename into place"
	writeInPlace        writeMode = "overwrite in place"
	writeKeyFirstSlowly writeMode = "key, then the certificate 200ms later"
)

// loopbackHosts are what the server is reached at in these tests.
var loopbackHosts = []string{"127.0.0.1", "localhost"}

func writePair(t *testing.T, dir string, p testpki.Leaf, how writeMode) {
	t.Helper()
	certPath, keyPath := filepath.Join(dir, certs.CertFile), filepath.Join(dir, certs.KeyFile)
	switch how {
	case writeRename:
		for path, data := range map[string][]byte{keyPath: p.KeyPEM, certPath: p.CertPEM} {
			tmp := path + ".tmp"
			require.NoError(t, os.WriteFile(tmp, data, 0o600))
			require.NoError(t, os.Rename(tmp, path))
		}
	case writeInPlace:
		require.NoError(t, os.WriteFile(certPath, p.CertPEM, 0o600))
		require.NoError(t, os.WriteFile(keyPath, p.KeyPEM, 0o600))
	case writeKeyFirstSlowly:
		require.NoError(t, os.WriteFile(keyPath, p.KeyPEM, 0o600))
		time.Sleep(200 * time.Millisecond)
		require.NoError(t, os.WriteFile(certPath, p.CertPEM, 0o600))
	}
}

func admissionReviewBody(t *testing.T) []byte {
	t.Helper()
	ls := []byte(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"ls","namespace":"ns"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":8080}]}}`)
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       "reload",
			Kind:      metav1.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "ListenerSet"},
			Resource:  metav1.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "listenersets"},
			Name:      "ls",
			Namespace: "ns",
			Operation: admissionv1.Create,
			Object:    runtime.RawExtension{Raw: ls},
		},
	}
	b, err := json.Marshal(review)
	require.NoError(t, err)
	return b
}

// postReview posts one AdmissionReview and returns the serial of the
// certificate the server presented; an error unless it was allowed.
func postReview(c *http.Client, url string, body []byte) (string, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		return "", fmt.Errorf("status %d: %w", resp.StatusCode, err)
	}
	if review.Response == nil || !review.Response.Allowed {
		return "", fmt.Errorf("status %d: not allowed: %+v", resp.StatusCode, review.Response)
	}
	return resp.TLS.PeerCertificates[0].SerialNumber.String(), nil
}
