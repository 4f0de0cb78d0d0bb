package chart

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/test/testpki"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// TestCertManagerModeEndToEnd installs the chart in its default mode with the
// real helm. No cert-manager runs in the test cluster, so the test does its
// three parts from the installed objects alone: it issues the serving
// certificate the chart's Certificate asks for (its DNS names, signed by a
// CA) into the Secret the Certificate names (cert-manager); it copies that
// Secret's ca.crt into the webhook configurations named by their
// cert-manager.io/inject-ca-from annotation (cainjector); and it projects
// the Secret into a directory per replica exactly as the kubelet updates a
// Secret volume: a new timestamped directory, then an atomic swap of the
// ..data symlink (kubelet). Two replicas run with the Deployment's args and
// no Kubernetes credentials, behind the chart's Service. Then the serving
// certificate is renewed six times (a new key each time, as rotationPolicy
// Always does) while requests flow through kube-apiserver: every replica
// picks up every renewal without a restart, and no request fails.
func TestCertManagerModeEndToEnd(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	admin := c.Client
	const (
		ns     = "lsw-cm"
		appNS  = "lsw-cm-apps"
		scopes = "cm"
	)
	ensureLabelledNamespace(ctx, t, admin, appNS, map[string]string{"lsw-e2e": scopes})
	rel := installChart(ctx, t, c, "cm", ns, "--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scopes)
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", rel.name, "--namespace", ns)
	})

	dep := rel.deployment(ctx, t, admin)
	pod := dep.Spec.Template.Spec
	require.True(t, *pod.AutomountServiceAccountToken, "the scope reads Gateways and GatewayClasses")
	// The pod's token, as the kubelet mounts it: the ServiceAccount with only
	// the chart's roles (the scope reads Gateways and GatewayClasses with it).
	kubeconfig := serviceAccountKubeconfig(t, c, ns, pod.ServiceAccountName)
	require.Len(t, pod.Volumes, 1)
	mountedSecret := pod.Volumes[0].Secret.SecretName

	// cert-manager: the Certificate as installed says what to issue and where.
	cert, ca, secret, secretData := issueLikeCertManager(ctx, t, admin, ns, rel.fullname())
	require.Equal(t, mountedSecret, cert.Spec.SecretName, "the Deployment mounts the Certificate's Secret")
	require.Contains(t, cert.Spec.DNSNames, rel.serverName(), "the name kube-apiserver verifies")

	// cainjector: inject-ca-from names the Certificate; its Secret's ca.crt
	// goes into every webhook of both configurations.
	injectLikeCAInjector(ctx, t, admin, rel.fullname())

	// kubelet: each replica gets its own projection of the Secret.
	ip := hostIP(t)
	var replicas []*replica
	var dirs []string
	for i := range 2 {
		dir := t.TempDir()
		project(t, dir, secret.Data)
		dirs = append(dirs, dir)
		replicas = append(replicas, newReplica(t, fmt.Sprintf("r%d", i), pod.Containers[0].Args, "--cert-dir="+dir, "--kubeconfig="+kubeconfig))
	}
	for _, r := range replicas {
		r.start(t)
	}
	var slices []*discoveryv1.EndpointSlice
	for _, r := range replicas {
		r.waitReady(t, 60*time.Second)
		slices = append(slices, endpointSlice(ctx, t, admin, rel, r, ip))
	}
	eventually(t, 30*time.Second, "kube-apiserver calls the webhook", func() error {
		return checkAdmission(ctx, admin, appNS, 0)
	})
	for i := range 20 {
		require.NoError(t, checkAdmission(ctx, admin, appNS, i))
	}

	// Renewals under load: cert-manager writes the Secret, the kubelets
	// project it (one node after the other: while the first replica serves
	// the new certificate, the second still serves the old one), the
	// webhooks reload. Between renewals the load goes on through
	// kube-apiserver.
	l := startLoad(t, c.KubeconfigPath, appNS, 2)
	const between = 10 // request pairs through kube-apiserver between renewals, and after the last
	var slowest time.Duration
	for n := range 6 {
		l.await(t, between, 60*time.Second)
		require.NoError(t, admin.Get(ctx, client.ObjectKeyFromObject(secret), secret))
		secret.Data = secretData()
		require.NoError(t, admin.Update(ctx, secret))
		want := parsePEM(secret.Data["tls.crt"])[0]
		for k, r := range replicas {
			written := time.Now()
			project(t, dirs[k], secret.Data)
			eventually(t, 25*time.Second, fmt.Sprintf("renewal %d served by %s", n+1, r.name), func() error {
				got, err := r.servedCert(rel.serverName(), ca.Pool())
				if err != nil {
					return err
				}
				if got.SerialNumber.Cmp(want.SerialNumber) != 0 {
					return fmt.Errorf("%s still serves serial %x", r.name, got.SerialNumber)
				}
				return nil
			})
			slowest = max(slowest, time.Since(written))
		}
	}
	l.await(t, between, 60*time.Second)
	r := l.stop(t)
	t.Logf("%d valid+invalid request pairs through kube-apiserver across 6 certificate renewals; %d failed; slowest reload %s",
		r.Pairs, r.Failed, slowest.Round(time.Millisecond))
	lostNone(t, r, "the renewals")
	assert.Greater(t, r.Passed, int64(30))
	for _, r := range replicas {
		assert.Positive(t, r.requests(t)[admission.ValidatePath], "%s served", r.name)
	}
	for _, s := range slices {
		_ = admin.Delete(ctx, s)
	}
}

