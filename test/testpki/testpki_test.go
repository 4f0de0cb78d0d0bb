package testpki_test

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testpki"
)

func TestIssuedCertificatesVerifyForTheirHosts(t *testing.T) {
	ca := testpki.NewCA(t)
	assert.True(t, ca.Cert.IsCA)
	leaf := ca.Issue(t, []string{"127.0.0.1", "localhost"})
	assert.Equal(t, []string{"localhost"}, leaf.Cert.DNSNames)
	require.Len(t, leaf.Cert.IPAddresses, 1)
	assert.IsType(t, &ecdsa.PublicKey{}, leaf.Cert.PublicKey)
	for _, host := range []string{"127.0.0.1", "localhost"} {
		_, err := leaf.Cert.Verify(x509.VerifyOptions{DNSName: host, Roots: ca.Pool()})
		assert.NoError(t, err, host)
	}
	_, err := leaf.Cert.Verify(x509.VerifyOptions{DNSName: "other", Roots: ca.Pool()})
	assert.Error(t, err, "a host it was not issued for")
	_, err = leaf.Cert.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: testpki.NewCA(t).Pool()})
	assert.Error(t, err, "another CA")
	assert.NotEqual(t, leaf.Serial(), ca.Issue(t, []string{"localhost"}).Serial(), "every certificate has a serial of its own")
}

func TestOptions(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ca := testpki.NewCA(t, testpki.RSA(), testpki.CommonName("a"), testpki.Valid(from, time.Hour))
	assert.Equal(t, "a", ca.Cert.Subject.CommonName)
	assert.IsType(t, &rsa.PublicKey{}, ca.Cert.PublicKey)
	assert.Equal(t, from, ca.Cert.NotBefore)
	assert.Equal(t, from.Add(time.Hour), ca.Cert.NotAfter)

	leaf := ca.Issue(t, []string{"x"}, testpki.RSA(), testpki.CommonName("b"), testpki.Valid(from, time.Hour))
	assert.Equal(t, "b", leaf.Cert.Subject.CommonName)
	assert.IsType(t, &rsa.PublicKey{}, leaf.Cert.PublicKey)
	assert.NotZero(t, leaf.Cert.KeyUsage&x509.KeyUsageKeyEncipherment, "RSA key exchange encrypts to the key")
	_, err := leaf.Cert.Verify(x509.VerifyOptions{DNSName: "x", Roots: ca.Pool(), CurrentTime: from.Add(time.Minute)})
	assert.NoError(t, err)
}
