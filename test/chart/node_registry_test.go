package chart

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
	"github.com/airlock/listenerset-webhook/test/testpki"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// The release the registry test builds: a version of its own, whose notes are
// CHANGELOG.md's [Unreleased] (as make release-check builds it).
const (
	registryTestVersion = "v0.0.0-node"
	imageName           = "listenerset-webhook"
)

// The release tools make test-all and make test-node build before the tests (their
// prerequisites): make runs release and publish without remaking them.
var releaseToolTargets = []string{"helm", "ociimage", "cosign", "cyclonedx-gomod"}

// testNodeInstallFromRegistry installs the chart as a user installs a
// release (README's install section, docs/release.md): make release builds
// it (a throwaway key pair), make publish pushes the image index and the
// chart to a registry (bin/ociregistry, over TLS with a test CA, on
// loopback) and signs both there, cosign verifies them with the public key
// (and refuses another key), and helm installs the chart from
// oci://REGISTRY/charts with image.repository in that registry. The node's
// containerd pulls the image from it: without TrustRegistry (containerd's
// hosts.toml with the CA) that pull fails on the certificate; with it the
// pods run the release's image by digest, and kube-apiserver calls them.
func testNodeInstallFromRegistry(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const appNS, scope = "lsw-node-reg-apps", "node-reg"
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	password := "node-test-" + fmt.Sprint(time.Now().UnixNano())
	cosignKey, pub := cosignKeyPair(ctx, t, filepath.Join(tmp, "key"), password)
	// This machine's platform only: the others are cross compiles the install never runs (make
	// release-check builds every platform).
	env := []string{"DIST=" + dist, "COSIGN_KEY=" + cosignKey, "COSIGN_PASSWORD=" + password, "NOTES_SECTION=Unreleased",
		"RELEASE_PLATFORMS=linux/" + runtime.GOARCH}

	start := time.Now()
	runMake(ctx, t, env, "release", "VERSION="+registryTestVersion)
	t.Logf("make release VERSION=%s in %s", registryTestVersion, time.Since(start).Round(time.Second))
	digest := strings.TrimSpace(readFile(t, filepath.Join(dist, imageName+"-"+registryTestVersion+".digest")))
	require.True(t, strings.HasPrefix(digest, "sha256:"), digest)
	// The release docs/upgrade.md upgrades to (node_upgrade_test.go).
	secondDist := buildSecondRelease(ctx, t, tmp, env)
	secondDigest := strings.TrimSpace(readFile(t, filepath.Join(secondDist, imageName+"-"+upgradeTestVersion+".digest")))
	require.True(t, strings.HasPrefix(secondDigest, "sha256:"), secondDigest)
	require.NotEqual(t, digest, secondDigest)

	ca := testpki.NewCA(t, testpki.CommonName("registry test CA"))
	caFile := filepath.Join(tmp, "registry-ca.crt")
	require.NoError(t, os.WriteFile(caFile, ca.CertPEM, 0o644))
	reg := startRegistry(t, tmp, ca)
	// A path under the host, as a user's registry has: REGISTRY=host[:port]/path.
	registry := reg.addr + "/platform"
	imageRepo := registry + "/" + imageName
	chartRef := "oci://" + registry + "/charts/" + imageName
	chartVersion := strings.TrimPrefix(registryTestVersion, "v")

	start = time.Now()
	out := runMake(ctx, t, env, "publish", "VERSION="+registryTestVersion, "REGISTRY="+registry, "REGISTRY_CA="+caFile)
	t.Logf("make publish in %s:\n%s", time.Since(start).Round(100*time.Millisecond), out)
	assert.Contains(t, out, "image: "+imageRepo+"@"+digest)
	start = time.Now()
	out = runMake(ctx, t, append(env, "DIST="+secondDist), "publish", "VERSION="+upgradeTestVersion, "REGISTRY="+registry, "REGISTRY_CA="+caFile)
	t.Logf("make publish of the second release in %s:\n%s", time.Since(start).Round(100*time.Millisecond), out)

	t.Run("SignaturesVerifyWithThePublicKeyOnly", func(t *testing.T) {
		_, other := cosignKeyPair(ctx, t, filepath.Join(tmp, "other"), password)
		for _, ref := range []string{imageRepo + "@" + digest, registry + "/charts/" + imageName + ":" + chartVersion} {
			out, err := cosignVerify(ctx, pub, caFile, ref)
			require.NoError(t, err, out)
			assert.Contains(t, out, "The signatures were verified against the specified public key", ref)
			out, err = cosignVerify(ctx, other, caFile, ref)
			require.Error(t, err, "%s verifies with another key:\n%s", ref, out)
			assert.Contains(t, out, "no matching signatures", ref)
		}
		// The chart helm pulls is the release's file, byte for byte: its blob
		// signature in dist/ verifies it (docs/release.md).
		pulled := filepath.Join(tmp, "pulled")
		require.NoError(t, os.Mkdir(pulled, 0o755))
		out, err := runHelm(ctx, t, "", "pull", chartRef, "--version", chartVersion, "--ca-file", caFile, "--destination", pulled)
		require.NoError(t, err, out)
		tgz := imageName + "-" + chartVersion + ".tgz"
		out, err = runCosign(ctx, pub, "verify-blob", "--key", pub, "--insecure-ignore-tlog=true",
			"--signature", filepath.Join(dist, tgz+".sig"), filepath.Join(pulled, tgz))
		require.NoError(t, err, out)
	})

	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	t.Run("WithoutTheRegistryCAThePullFails", func(t *testing.T) {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "untrusted-pull", Namespace: appNS},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "webhook", Image: imageRepo + "@" + digest,
				Args: []string{"--version"}}}, RestartPolicy: corev1.RestartPolicyNever},
		}
		// Retried: the namespace's default ServiceAccount may not be there yet.
		eventually(t, 30*time.Second, "the pod created", func() error { return c.Create(ctx, pod) })
		defer func() { _ = c.Delete(context.Background(), pod, client.GracePeriodSeconds(0)) }()
		eventually(t, 2*time.Minute, "the kubelet reports the failed pull", func() error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
				return err
			}
			for _, s := range pod.Status.ContainerStatuses {
				if w := s.State.Waiting; w != nil && (w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff") {
					t.Logf("%s: %s", w.Reason, w.Message)
					return nil
				}
			}
			return fmt.Errorf("phase %s, %+v", pod.Status.Phase, pod.Status.ContainerStatuses)
		})
		// containerd connected and did not get through TLS: with no hosts.toml
		// for a loopback registry containerd 1.6 speaks plain HTTP to it,
		// which the registry refuses (400), in some runs after an HTTPS
		// attempt it hangs up on (EOF or a reset: the certificate). The
		// registry writes those lines as it notices, hence eventually.
		var refused, plain int
		eventually(t, 30*time.Second, "the registry logs containerd's failed TLS handshakes", func() error {
			refused, plain = 0, 0
			for _, l := range strings.Split(readFile(t, reg.log), "\n") {
				switch {
				case !strings.Contains(l, "TLS handshake error from 127.0.0.1:"):
				case strings.Contains(l, "client sent an HTTP request to an HTTPS server"):
					plain++
				default:
					refused++
				}
			}
			if refused+plain == 0 {
				return errors.New("no TLS handshake error logged")
			}
			return nil
		})
		t.Logf("TLS handshakes the registry logged as failed: %d abandoned, %d plain HTTP", refused, plain)
		assert.Empty(t, reg.requests(t, "containerd/"), "requests of containerd's the registry answered")
	})

	untrust, err := n.TrustRegistry(reg.addr, ca.CertPEM)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, untrust()) })
	pullsBefore := reg.requests(t, "containerd/")

	// The README's install, docs/adoption.md's enforcement and docs/upgrade.md's
	// upgrade to the second release and rollback, as the pages have them.
	first := docRelease{dist: dist, version: registryTestVersion, chartVersion: chartVersion, digest: digest}
	second := docRelease{dist: secondDist, version: upgradeTestVersion, chartVersion: strings.TrimPrefix(upgradeTestVersion, "v"), digest: secondDigest}
	start = time.Now()
	docsAsWritten(t, n, c, registry, caFile, pub, first, second)
	t.Logf("the README's install, adoption and upgrade and rollback as documented: %s", time.Since(start).Round(100*time.Millisecond))

	// containerd's own requests: the index by digest, the platform's
	// manifest, its config and its layer, each served.
	pulls := reg.requests(t, "containerd/")[len(pullsBefore):]
	t.Logf("containerd's requests to the registry for the install and the upgrade (%d):\n%s", len(pulls), strings.Join(pulls, "\n"))
	served := regexp.MustCompile(`^GET /v2/platform/listenerset-webhook/(manifests|blobs)/sha256:[0-9a-f]{64} 200 `)
	var manifests, blobs int
	for _, l := range pulls {
		if m := served.FindStringSubmatch(l); m != nil {
			if m[1] == "manifests" {
				manifests++
			} else {
				blobs++
			}
		}
	}
	assert.Contains(t, strings.Join(pulls, "\n"), "GET /v2/platform/listenerset-webhook/manifests/"+digest+" 200 ",
		"containerd fetched the image index by the chart's digest")
	assert.Contains(t, strings.Join(pulls, "\n"), "GET /v2/platform/listenerset-webhook/manifests/"+secondDigest+" 200 ",
		"and the second release's, by its chart's digest")
	assert.GreaterOrEqual(t, manifests, 4, "each index and its platform's manifest")
	assert.GreaterOrEqual(t, blobs, 2, "the config and the layer")
}

