// Package testpki is the certificate authority of the tests: a CA made for
// one test, which issues serving certificates for hosts, with an ECDSA P-256
// key or, where a test needs one, an RSA key, valid from an hour ago for a
// day unless told otherwise. It is built on cert-manager's pki package.
//
// It stands apart from the product's certificate code (webhook/certs) and
// does not import it: the tests check that code against certificates it did
// not make, and webhook/certs' own tests can use this package.
package testpki

import (
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"testing"
	"time"

	"github.com/cert-manager/cert-manager/pkg/util/pki"
)

// Option changes a certificate that NewCA or Issue makes.
type Option func(*spec)

type spec struct {
	commonName string
	notBefore  time.Time
	validity   time.Duration
	rsa        bool
}

// CommonName sets the subject's common name.
func CommonName(name string) Option { return func(s *spec) { s.commonName = name } }

// Valid makes the certificate valid from notBefore for validity.
func Valid(notBefore time.Time, validity time.Duration) Option {
	return func(s *spec) { s.notBefore, s.validity = notBefore, validity }
}

// RSA gives the certificate a 2048-bit RSA key instead of an ECDSA P-256
// one (TLS 1.2's ECDHE_RSA and RSA key exchange suites need one).
func RSA() Option { return func(s *spec) { s.rsa = true } }

func newSpec(commonName string, opts []Option) spec {
	s := spec{commonName: commonName, notBefore: time.Now().Add(-time.Hour), validity: 25 * time.Hour}
	for _, o := range opts {
		o(&s)
	}
	return s
}

func (s spec) template() *x509.Certificate {
	// No SerialNumber: x509.CreateCertificate draws a random one, so that
	// every certificate of a test tells apart by its serial.
	return &x509.Certificate{
		Subject:   pkix.Name{CommonName: s.commonName},
		NotBefore: s.notBefore, NotAfter: s.notBefore.Add(s.validity),
		BasicConstraintsValid: true,
	}
}

func (s spec) key(t testing.TB) crypto.Signer {
	t.Helper()
	var (
		key crypto.Signer
		err error
	)
	if s.rsa {
		key, err = pki.GenerateRSAPrivateKey(2048)
	} else {
		key, err = pki.GenerateECPrivateKey(pki.ECCurve256)
	}
	if err != nil {
		t.Fatalf("testpki: generating a key: %v", err)
	}
	return key
}

// CA is a self-signed certificate authority.
type CA struct {
	// Cert is the CA certificate, CertPEM the same as PEM: what a caBundle
	// or a ca.crt holds.
	Cert    *x509.Certificate
	CertPEM []byte
	key     crypto.Signer
}

// NewCA makes a CA ("testpki CA" unless CommonName says otherwise).
func NewCA(t testing.TB, opts ...Option) *CA {
	t.Helper()
	s := newSpec("testpki CA", opts)
	key := s.key(t)
	tmpl := s.template()
	tmpl.IsCA = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	certPEM, cert, err := pki.SignCertificate(tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatalf("testpki: signing the CA: %v", err)
	}
	return &CA{Cert: cert, CertPEM: certPEM, key: key}
}

// Pool holds the CA alone: what a client that trusts it verifies against.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Leaf is a serving certificate and its key.
type Leaf struct {
	Cert *x509.Certificate
	// CertPEM is Cert as PEM (tls.crt), KeyPEM the key as PKCS#8 PEM (tls.key).
	CertPEM, KeyPEM []byte
}

// Serial is the certificate's serial number in decimal.
func (l Leaf) Serial() string { return l.Cert.SerialNumber.String() }

// Issue signs a new serving certificate (ServerAuth) with a new key for
// hosts: each one an IP address or a DNS name. Its common name is
// "listenerset-webhook" unless CommonName says otherwise.
func (ca *CA) Issue(t testing.TB, hosts []string, opts ...Option) Leaf {
	t.Helper()
	s := newSpec("listenerset-webhook", opts)
	key := s.key(t)
	tmpl := s.template()
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if s.rsa {
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment // TLS_RSA_* suites encrypt to the key
	}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			continue
		}
		tmpl.DNSNames = append(tmpl.DNSNames, h)
	}
	certPEM, cert, err := pki.SignCertificate(tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		t.Fatalf("testpki: signing a certificate for %v: %v", hosts, err)
	}
	keyPEM, err := pki.EncodePKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("testpki: encoding the key: %v", err)
	}
	return Leaf{Cert: cert, CertPEM: certPEM, KeyPEM: keyPEM}
}
