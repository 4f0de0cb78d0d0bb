package chart

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/cert-manager/cert-manager/pkg/util/pki"
	"github.com/stretchr/testify/require"
)

// errorRecorder is a testing.TB that records Errorf instead of failing.
type errorRecorder struct {
	testing.TB
	errors []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheckNoSecretsInLog shows that the log check the end-to-end tests run
// on every webhook process can fail: each way a key could be printed is caught.
func TestCheckNoSecretsInLog(t *testing.T) {
	key, err := pki.GenerateECPrivateKey(256)
	require.NoError(t, err)
	keyPEM, err := pki.EncodePKCS8PrivateKey(key)
	require.NoError(t, err)
	noteSecret(keyPEM)
	der := strings.Split(string(keyPEM), "\n")[1] // a base64 line of the key's DER

	for name, log := range map[string]string{
		"PEM":            `{"msg":"loaded","key":"` + string(keyPEM) + `"}`,
		"Secret data":    `{"data":{"tls.key":"` + base64.StdEncoding.EncodeToString(keyPEM) + `"}}`,
		"a line of DER":  `key material ` + der,
		"clean log line": `{"level":"info","msg":"Serving webhook server","port":9443}`,
	} {
		rec := &errorRecorder{TB: t}
		checkNoSecretsInLog(rec, "webhook", log)
		if name == "clean log line" {
			require.Empty(t, rec.errors, name)
		} else {
			require.NotEmpty(t, rec.errors, name)
		}
	}
}
