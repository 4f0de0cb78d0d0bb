package certs

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	cmtls "github.com/cert-manager/cert-manager/pkg/server/tls"
	"github.com/cert-manager/cert-manager/pkg/server/tls/authority"
	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
)

// Defaults of BootstrapOptions.
const (
	// DefaultCADuration is how long a self-bootstrapped CA is valid; it is
	// replaced when two thirds of that have passed.
	DefaultCADuration = 365 * 24 * time.Hour
	// DefaultLeafDuration is how long a serving certificate signed by that CA
	// is valid; a new one is signed when two thirds of that have passed, and
	// at once when the CA changes.
	DefaultLeafDuration = 24 * time.Hour
	// DefaultCASettle is how long a new CA must have been in the caBundle of
	// both webhook configurations before a certificate it signed is served:
	// kube-apiserver reads webhook configurations through an informer, and
	// this covers its delay.
	DefaultCASettle = 2 * time.Second
)

// BootstrapOptions configure ModeSelfBootstrapped. The webhook then needs
// no certificate from anyone: cert-manager's DynamicAuthority (the library
// behind cert-manager's own webhook) keeps a CA in the Secret
// CASecretNamespace/CASecretName, creating it when it is missing and
// replacing it before it expires; cert-manager's DynamicSource serves
// certificates for DNSNames signed by it, renewed at two thirds of
// LeafDuration and whenever the CA changes. Every replica runs the same loop
// on the same Secret, so several replicas share one CA (the first to find the
// Secret missing creates it; the others pick it up).
//
// With webhook configuration names given, each replica also keeps their
// caBundle current: the current CA first, then the previous one for
// LeafDuration after a rotation (a certificate signed by it may still be
// served until then), nothing else. A certificate is served only once the CA
// that signed it has been in both caBundles for DefaultCASettle, so a
// rotation never presents kube-apiserver a certificate it cannot verify.
// Writes use optimistic concurrency; replicas converge on the same bundle.
//
// Kubernetes access needed (the chart's RBAC): secrets create, and get, list,
// watch, update on the CA Secret in its namespace; get, list, watch, update
// on the two webhook configurations, by name.
type BootstrapOptions struct {
	// RESTConfig reaches kube-apiserver; nil means controller-runtime's
	// config.GetConfig() (--kubeconfig, $KUBECONFIG, in-cluster, ~/.kube).
	RESTConfig *rest.Config
	// CASecretNamespace and CASecretName name the CA Secret (required).
	CASecretNamespace, CASecretName string
	// DNSNames of the serving certificates (required), e.g. the Service's
	// <svc>.<ns>.svc, which kube-apiserver verifies.
	DNSNames []string
	// MutatingWebhookConfigName and ValidatingWebhookConfigName are the
	// configurations whose caBundle the webhook keeps current; "" leaves
	// that configuration alone. With both empty, nothing is injected and
	// certificates are served as soon as they are signed.
	MutatingWebhookConfigName, ValidatingWebhookConfigName string
	// CADuration (default DefaultCADuration) and LeafDuration (default
	// DefaultLeafDuration); LeafDuration must be shorter.
	CADuration, LeafDuration time.Duration
	// CASettle overrides DefaultCASettle (tests).
	CASettle time.Duration
}

// caSecretCommonName is the CA certificate's subject.
const caSecretCommonName = "listenerset-webhook-ca"

// bootstrapSource is the Source of ModeSelfBootstrapped.
type bootstrapSource struct {
	*cmtls.DynamicSource
	auth     *authority.DynamicAuthority
	injector *caInjector // nil: nothing to inject
	log      logr.Logger
}

