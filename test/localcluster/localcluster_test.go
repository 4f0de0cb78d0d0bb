package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

func TestWebhookConfigurations(t *testing.T) {
	ep := WebhookEndpoint{BaseURL: "https://127.0.0.1:9443/", MutatePath: "/m", ValidatePath: "v", CABundle: []byte("ca")}
	m, v := WebhookConfigurations(ep)
	if len(m.Webhooks) != 1 || len(v.Webhooks) != 1 {
		t.Fatalf("want one webhook each, got %d and %d", len(m.Webhooks), len(v.Webhooks))
	}
	mw, vw := m.Webhooks[0], v.Webhooks[0]
	if !reflect.DeepEqual(mw.MatchConditions, admission.MutatingMatchConditions()) || vw.MatchConditions != nil {
		t.Errorf("matchConditions: want admission.MutatingMatchConditions() on the mutating webhook only, got %+v and %+v", mw.MatchConditions, vw.MatchConditions)
	}
	if got := *mw.ClientConfig.URL; got != "https://127.0.0.1:9443/m" {
		t.Errorf("mutating URL %q", got)
	}
	if got := *vw.ClientConfig.URL; got != "https://127.0.0.1:9443/v" {
		t.Errorf("validating URL %q", got)
	}
	type common struct {
		rules    []admissionv1.RuleWithOperations
		fail     admissionv1.FailurePolicyType
		match    admissionv1.MatchPolicyType
		side     admissionv1.SideEffectClass
		timeout  int32
		versions []string
		ca       string
	}
	for _, c := range []common{
		{mw.Rules, *mw.FailurePolicy, *mw.MatchPolicy, *mw.SideEffects, *mw.TimeoutSeconds, mw.AdmissionReviewVersions, string(mw.ClientConfig.CABundle)},
		{vw.Rules, *vw.FailurePolicy, *vw.MatchPolicy, *vw.SideEffects, *vw.TimeoutSeconds, vw.AdmissionReviewVersions, string(vw.ClientConfig.CABundle)},
	} {
		if c.fail != admissionv1.Fail || c.match != admissionv1.Equivalent || c.side != admissionv1.SideEffectClassNone ||
			c.timeout != 10 || !slices.Equal(c.versions, []string{"v1"}) || c.ca != "ca" {
			t.Errorf("webhook settings %+v", c)
		}
		if len(c.rules) != 1 {
			t.Fatalf("rules %+v", c.rules)
		}
		r := c.rules[0]
		if !slices.Equal(r.Operations, []admissionv1.OperationType{admissionv1.Create, admissionv1.Update}) ||
			!slices.Equal(r.APIGroups, []string{"gateway.networking.k8s.io"}) ||
			!slices.Equal(r.APIVersions, []string{"v1"}) ||
			!slices.Equal(r.Resources, []string{"listenersets"}) {
			t.Errorf("rule %+v: want CREATE/UPDATE of gateway.networking.k8s.io/v1 listenersets (no subresources)", r)
		}
	}
}

func TestServingCert(t *testing.T) {
	dir := t.TempDir()
	cert, err := NewServingCert(dir, "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	defer srv.Close()
	if err := WaitForTLS(context.Background(), srv.Listener.Addr().String(), cert.CAPEM, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// The CA must not verify another host name.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cert.CAPEM)
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", srv.Listener.Addr().String(),
		&tls.Config{RootCAs: pool, ServerName: "example.com"})
	if err == nil {
		conn.Close()
		t.Error("certificate verified for example.com")
	}
}

// TestStart starts the real control plane: kube-apiserver and kubectl report
// the pinned version, the Gateway API CRDs of the product's version and
// standard channel (and nothing else from the CRD directory) are installed.
func TestStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver and etcd; skipped with -short")
	}
	ctx := context.Background()
	c, err := Start(ctx, Options{Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	}()

	if c.CRDs != CRDsV163Standard {
		t.Errorf("installed the %s CRDs, want %s (the product's version, standard channel)", c.CRDs, CRDsV163Standard)
	}
	var names []string
	for _, crd := range c.Env.CRDs {
		names = append(names, crd.Name)
	}
	if !slices.Contains(names, "listenersets.gateway.networking.k8s.io") || !slices.Contains(names, "gateways.gateway.networking.k8s.io") {
		t.Errorf("installed CRDs %v lack listenersets or gateways", names)
	}

	r := c.Kubectl(ctx, "", "version")
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	for _, want := range []string{"Client Version: v1.37.2", "Server Version: v1.37.2"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("kubectl version lacks %q:\n%s", want, r.Output())
		}
	}
	// The standard CRD directory's ValidatingAdmissionPolicy is no CRD and
	// is not installed.
	r = c.Kubectl(ctx, "", "get", "validatingadmissionpolicies", "-o", "name")
	if r.Err != nil || strings.TrimSpace(r.Stdout) != "" {
		t.Errorf("validatingadmissionpolicies: err=%v\n%s", r.Err, r.Output())
	}
	r = c.Kubectl(ctx, "", "get", "listenersets", "-A")
	if r.Err != nil {
		t.Errorf("kubectl get listenersets: %v\n%s", r.Err, r.Output())
	}
}
