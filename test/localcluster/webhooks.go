package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// Names of the webhook configurations and of the webhooks in them (the
// webhooks' names are the server's, admission.Registrations).
const (
	MutatingConfigName    = "listenerset-webhook"
	ValidatingConfigName  = "listenerset-webhook"
	MutatingWebhookName   = admission.MutatingWebhookName
	ValidatingWebhookName = admission.ValidatingWebhookName
)

// WebhookEndpoint says where kube-apiserver reaches the webhook.
type WebhookEndpoint struct {
	// BaseURL is https://host:port, without a path.
	BaseURL string
	// MutatePath and ValidatePath are the webhook's handler paths
	// (admission.MutatePath, admission.ValidatePath).
	MutatePath, ValidatePath string
	// DeletePath, when set, registers the deletion webhook there too
	// (admission.DeletePath), as Registrations().Deleting says: DELETE
	// only, failurePolicy Ignore, its own short timeout.
	DeletePath string
	// RoutePath, when set, registers the HTTPRoute webhook there too
	// (admission.ValidateRoutePath), as Registrations().Routes says:
	// creates and updates of httproutes that name a ListenerSet.
	RoutePath string
	// CABundle is the PEM CA that signed the webhook's serving certificate.
	CABundle []byte
	// TimeoutSeconds defaults to 10.
	TimeoutSeconds int32
}

