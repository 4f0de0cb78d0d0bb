package certs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"

	cmtls "github.com/cert-manager/cert-manager/pkg/server/tls"
	"github.com/cert-manager/cert-manager/pkg/util/pki"
	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// CARotatedAtAnnotation is set on a webhook configuration while its caBundle
// still holds the previous CA after a rotation: the time of the rotation
// (RFC 3339). The previous CA is dropped LeafDuration later, when no
// certificate it signed can still be valid.
const CARotatedAtAnnotation = "listenerset-webhook.airlock.com/ca-rotated-at"

// Intervals of the injector.
const (
	injectResync     = time.Minute      // re-check even without events
	injectBackoffMin = time.Second      // after a failed sync
	injectBackoffMax = 30 * time.Second //
)

// errNoCAYet: the authority has not created the CA Secret yet.
var errNoCAYet = errors.New("the CA Secret does not exist yet")

// caInjector keeps the caBundle of the webhook's own mutating and validating
// configurations current with the CA in the CA Secret, and tells the gated
// authority since when kube-apiserver has been told to trust which CA.
type caInjector struct {
	cs                   kubernetes.Interface
	secretNS, secretName string
	mutating, validating string
	grace, settle        time.Duration
	log                  logr.Logger
	now                  func() time.Time
	kickCh               chan struct{}

	mu           sync.Mutex
	trustedSince map[[sha256.Size]byte]time.Time // CA in every caBundle since
	trustedCAs   map[[sha256.Size]byte]*x509.Certificate
}

func newCAInjector(opts BootstrapOptions, log logr.Logger) (*caInjector, error) {
	cs, err := kubernetes.NewForConfig(opts.RESTConfig)
	if err != nil {
		return nil, err
	}
	return &caInjector{
		cs:       cs,
		secretNS: opts.CASecretNamespace, secretName: opts.CASecretName,
		mutating: opts.MutatingWebhookConfigName, validating: opts.ValidatingWebhookConfigName,
		grace: opts.LeafDuration, settle: opts.CASettle,
		log: log, now: time.Now,
		kickCh:       make(chan struct{}, 1),
		trustedSince: map[[sha256.Size]byte]time.Time{},
		trustedCAs:   map[[sha256.Size]byte]*x509.Certificate{},
	}, nil
}

// kick asks for a sync soon (never blocks).
func (in *caInjector) kick() {
	select {
	case in.kickCh <- struct{}{}:
	default:
	}
}

// Run syncs at start, whenever the authority reports a new CA, whenever one
// of the two configurations changes (someone may have overwritten the
// caBundle), when the gated authority waits for a CA, and every minute; after
// a failure it retries with backoff. It returns nil when ctx is cancelled.
func (in *caInjector) Run(ctx context.Context, auth cmtls.Authority) error {
	rotated := make(chan struct{}, 1)
	auth.WatchRotation(rotated)
	defer auth.StopWatchingRotation(rotated)
	stopWatch := in.watchConfigurations(ctx)
	defer stopWatch()

	backoff := injectBackoffMin
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-rotated:
		case <-in.kickCh:
		case <-timer.C:
		}
		next, err := in.sync(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			switch {
			case errors.Is(err, errNoCAYet):
				in.log.V(1).Info("Waiting for the CA Secret", "secret", in.secretNS+"/"+in.secretName)
			case apierrors.IsConflict(err):
				// Another replica wrote first: read again at once.
				in.log.V(1).Info("Configuration changed meanwhile; syncing again", "error", err.Error())
				timer.Reset(0)
				continue
			default:
				in.log.Error(err, "Keeping the caBundle current failed; retrying", "in", backoff)
			}
			next, backoff = backoff, min(2*backoff, injectBackoffMax)
		} else {
			backoff = injectBackoffMin
		}
		timer.Reset(next)
	}
}

// watchConfigurations kicks a sync on every event of the two configurations
// (an informer each, restricted to the configuration's name so that RBAC by
// resourceNames allows the list and watch).
func (in *caInjector) watchConfigurations(ctx context.Context) (stop func()) {
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { in.kick() },
		UpdateFunc: func(any, any) { in.kick() },
		DeleteFunc: func(any) { in.kick() },
	}
	var factories []informers.SharedInformerFactory
	for _, w := range []struct {
		name     string
		informer func(informers.SharedInformerFactory) cache.SharedIndexInformer
	}{
		{in.mutating, func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Admissionregistration().V1().MutatingWebhookConfigurations().Informer()
		}},
		{in.validating, func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer()
		}},
	} {
		if w.name == "" {
			continue
		}
		selector := fields.OneTermEqualSelector("metadata.name", w.name).String()
		f := informers.NewSharedInformerFactoryWithOptions(in.cs, 10*time.Minute,
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = selector }))
		if _, err := w.informer(f).AddEventHandler(handler); err != nil {
			in.log.Error(err, "Watching the webhook configuration failed; relying on the periodic check", "name", w.name)
			continue
		}
		f.Start(ctx.Done())
		factories = append(factories, f)
	}
	return func() {
		for _, f := range factories {
			f.Shutdown()
		}
	}
}

