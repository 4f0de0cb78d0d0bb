package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testpki"
	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// certLayout writes serving certificates into a --cert-dir one way.
type certLayout struct {
	name  string
	write func(t *testing.T, dir string, certPEM, keyPEM, caPEM []byte)
}

// secretVolume writes as the kubelet updates a mounted Secret: the files
// in a new timestamped directory, then one atomic rename of the ..data
// symlink onto it; tls.crt and tls.key are symlinks through ..data, so the
// pair changes at once. The old directory is removed afterwards.
var secretVolume = certLayout{"secret volume (..data symlink swap)", func(t *testing.T, dir string, certPEM, keyPEM, caPEM []byte) {
	t.Helper()
	ts := fmt.Sprintf("..%s", time.Now().Format("2006_01_02_15_04_05.000000000"))
	require.NoError(t, os.Mkdir(filepath.Join(dir, ts), 0o755))
	for name, data := range map[string][]byte{certs.CertFile: certPEM, certs.KeyFile: keyPEM, certs.CAFile: caPEM} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ts, name), data, 0o600))
	}
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	require.NoError(t, os.Symlink(ts, filepath.Join(dir, "..data_tmp")))
	require.NoError(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	for _, name := range []string{certs.CertFile, certs.KeyFile, certs.CAFile} {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			require.NoError(t, os.Symlink(filepath.Join("..data", name), link))
		}
	}
	if old != "" {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, old)))
	}
}}

// overwrite writes the certificate, then the key, over the old files: in
// between the pair does not match, and a reader may see a file half
// written; the server keeps the previous pair until the new one loads.
var overwrite = certLayout{"plain overwrite", func(t *testing.T, dir string, certPEM, keyPEM, caPEM []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, certs.CertFile), certPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, certs.KeyFile), keyPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, certs.CAFile), caPEM, 0o600))
}}

// TestRotationUnderLoad: the serving certificate in
// --cert-dir is replaced again and again while clients post AdmissionReviews
// and verify the server against the CA, as kube-apiserver does with the
// caBundle: half of them on kept-alive connections, half with a new
// handshake per request (which sees each new certificate). No request may
// fail, and each new certificate must be served before the next replaces it.
func TestRotationUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	const (
		rotations = 20
		workers   = 8
	)
	bin := webhookBinary(t)
	ca := testpki.NewCA(t)
	mix := reviewMix()

	for _, layout := range []certLayout{secretVolume, overwrite} {
		t.Run(layout.name, func(t *testing.T) {
			dir := t.TempDir()
			leaf := ca.Issue(t, loopbackHosts)
			layout.write(t, dir, leaf.CertPEM, leaf.KeyPEM, ca.CertPEM)
			p := startWebhookProc(t, bin, "rotation", dir)

			var (
				load          tally
				fresh, kept   atomic.Int64 // requests on new and on kept-alive connections
				seen          sync.Map     // serials served on new connections
				stop          = make(chan struct{})
				wg            sync.WaitGroup
				lastReloadLag time.Duration
				maxReloadLag  time.Duration
			)
			for w := range workers {
				keepAlive := w%2 == 0
				wg.Add(1)
				go func() {
					defer wg.Done()
					client := tlsClient(ca.Pool(), keepAlive)
					defer client.CloseIdleConnections()
					for n := w; ; n++ {
						select {
						case <-stop:
							return
						default:
						}
						serial, err := send(client, p.addr, mix[n%len(mix)], nil)
						load.record(err)
						if keepAlive {
							kept.Add(1)
						} else {
							fresh.Add(1)
							if err == nil {
								seen.Store(serial, true)
							}
						}
					}
				}()
			}

			start := time.Now()
			served := []string{leaf.Serial()}
			for range rotations {
				time.Sleep(200 * time.Millisecond)
				next := ca.Issue(t, loopbackHosts)
				serial := next.Serial()
				written := time.Now()
				layout.write(t, dir, next.CertPEM, next.KeyPEM, ca.CertPEM)
				ok := assert.Eventually(t, func() bool { _, ok := seen.Load(serial); return ok },
					15*time.Second, 10*time.Millisecond, "certificate %s never served", serial)
				lastReloadLag = time.Since(written)
				maxReloadLag = max(maxReloadLag, lastReloadLag)
				if !ok {
					break
				}
				served = append(served, serial)
			}
			elapsed := time.Since(start)
			close(stop)
			wg.Wait()

			assert.Zero(t, load.failed.Load(), "failed requests:\n%s", load.String())
			assert.Len(t, served, rotations+1)
			t.Logf("RESULT rotation (%s): %d rotations in %s under %d clients (%d keep-alive, %d new connection per request); "+
				"%d requests (%d on kept-alive connections, %d on new ones), failed %d; %d certificates served; "+
				"new certificate served on new connections at most %s after the write",
				layout.name, rotations, elapsed.Round(time.Millisecond), workers, workers/2, workers/2,
				load.total.Load(), kept.Load(), fresh.Load(), load.failed.Load(), len(served),
				maxReloadLag.Round(time.Millisecond))
		})
	}
}