// cosignKeyPair writes a new cosign key pair into dir (cosign.key encrypted
// with password, cosign.pub) and returns their paths.
func cosignKeyPair(ctx context.Context, t *testing.T, dir, password string) (key, pub string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o700))
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bin", "cosign"), "generate-key-pair")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD="+password)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return filepath.Join(dir, "cosign.key"), filepath.Join(dir, "cosign.pub")
}

// runCosign runs bin/cosign offline: SIGSTORE_REKOR_PUBLIC_KEY names a Rekor
// key, which --insecure-ignore-tlog never uses, so that cosign does not
// look for Sigstore's trust root on the internet (as hack/release.sh).
func runCosign(ctx context.Context, pub string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bin", "cosign"), args...)
	cmd.Env = append(os.Environ(), "SIGSTORE_REKOR_PUBLIC_KEY="+pub)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// cosignVerify is the user's check of a reference in the registry
// (docs/release.md): cosign verify with the public key.
func cosignVerify(ctx context.Context, pub, caFile, ref string) (string, error) {
	return runCosign(ctx, pub, "verify", "--key", pub, "--insecure-ignore-tlog=true", "--registry-cacert", caFile, ref)
}

// runMake runs a make target in the repository root with env added, without
// remaking the release tools (make test-all or make test-node built them first).
func runMake(ctx context.Context, t *testing.T, env []string, args ...string) string {
	t.Helper()
	return runMakeIn(ctx, t, root, env, args...)
}

// runMakeIn is runMake in another copy of the repository, dir.
func runMakeIn(ctx context.Context, t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	var flags []string
	for _, target := range releaseToolTargets {
		flags = append(flags, "-o", target)
	}
	cmd := exec.CommandContext(ctx, "make", append(append(flags, "--no-print-directory", "-s"), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// testRegistry is bin/ociregistry running for a test.
type testRegistry struct {
	addr string // 127.0.0.1:port
	log  string
}

// startRegistry runs bin/ociregistry (make ociimage) on a loopback port it
// chooses, serving a certificate of ca for 127.0.0.1, until the test ends.
func startRegistry(t *testing.T, dir string, ca *testpki.CA) *testRegistry {
	t.Helper()
	leaf := ca.Issue(t, []string{"127.0.0.1"}, testpki.CommonName("registry"))
	certFile, keyFile := filepath.Join(dir, "registry.crt"), filepath.Join(dir, "registry.key")
	require.NoError(t, os.WriteFile(certFile, leaf.CertPEM, 0o644))
	require.NoError(t, os.WriteFile(keyFile, leaf.KeyPEM, 0o600))
	r := &testRegistry{log: filepath.Join(dir, "registry.log")}
	addrFile := filepath.Join(dir, "registry.addr")
	p, err := testproc.Start(exec.Command(filepath.Join(root, "bin", "ociregistry"),
		"-cert", certFile, "-key", keyFile, "-addr-file", addrFile), r.log)
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := p.Stop(10 * time.Second); err != nil {
			t.Log(err)
		}
	})
	// It writes the file once it listens: connections wait for it from then.
	eventually(t, 30*time.Second, "the registry listens", func() error {
		if err := p.Ended(); err != nil {
			return fmt.Errorf("ended: %w\n%s", err, p.Log())
		}
		b, err := os.ReadFile(addrFile)
		if err == nil && len(b) == 0 {
			err = errors.New("written, still empty")
		}
		r.addr = string(b)
		return err
	})
	return r
}

// requests are the registry's request lines so far of clients whose
// User-Agent starts with agent.
func (r *testRegistry) requests(t *testing.T, agent string) []string {
	t.Helper()
	f, err := os.Open(r.log)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), ` "`+agent) {
			lines = append(lines, sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	return lines
}
