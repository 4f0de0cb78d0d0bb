package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the node's own CA and the certificates signed by it: kube-apiserver's
// serving certificate (for 127.0.0.1, the node's address and the kubernetes
// Service's ClusterIP, so that a pod's in-cluster client verifies it) and one
// admin client certificate (system:masters) that every component and the
// tests use; and the service account signing key. Files in dir.
type pki struct {
	dir                       string
	caCert, caKey             string
	servingCert, servingKey   string
	adminCert, adminKey       string
	saKey, saPub              string
	caPEM                     []byte
	adminCertPEM, adminKeyPEM []byte
}

func newPKI(dir string, ips []net.IP, dnsNames []string) (*pki, error) {
	p := &pki{dir: dir,
		caCert: filepath.Join(dir, "ca.crt"), caKey: filepath.Join(dir, "ca.key"),
		servingCert: filepath.Join(dir, "apiserver.crt"), servingKey: filepath.Join(dir, "apiserver.key"),
		adminCert: filepath.Join(dir, "admin.crt"), adminKey: filepath.Join(dir, "admin.key"),
		saKey: filepath.Join(dir, "sa.key"), saPub: filepath.Join(dir, "sa.pub"),
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	now := time.Now().Add(-time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "listenerset-webhook node CA"},
		NotBefore: now, NotAfter: now.Add(48 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	p.caPEM = pemOf("CERTIFICATE", caDER)
	if err := writeKeyPair(p.caCert, p.caKey, caDER, caKey); err != nil {
		return nil, err
	}
	issue := func(serial int64, subj pkix.Name, usage x509.ExtKeyUsage, certFile, keyFile string) ([]byte, []byte, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: subj, NotBefore: now, NotAfter: now.Add(48 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		}
		if usage == x509.ExtKeyUsageServerAuth {
			tmpl.IPAddresses, tmpl.DNSNames = ips, dnsNames
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
		if err != nil {
			return nil, nil, err
		}
		if err := writeKeyPair(certFile, keyFile, der, key); err != nil {
			return nil, nil, err
		}
		kb, _ := x509.MarshalPKCS8PrivateKey(key)
		return pemOf("CERTIFICATE", der), pemOf("PRIVATE KEY", kb), nil
	}
	if _, _, err := issue(2, pkix.Name{CommonName: "kube-apiserver"}, x509.ExtKeyUsageServerAuth, p.servingCert, p.servingKey); err != nil {
		return nil, err
	}
	if p.adminCertPEM, p.adminKeyPEM, err = issue(3, pkix.Name{CommonName: "node-admin", Organization: []string{"system:masters"}},
		x509.ExtKeyUsageClientAuth, p.adminCert, p.adminKey); err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	pub, _ := x509.MarshalPKIXPublicKey(saKey.Public())
	if err := os.WriteFile(p.saKey, pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.saPub, pemOf("PUBLIC KEY", pub), 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func writeKeyPair(certFile, keyFile string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, pemOf("CERTIFICATE", der), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pemOf("PRIVATE KEY", kb), 0o600)
}