// issueLikeCertManager does what cert-manager's controller would for the
// release's Certificate (the one simulation the chart suites keep: the
// controller cannot be built here): it issues what the Certificate asks for
// from a test CA (ca) into the Secret it names. issue issues anew, for a
// renewal.
func issueLikeCertManager(ctx context.Context, t *testing.T, c client.Client, ns, fullname string) (cert *cmapi.Certificate, ca *testpki.CA, secret *corev1.Secret, issue func() map[string][]byte) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(cmapi.SchemeGroupVersion.WithKind("Certificate"))
	require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: ns, Name: fullname + "-serving"}, u))
	cert = typed[cmapi.Certificate](t, u)
	ca = testpki.NewCA(t)
	issue = func() map[string][]byte {
		leaf := ca.Issue(t, cert.Spec.DNSNames, testpki.CommonName(cert.Spec.CommonName))
		noteSecret(leaf.KeyPEM)
		return map[string][]byte{"tls.crt": leaf.CertPEM, "tls.key": leaf.KeyPEM, "ca.crt": ca.CertPEM}
	}
	secret = &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: cert.Spec.SecretName, Namespace: ns,
			Annotations: map[string]string{cmapi.CertificateNameKey: cert.Name}},
		Type: corev1.SecretTypeTLS, Data: issue(),
	}
	require.NoError(t, c.Create(ctx, secret))
	return cert, ca, secret, issue
}

// injectLikeCAInjector does what cert-manager's cainjector does for
// cert-manager.io/inject-ca-from: the named Certificate's Secret's ca.crt
// becomes the caBundle of every webhook in both configurations.
func injectLikeCAInjector(ctx context.Context, t *testing.T, c client.Client, name string) {
	t.Helper()
	m := &admissionv1.MutatingWebhookConfiguration{}
	v := &admissionv1.ValidatingWebhookConfiguration{}
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: name}, m))
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: name}, v))
	caFor := func(meta metav1.ObjectMeta) []byte {
		from := meta.Annotations["cert-manager.io/inject-ca-from"]
		certNS, certName, ok := strings.Cut(from, "/")
		require.True(t, ok, "inject-ca-from %q", from)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(cmapi.SchemeGroupVersion.WithKind("Certificate"))
		require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: certNS, Name: certName}, u))
		s := &corev1.Secret{}
		require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: certNS, Name: typed[cmapi.Certificate](t, u).Spec.SecretName}, s))
		require.NotEmpty(t, s.Data["ca.crt"])
		return s.Data["ca.crt"]
	}
	for i := range m.Webhooks {
		m.Webhooks[i].ClientConfig.CABundle = caFor(m.ObjectMeta)
	}
	for i := range v.Webhooks {
		v.Webhooks[i].ClientConfig.CABundle = caFor(v.ObjectMeta)
	}
	require.NoError(t, c.Update(ctx, m))
	require.NoError(t, c.Update(ctx, v))
}

// project writes data into dir the way the kubelet's atomic writer updates a
// Secret volume: the files go into a new hidden timestamped directory, a
// ..data_tmp symlink to it is renamed over ..data (one atomic step for all
// files), the visible names are symlinks into ..data, and the previous
// directory is removed.
func project(t *testing.T, dir string, data map[string][]byte) {
	t.Helper()
	ts, err := os.MkdirTemp(dir, ".."+time.Now().UTC().Format("2006_01_02_15_04_05."))
	require.NoError(t, err)
	for name, content := range data {
		require.NoError(t, os.WriteFile(filepath.Join(ts, name), content, 0o440))
	}
	dataLink := filepath.Join(dir, "..data")
	old, err := os.Readlink(dataLink)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "..data_tmp")
	require.NoError(t, os.Symlink(filepath.Base(ts), tmp))
	require.NoError(t, os.Rename(tmp, dataLink))
	for name := range data {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			require.NoError(t, os.Symlink(filepath.Join("..data", name), link))
		}
	}
	if old != "" {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, old)))
	}
}