func (o BootstrapOptions) withDefaults() (BootstrapOptions, error) {
	if o.CASecretNamespace == "" || o.CASecretName == "" {
		return o, errors.New("self-bootstrapped certificates need the CA Secret's namespace and name")
	}
	if len(o.DNSNames) == 0 {
		return o, errors.New("self-bootstrapped certificates need at least one DNS name (e.g. <service>.<namespace>.svc)")
	}
	if o.CADuration == 0 {
		o.CADuration = DefaultCADuration
	}
	if o.LeafDuration == 0 {
		o.LeafDuration = DefaultLeafDuration
	}
	if o.CADuration < 0 || o.LeafDuration < 0 || o.LeafDuration >= o.CADuration {
		return o, fmt.Errorf("certificate durations: leaf %s must be positive and shorter than CA %s", o.LeafDuration, o.CADuration)
	}
	if o.CASettle == 0 {
		o.CASettle = DefaultCASettle
	}
	return o, nil
}

func newBootstrapSource(ctx context.Context, opts BootstrapOptions, log logr.Logger) (*bootstrapSource, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.RESTConfig == nil {
		if opts.RESTConfig, err = config.GetConfig(); err != nil {
			return nil, fmt.Errorf("self-bootstrapped certificates need the Kubernetes API: %w", err)
		}
	}
	auth := &authority.DynamicAuthority{
		SecretNamespace: opts.CASecretNamespace,
		SecretName:      opts.CASecretName,
		SecretLabels: map[string]string{
			"app.kubernetes.io/name":       "listenerset-webhook",
			"app.kubernetes.io/component":  "ca",
			"app.kubernetes.io/managed-by": "listenerset-webhook",
		},
		RESTConfig:   opts.RESTConfig,
		CommonName:   caSecretCommonName,
		CADuration:   opts.CADuration,
		LeafDuration: opts.LeafDuration,
	}
	s := &bootstrapSource{auth: auth, log: log}
	var signer cmtls.Authority = auth
	if opts.MutatingWebhookConfigName != "" || opts.ValidatingWebhookConfigName != "" {
		inj, err := newCAInjector(opts, log.WithName("cabundle"))
		if err != nil {
			return nil, err
		}
		s.injector = inj
		signer = &gatedAuthority{DynamicAuthority: auth, injector: inj}
	}
	s.DynamicSource = &cmtls.DynamicSource{
		DNSNames:      opts.DNSNames,
		Authority:     signer,
		RetryInterval: time.Second,
	}
	log.Info("Self-bootstrapped certificates", "caSecret", opts.CASecretNamespace+"/"+opts.CASecretName,
		"dnsNames", opts.DNSNames, "caDuration", opts.CADuration, "leafDuration", opts.LeafDuration,
		"mutatingWebhookConfiguration", opts.MutatingWebhookConfigName,
		"validatingWebhookConfiguration", opts.ValidatingWebhookConfigName)
	return s, nil
}

// Start runs the authority (inside DynamicSource.Start) and the injector.
// cert-manager's code logs through the logger in its context.
func (s *bootstrapSource) Start(ctx context.Context) error {
	g, gctx := errgroup.WithContext(logr.NewContext(ctx, s.log))
	g.Go(func() error { return s.DynamicSource.Start(gctx) })
	if s.injector != nil {
		g.Go(func() error { return s.injector.Run(gctx, s.auth) })
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		err = errors.New("stopped unexpectedly")
	}
	return fmt.Errorf("self-bootstrapped certificates: %w", err)
}

// gatedAuthority signs with the DynamicAuthority but hands out a certificate
// only when kube-apiserver can verify it: its CA has been in the caBundle of
// the webhook configurations for the settle time. Until then it reports
// authority.ErrCertificateNotAvailable, and DynamicSource keeps serving the
// certificate it has (if any) and asks again a second later.
type gatedAuthority struct {
	*authority.DynamicAuthority
	injector *caInjector
}

// Sign implements cmtls.Authority.
func (g *gatedAuthority) Sign(template *x509.Certificate) (*x509.Certificate, error) {
	cert, err := g.DynamicAuthority.Sign(template)
	if err != nil {
		return nil, err
	}
	if err := g.injector.trusted(cert); err != nil {
		g.injector.kick()
		return nil, fmt.Errorf("%w: %v", authority.ErrCertificateNotAvailable, err)
	}
	return cert, nil
}

// fingerprint identifies a certificate.
func fingerprint(c *x509.Certificate) [sha256.Size]byte { return sha256.Sum256(c.Raw) }