// WebhookConfigurations returns the mutating and validating configurations
// for ep, as the Helm chart should install them: sideEffects None,
// admissionReviewVersions v1, failurePolicy Fail, matchPolicy Equivalent, and
// the webhooks' names, rules and the mutating webhook's matchConditions of
// admission.Registrations.
func WebhookConfigurations(ep WebhookEndpoint) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration) {
	reg := admission.Registrations()
	timeout := ep.TimeoutSeconds
	if timeout == 0 {
		timeout = 10
	}
	base := strings.TrimSuffix(ep.BaseURL, "/")
	clientConfig := func(path string) admissionv1.WebhookClientConfig {
		return admissionv1.WebhookClientConfig{
			URL:      ptr.To(base + "/" + strings.TrimPrefix(path, "/")),
			CABundle: ep.CABundle,
		}
	}
	mutating := &admissionv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigName},
		Webhooks: []admissionv1.MutatingWebhook{{
			Name:                    reg.Mutating.Name,
			ClientConfig:            clientConfig(ep.MutatePath),
			Rules:                   reg.Rules,
			FailurePolicy:           ptr.To(admissionv1.Fail),
			MatchPolicy:             ptr.To(admissionv1.Equivalent),
			SideEffects:             ptr.To(admissionv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(timeout),
			AdmissionReviewVersions: []string{"v1"},
			ReinvocationPolicy:      ptr.To(admissionv1.NeverReinvocationPolicy),
			// Called only when a defaulted field is unset; the CRD's schema
			// defaults have usually set them all (docs/performance.md).
			MatchConditions: reg.Mutating.MatchConditions,
		}},
	}
	validating := &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ValidatingConfigName},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name:                    reg.Validating.Name,
			ClientConfig:            clientConfig(ep.ValidatePath),
			Rules:                   reg.Rules,
			FailurePolicy:           ptr.To(admissionv1.Fail),
			MatchPolicy:             ptr.To(admissionv1.Equivalent),
			SideEffects:             ptr.To(admissionv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(timeout),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if ep.DeletePath != "" {
		d := reg.Deleting
		validating.Webhooks = append(validating.Webhooks, admissionv1.ValidatingWebhook{
			Name:                    d.Name,
			ClientConfig:            clientConfig(ep.DeletePath),
			Rules:                   d.Rules,
			FailurePolicy:           ptr.To(d.FailurePolicy),
			MatchPolicy:             ptr.To(admissionv1.Equivalent),
			SideEffects:             ptr.To(admissionv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(d.TimeoutSeconds),
			AdmissionReviewVersions: []string{"v1"},
		})
	}
	if ep.RoutePath != "" {
		r := reg.Routes
		validating.Webhooks = append(validating.Webhooks, admissionv1.ValidatingWebhook{
			Name:                    r.Name,
			ClientConfig:            clientConfig(ep.RoutePath),
			Rules:                   r.Rules,
			FailurePolicy:           ptr.To(admissionv1.Fail),
			MatchPolicy:             ptr.To(admissionv1.Equivalent),
			SideEffects:             ptr.To(admissionv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(timeout),
			AdmissionReviewVersions: []string{"v1"},
			MatchConditions:         r.MatchConditions,
		})
	}
	return mutating, validating
}

// RegisterWebhooks creates (or replaces) both webhook configurations and
// waits until kube-apiserver calls the validating webhook, which it proves by
// a server-side dry-run create that only the webhook rejects. The mutating
// configuration is written first, so it is in effect by then as well.
// namespace must exist.
func (c *Cluster) RegisterWebhooks(ctx context.Context, ep WebhookEndpoint, namespace string) error {
	mutating, validating := WebhookConfigurations(ep)
	for _, obj := range []client.Object{mutating, validating} {
		if err := createOrReplace(ctx, c.Client, obj); err != nil {
			return fmt.Errorf("registering %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return c.WaitForWebhook(ctx, namespace, 30*time.Second)
}

// UnregisterWebhooks deletes both configurations and waits until
// kube-apiserver no longer calls the webhook.
func (c *Cluster) UnregisterWebhooks(ctx context.Context, namespace string) error {
	for _, obj := range []client.Object{
		&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: ValidatingConfigName}},
		&admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigName}},
	} {
		if err := c.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := probeWebhook(ctx, c.Client, namespace)
		if err == nil {
			return nil // the probe object passed: nobody asked the webhook
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("webhook still called 30s after unregistering it: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// WaitForWebhook waits until the validating webhook answers a dry-run create
// of a ListenerSet that only the webhook rejects (protocol TCP): with a
// denial, or, with --enforcement=warn, with the warning that says it would
// have denied it, or, with --unknown-parent=admit (the probe's parent does
// not exist), with the warning that says it was admitted unjudged.
func (c *Cluster) WaitForWebhook(ctx context.Context, namespace string, timeout time.Duration) error {
	cfg := rest.CopyConfig(c.Config)
	var warned atomic.Bool
	wouldDeny, _, _ := strings.Cut(validation.WarnWouldDeny, "%s")
	cfg.WarningHandler = warningFunc(func(text string) {
		if strings.Contains(text, wouldDeny) || strings.Contains(text, validation.ScopeAdmitted) {
			warned.Store(true)
		}
	})
	probeClient, err := client.New(cfg, client.Options{Scheme: c.Scheme})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	var last error
	for {
		last = probeWebhook(ctx, probeClient, namespace)
		if warned.Load() || last != nil && strings.Contains(last.Error(), fmt.Sprintf("admission webhook %q denied the request", ValidatingWebhookName)) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the validating webhook did not answer within %s; last probe result: %v", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// warningFunc is a rest.WarningHandler of the warning's text.
type warningFunc func(text string)

// HandleWarningHeader implements rest.WarningHandler.
func (f warningFunc) HandleWarningHeader(_ int, _ string, text string) { f(text) }

func probeWebhook(ctx context.Context, c client.Client, namespace string) error {
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "ListenerSet",
		"metadata":   map[string]any{"name": "webhook-probe", "namespace": namespace},
		"spec": map[string]any{
			"parentRef": map[string]any{"name": "probe"},
			"listeners": []any{map[string]any{"name": "probe", "protocol": "TCP", "port": int64(1)}},
		},
	}}
	return c.Create(ctx, probe, client.DryRunAll)
}

func createOrReplace(ctx context.Context, c client.Client, obj client.Object) error {
	existing := obj.DeepCopyObject().(client.Object)
	err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing)
	switch {
	case apierrors.IsNotFound(err):
		return c.Create(ctx, obj)
	case err != nil:
		return err
	}
	obj.SetResourceVersion(existing.GetResourceVersion())
	return c.Update(ctx, obj)
}

// WaitForTLS waits until addr (host:port) completes a TLS handshake with a
// certificate that caPEM verifies, i.e. until a webhook server is serving.
func WaitForTLS(ctx context.Context, addr string, caPEM []byte, timeout time.Duration) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return errors.New("no certificate in caPEM")
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		d := tls.Dialer{Config: &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12}}
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("webhook at %s not serving TLS after %s: %w", addr, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago
// (testproc.FreePort, for make run's hack/run).
func FreePort() (int, error) { return testproc.FreePort() }