// sync reads the CA Secret and brings both configurations' caBundle to what
// desiredBundle says; then it records which CAs every caBundle holds. It
// returns when to check again: at the latest after injectResync, earlier when
// a previous CA's grace ends before that.
func (in *caInjector) sync(ctx context.Context) (time.Duration, error) {
	secret, err := in.cs.CoreV1().Secrets(in.secretNS).Get(ctx, in.secretName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, errNoCAYet
	}
	if err != nil {
		return 0, fmt.Errorf("reading the CA Secret %s/%s: %w", in.secretNS, in.secretName, err)
	}
	certs := parseCerts(secret.Data["ca.crt"])
	if len(certs) == 0 {
		certs = parseCerts(secret.Data[corev1.TLSCertKey])
	}
	if len(certs) == 0 || !certs[0].IsCA {
		return 0, errNoCAYet // the authority repairs the Secret
	}
	current := certs[0]
	observeValidity(certCA, current)
	now := in.now()
	next := injectResync
	checkAt := func(meta *metav1.ObjectMeta) {
		if at, err := time.Parse(time.RFC3339, meta.Annotations[CARotatedAtAnnotation]); err == nil {
			// One second after the grace ends (the annotation has seconds only).
			if d := at.Add(in.grace + time.Second).Sub(now); d > 0 && d < next {
				next = d
			}
		}
	}

	api := in.cs.AdmissionregistrationV1()
	var injections []func() (*metav1.ObjectMeta, []*x509.Certificate, error)
	if in.mutating != "" {
		injections = append(injections, func() (*metav1.ObjectMeta, []*x509.Certificate, error) {
			return injectInto(ctx, in, api.MutatingWebhookConfigurations(), in.mutating, mutatingBundles, current, now)
		})
	}
	if in.validating != "" {
		injections = append(injections, func() (*metav1.ObjectMeta, []*x509.Certificate, error) {
			return injectInto(ctx, in, api.ValidatingWebhookConfigurations(), in.validating, validatingBundles, current, now)
		})
	}
	var held [][]*x509.Certificate
	for _, inject := range injections {
		meta, cas, err := inject()
		if err != nil {
			return 0, err
		}
		checkAt(meta)
		held = append(held, cas)
	}
	in.observe(held, now)
	return next, nil
}

// configClient is what injectInto needs of the typed client of either kind
// of webhook configuration.
type configClient[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, c T, opts metav1.UpdateOptions) (T, error)
}

// injectInto reads the configuration name, brings the caBundle of each of its
// webhooks to what desiredBundle says (bundlesOf finds them and names the
// kind) and writes it back when that changed anything. It returns the
// configuration's metadata and the CAs its caBundles now hold.
func injectInto[T any](ctx context.Context, in *caInjector, client configClient[T], name string,
	bundlesOf func(T) (kind string, meta *metav1.ObjectMeta, bundles []*[]byte),
	current *x509.Certificate, now time.Time) (*metav1.ObjectMeta, []*x509.Certificate, error) {
	c, err := client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("reading webhook configuration %s: %w", name, err)
	}
	kind, meta, bundles := bundlesOf(c)
	cas, changed := inject(meta, bundles, current, in.grace, now)
	if changed {
		if _, err := client.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
			return nil, nil, fmt.Errorf("updating the caBundle of %s %s: %w", kind, name, err)
		}
		in.logInjected(kind, name, cas)
	}
	return meta, cas, nil
}

func mutatingBundles(c *admissionregistrationv1.MutatingWebhookConfiguration) (string, *metav1.ObjectMeta, []*[]byte) {
	bundles := make([]*[]byte, len(c.Webhooks))
	for i := range c.Webhooks {
		bundles[i] = &c.Webhooks[i].ClientConfig.CABundle
	}
	return "MutatingWebhookConfiguration", &c.ObjectMeta, bundles
}

func validatingBundles(c *admissionregistrationv1.ValidatingWebhookConfiguration) (string, *metav1.ObjectMeta, []*[]byte) {
	bundles := make([]*[]byte, len(c.Webhooks))
	for i := range c.Webhooks {
		bundles[i] = &c.Webhooks[i].ClientConfig.CABundle
	}
	return "ValidatingWebhookConfiguration", &c.ObjectMeta, bundles
}

func (in *caInjector) logInjected(kind, name string, cas []*x509.Certificate) {
	var desc []string
	for _, c := range cas {
		desc = append(desc, fmt.Sprintf("%s serial %x until %s", c.Subject.CommonName, c.SerialNumber, c.NotAfter.UTC().Format(time.RFC3339)))
	}
	in.log.Info("Updated caBundle", "kind", kind, "name", name, "cas", desc)
}

