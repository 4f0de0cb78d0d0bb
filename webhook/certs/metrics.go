package certs

import (
	"crypto/tls"
	"crypto/x509"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Names of the gauges of the certificates' validity, labelled certificate
// ("serving": the one the webhook serves, in every mode; "ca": the
// self-bootstrapped CA). The chart's alert ListenerSetWebhookCertificateNotRenewed
// fires when one is in the last third of its validity, where both
// cert-manager and the self-bootstrapped authority renew (at two thirds).
const (
	NotBeforeMetric = "listenerset_webhook_certificate_not_before_timestamp_seconds"
	NotAfterMetric  = "listenerset_webhook_certificate_not_after_timestamp_seconds"
)

// Values of the certificate label.
const (
	certServing = "serving"
	certCA      = "ca"
)

var (
	notBefore = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: NotBeforeMetric,
		Help: "Start of the validity of the certificate the webhook serves (serving) or of its self-bootstrapped CA (ca), in Unix seconds.",
	}, []string{"certificate"})
	notAfter = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: NotAfterMetric,
		Help: "End of the validity of the certificate the webhook serves (serving) or of its self-bootstrapped CA (ca), in Unix seconds.",
	}, []string{"certificate"})
)

func init() { metrics.Registry.MustRegister(notBefore, notAfter) }

// observeValidity records c's validity as the certificate named kind.
func observeValidity(kind string, c *x509.Certificate) {
	notBefore.WithLabelValues(kind).Set(float64(c.NotBefore.Unix()))
	notAfter.WithLabelValues(kind).Set(float64(c.NotAfter.Unix()))
}

// observedSource is a Source whose served certificate's validity is in the
// gauges: each handshake compares the certificate it gets with the last
// one (a pointer), and only a new one is parsed.
type observedSource struct {
	Source
	last atomic.Pointer[tls.Certificate]
}

// GetCertificate implements Source.
func (o *observedSource) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	c, err := o.Source.GetCertificate(hello)
	if err != nil || c == nil || len(c.Certificate) == 0 || o.last.Swap(c) == c {
		return c, err
	}
	leaf := c.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return c, nil // tls reports what is wrong with it; the gauges keep the last one
		}
	}
	observeValidity(certServing, leaf)
	return c, nil
}
