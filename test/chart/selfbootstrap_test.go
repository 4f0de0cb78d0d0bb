package chart

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// TestSelfBootstrappedEndToEnd installs the chart with certManager.enabled=false
// using the real helm, runs two webhook replicas with the installed
// Deployment's args as the chart's ServiceAccount (so with exactly its RBAC),
// puts them behind the chart's Service, and checks that: the webhook creates
// its CA, injects it into both configurations, and kube-apiserver calls it
// over TLS verified against that caBundle for the Service's name; requests
// reach both replicas; a CA rotation, leaf renewals (leafDuration 30s), a
// replica restart and a helm upgrade under continuous requests fail none;
// the previous CA leaves the caBundle when its grace ends; the RBAC allows
// nothing beyond the two configurations and the one Secret.
func TestSelfBootstrappedEndToEnd(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	admin := c.Client
	const (
		ns     = "lsw-sb"
		appNS  = "lsw-sb-apps"
		leaf   = 30 * time.Second
		scopes = "sb"
	)
	ensureLabelledNamespace(ctx, t, admin, appNS, map[string]string{"lsw-e2e": scopes})
	rel := installChart(ctx, t, c, "sb", ns,
		"--set", "certManager.enabled=false,selfBootstrapped.leafDuration="+leaf.String(),
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scopes)
	caName := rel.fullname() + "-ca"
	svcName := rel.serverName()

	// Nothing serves yet: failurePolicy Fail rejects every ListenerSet. (The
	// mutating webhook's matchConditions skip it, the CRD having defaulted
	// everything, so the validating call is the one that fails.)
	err := admin.Create(ctx, listenerSet(appNS, "early", true), client.DryRunAll)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `failed calling webhook "validate.listenersets.microgateway.airlock.com"`)

	dep := rel.deployment(ctx, t, admin)
	pod := dep.Spec.Template.Spec
	require.True(t, *pod.AutomountServiceAccountToken)
	kubeconfig := serviceAccountKubeconfig(t, c, ns, pod.ServiceAccountName)
	ip := hostIP(t)

	// Two replicas, each put behind the Service once ready, as pods are.
	replicas := []*replica{
		newReplica(t, "r0", pod.Containers[0].Args, "--kubeconfig="+kubeconfig),
		newReplica(t, "r1", pod.Containers[0].Args, "--kubeconfig="+kubeconfig),
	}
	start := time.Now()
	for _, r := range replicas {
		r.start(t)
	}
	var slices []*discoveryv1.EndpointSlice
	for _, r := range replicas {
		r.waitReady(t, 90*time.Second)
		slices = append(slices, endpointSlice(ctx, t, admin, rel, r, ip))
	}
	t.Logf("two replicas ready (CA created, caBundle injected, certificate served) in %s", time.Since(start).Round(time.Millisecond))

	// The CA Secret, filled by the webhook, and both caBundles equal to it.
	ca := caFromSecret(ctx, t, admin, ns, caName)
	assert.True(t, ca.IsCA)
	assert.Equal(t, "listenerset-webhook-ca", ca.Subject.CommonName)
	assert.Equal(t, []*x509.Certificate{ca}, bundles(ctx, t, admin, rel.fullname())[0])
	assert.Equal(t, []*x509.Certificate{ca}, bundles(ctx, t, admin, rel.fullname())[1])
	for _, r := range replicas {
		cert, err := r.servedCert(svcName, pool(ca))
		require.NoError(t, err, "%s's certificate verifies for %s against the CA", r.name, svcName)
		assert.ElementsMatch(t, []string{rel.fullname(), rel.fullname() + "." + ns, svcName, svcName + ".cluster.local"}, cert.DNSNames)
		assert.InDelta(t, leaf.Seconds(), cert.NotAfter.Sub(cert.NotBefore).Seconds(), 1, "short-lived: leafDuration")
	}

	// kube-apiserver calls the webhooks over TLS it verified: the valid
	// ListenerSet passes both, the invalid one is denied by the webhook.
	eventually(t, 30*time.Second, "kube-apiserver calls the webhook", func() error {
		return checkAdmission(ctx, admin, appNS, 0)
	})
	for i := range 30 {
		require.NoError(t, checkAdmission(ctx, admin, appNS, i))
	}
	for _, r := range replicas {
		n := r.requests(t)
		assert.Positive(t, n[admission.ValidatePath], "%s answered validating calls: %v", r.name, n)
		assert.Zero(t, n[admission.MutatePath], "%s answered mutating calls, which its matchConditions skip for CRD-defaulted objects: %v", r.name, n)
	}

	// Least privilege: the ServiceAccount can do what the webhook needs and nothing next to it.
	user := "system:serviceaccount:" + ns + ":" + pod.ServiceAccountName
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	for _, tc := range []struct {
		attrs authorizationv1.ResourceAttributes
		allow bool
	}{
		{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "update", Resource: "secrets", Name: caName}, true},
		{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "watch", Resource: "secrets", Name: caName}, true},
		{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "secrets", Name: "other"}, false},
		{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "secrets"}, false},
		{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "create", Resource: "secrets"}, false},
		{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "secrets", Name: caName}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "secrets", Name: caName}, false},
		{authorizationv1.ResourceAttributes{Group: "admissionregistration.k8s.io", Verb: "update", Resource: "validatingwebhookconfigurations", Name: rel.fullname()}, true},
		{authorizationv1.ResourceAttributes{Group: "admissionregistration.k8s.io", Verb: "update", Resource: "mutatingwebhookconfigurations", Name: rel.fullname()}, true},
		{authorizationv1.ResourceAttributes{Group: "admissionregistration.k8s.io", Verb: "update", Resource: "validatingwebhookconfigurations", Name: "other"}, false},
		{authorizationv1.ResourceAttributes{Group: "admissionregistration.k8s.io", Verb: "list", Resource: "mutatingwebhookconfigurations"}, false},
		{authorizationv1.ResourceAttributes{Group: "admissionregistration.k8s.io", Verb: "delete", Resource: "mutatingwebhookconfigurations", Name: rel.fullname()}, false},
		{authorizationv1.ResourceAttributes{Group: "gateway.networking.k8s.io", Namespace: appNS, Verb: "get", Resource: "listenersets"}, false},
	} {
		a := tc.attrs
		assert.Equal(t, tc.allow, canI(ctx, t, admin, user, groups, a), "%s %s/%s %q in %q", a.Verb, a.Group, a.Resource, a.Name, a.Namespace)
	}

	// CA rotation under load: remove the CA (as the NOTES say, to force a new
	// one). Every replica's authority makes or picks up a new CA, the caBundle
	// gets [new, previous], and only then do the replicas serve certificates
	// the new CA signed.
	l := startLoad(t, c.KubeconfigPath, appNS, 2)
	l.await(t, 10, 30*time.Second) // the load goes through kube-apiserver before the rotation
	rotated := time.Now()
	secret := &corev1.Secret{}
	require.NoError(t, admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: caName}, secret))
	require.NoError(t, admin.Patch(ctx, secret, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/data"}]`))))
	var newCA *x509.Certificate
	eventually(t, 60*time.Second, "a new CA", func() error {
		c := caFromSecretOrNil(ctx, admin, ns, caName)
		if c == nil || c.Equal(ca) {
			return fmt.Errorf("no new CA yet")
		}
		newCA = c
		return nil
	})
	eventually(t, 30*time.Second, "caBundles hold the new CA and the previous one", func() error {
		for i, b := range bundles(ctx, t, admin, rel.fullname()) {
			if len(b) != 2 || !b[0].Equal(newCA) || !b[1].Equal(ca) {
				return fmt.Errorf("configuration %d: %d certificates", i, len(b))
			}
		}
		return nil
	})
	eventually(t, 60*time.Second, "both replicas serve certificates of the new CA", func() error {
		for _, r := range replicas {
			if _, err := r.servedCert(svcName, pool(newCA)); err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
		}
		return nil
	})
	t.Logf("CA rotated: new CA in the caBundle and served by both replicas %s after the Secret was emptied", time.Since(rotated).Round(time.Millisecond))
	leafAfterRotation, err := replicas[1].servedCert(svcName, pool(newCA))
	require.NoError(t, err)
	var m admissionv1.MutatingWebhookConfiguration
	require.NoError(t, admin.Get(ctx, types.NamespacedName{Name: rel.fullname()}, &m))
	assert.Contains(t, m.Annotations, certs.CARotatedAtAnnotation)

	// A replica restarts (taken out of the Service first, as a terminating
	// pod is): it finds the CA and serves again; the CA stays the same.
	require.NoError(t, admin.Delete(ctx, slices[0]))
	// The pod's preStop sleep, played: its length, not an event, is what lets
	// kube-apiserver see the endpoint go before the process stops.
	time.Sleep(2 * time.Second)
	replicas[0].stop(t)
	replicas[0].start(t)
	replicas[0].waitReady(t, 60*time.Second)
	slices[0] = endpointSlice(ctx, t, admin, rel, replicas[0], ip)
	cert, err := replicas[0].servedCert(svcName, pool(newCA))
	require.NoError(t, err, "the restarted replica serves a certificate of the current CA")
	assert.NotNil(t, cert)
	assert.True(t, caFromSecret(ctx, t, admin, ns, caName).Equal(newCA), "a restart makes no new CA")

	// helm upgrade: the CA Secret's data and the caBundle survive.
	rel.helm(ctx, t, "upgrade", rel.name, chartPath, "--reuse-values", "--set", "webhook.timeoutSeconds=7")
	require.NoError(t, admin.Get(ctx, types.NamespacedName{Name: rel.fullname()}, &m))
	assert.Equal(t, int32(7), *m.Webhooks[0].TimeoutSeconds)
	assert.True(t, caFromSecret(ctx, t, admin, ns, caName).Equal(newCA), "helm upgrade keeps the CA the webhook wrote")

	// The previous CA leaves the caBundle when its grace (leafDuration) ends.
	eventually(t, leaf+30*time.Second, "the previous CA leaves the caBundle", func() error {
		for i, b := range bundles(ctx, t, admin, rel.fullname()) {
			if len(b) != 1 || !b[0].Equal(newCA) {
				return fmt.Errorf("configuration %d: %d certificates", i, len(b))
			}
		}
		return nil
	})
	// A leaf renewal (leafDuration 30s: renewed after two thirds, 20s) under load.
	eventually(t, leaf, "r1 serves a renewed certificate (after two thirds of leafDuration)", func() error {
		renewed, err := replicas[1].servedCert(svcName, pool(newCA))
		if err != nil {
			return err
		}
		if renewed.SerialNumber.Cmp(leafAfterRotation.SerialNumber) == 0 {
			return fmt.Errorf("still serial %x", renewed.SerialNumber)
		}
		return nil
	})
	l.await(t, 10, 30*time.Second) // and the load goes on with it
	r := l.stop(t)
	t.Logf("%d valid+invalid request pairs through kube-apiserver during rotation, restart, upgrade and renewals; %d failed", r.Pairs, r.Failed)
	lostNone(t, r, "the rotation, restart, upgrade and renewals")
	assert.Greater(t, r.Passed, int64(50))
	require.NoError(t, admin.Get(ctx, types.NamespacedName{Name: rel.fullname()}, &m))
	assert.NotContains(t, m.Annotations, certs.CARotatedAtAnnotation)

	// helm uninstall removes the CA Secret with the release.
	for _, r := range replicas {
		r.stop(t)
	}
	rel.helm(ctx, t, "uninstall", rel.name, "--wait")
	eventually(t, 30*time.Second, "the CA Secret is gone", func() error {
		err := admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: caName}, &corev1.Secret{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

// caFromSecret is the CA certificate in the Secret's ca.crt.
func caFromSecret(ctx context.Context, t testing.TB, c client.Client, ns, name string) *x509.Certificate {
	t.Helper()
	ca := caFromSecretOrNil(ctx, c, ns, name)
	require.NotNil(t, ca, "no CA in Secret %s/%s", ns, name)
	return ca
}

func caFromSecretOrNil(ctx context.Context, c client.Client, ns, name string) *x509.Certificate {
	s := &corev1.Secret{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, s); err != nil {
		return nil
	}
	noteSecret(s.Data["tls.key"]) // the CA's key: it must never reach a log
	if !bytes.Equal(s.Data["ca.crt"], s.Data["tls.crt"]) {
		return nil
	}
	certs := parsePEM(s.Data["ca.crt"])
	if len(certs) != 1 {
		return nil
	}
	return certs[0]
}

// bundles are the caBundles of the mutating and the validating configuration.
func bundles(ctx context.Context, t testing.TB, c client.Client, name string) [2][]*x509.Certificate {
	t.Helper()
	var m admissionv1.MutatingWebhookConfiguration
	var v admissionv1.ValidatingWebhookConfiguration
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: name}, &m))
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: name}, &v))
	return [2][]*x509.Certificate{parsePEM(m.Webhooks[0].ClientConfig.CABundle), parsePEM(v.Webhooks[0].ClientConfig.CABundle)}
}

func parsePEM(data []byte) []*x509.Certificate {
	var certs []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return certs
		}
		if c, err := x509.ParseCertificate(b.Bytes); err == nil {
			certs = append(certs, c)
		}
	}
}