// observe records the CAs that every configuration's caBundle now holds, and
// since when.
func (in *caInjector) observe(held [][]*x509.Certificate, now time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	inAll := map[[sha256.Size]byte]*x509.Certificate{}
	for i, cas := range held {
		here := map[[sha256.Size]byte]*x509.Certificate{}
		for _, c := range cas {
			if fp := fingerprint(c); i == 0 || inAll[fp] != nil {
				here[fp] = c
			}
		}
		inAll = here
	}
	for fp := range in.trustedSince {
		if inAll[fp] == nil {
			delete(in.trustedSince, fp)
			delete(in.trustedCAs, fp)
		}
	}
	for fp, c := range inAll {
		if _, ok := in.trustedSince[fp]; !ok {
			in.trustedSince[fp] = now
			in.trustedCAs[fp] = c
		}
	}
}

// trusted says whether leaf may be served: the CA that signed it has been in
// every caBundle for the settle time.
func (in *caInjector) trusted(leaf *x509.Certificate) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	for fp, since := range in.trustedSince {
		if leaf.CheckSignatureFrom(in.trustedCAs[fp]) != nil {
			continue
		}
		if wait := in.settle - in.now().Sub(since); wait > 0 {
			return fmt.Errorf("its CA is in the caBundle since %s; serving it in %s", since.Format(time.RFC3339), wait.Round(time.Millisecond))
		}
		return nil
	}
	return errors.New("its CA is not yet in the caBundle of the webhook configurations")
}

// inject sets every bundle of one configuration to desiredBundle and keeps
// CARotatedAtAnnotation in step; it reports the CAs now in the bundle and
// whether anything changed. The first webhook's bundle stands for the
// configuration's (they are all written alike).
func inject(meta *metav1.ObjectMeta, bundles []*[]byte, current *x509.Certificate, grace time.Duration, now time.Time) ([]*x509.Certificate, bool) {
	var existing []byte
	if len(bundles) > 0 {
		existing = *bundles[0]
	}
	cas, rotatedAt := desiredBundle(parseCerts(existing), meta.Annotations[CARotatedAtAnnotation], current, grace, now)
	want := encodeCerts(cas)
	changed := false
	for _, b := range bundles {
		if !bytes.Equal(*b, want) {
			*b = append([]byte(nil), want...)
			changed = true
		}
	}
	if meta.Annotations[CARotatedAtAnnotation] != rotatedAt {
		if rotatedAt == "" {
			delete(meta.Annotations, CARotatedAtAnnotation)
		} else {
			if meta.Annotations == nil {
				meta.Annotations = map[string]string{}
			}
			meta.Annotations[CARotatedAtAnnotation] = rotatedAt
		}
		changed = true
	}
	return cas, changed
}

// desiredBundle is the caBundle for the current CA, given the bundle there
// is: the current CA first; after a rotation also the CA that was current
// before (if still valid), for grace from the rotation, whose time it
// returns (RFC 3339; "" when the bundle holds the current CA only). Anything
// else in the bundle is dropped: the caBundle belongs to the webhook.
func desiredBundle(existing []*x509.Certificate, rotatedAt string, current *x509.Certificate, grace time.Duration, now time.Time) ([]*x509.Certificate, string) {
	usable := func(c *x509.Certificate) bool {
		return c.IsCA && now.Before(c.NotAfter) && !c.Equal(current)
	}
	var previous *x509.Certificate
	switch {
	case len(existing) == 0:
	case existing[0].Equal(current):
		// No rotation since the last write; a previous CA stays for grace.
		if len(existing) > 1 && usable(existing[1]) {
			at, err := time.Parse(time.RFC3339, rotatedAt)
			if err != nil {
				at = now // unknown: the grace starts now
			}
			if now.Before(at.Add(grace)) {
				return []*x509.Certificate{current, existing[1]}, at.UTC().Format(time.RFC3339)
			}
		}
	default:
		// A rotation: the CA that was current stays for grace.
		for _, c := range existing {
			if usable(c) {
				previous = c
				break
			}
		}
		if previous != nil {
			return []*x509.Certificate{current, previous}, now.UTC().Format(time.RFC3339)
		}
	}
	return []*x509.Certificate{current}, ""
}

// parseCerts returns the certificates in PEM data; nil when it holds anything
// else, so that a damaged bundle is rewritten.
func parseCerts(data []byte) []*x509.Certificate {
	certs, err := pki.DecodeX509CertificateSetBytes(data)
	if err != nil {
		return nil
	}
	return certs
}

// encodeCerts is the PEM bundle of certs, in order.
func encodeCerts(certs []*x509.Certificate) []byte {
	var bundle []byte
	for _, c := range certs {
		pemCert, err := pki.EncodeX509(c)
		if err != nil {
			continue // a parsed certificate always encodes
		}
		bundle = append(bundle, pemCert...)
	}
	return bundle
}
