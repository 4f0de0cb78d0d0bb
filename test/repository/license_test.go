package repository

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// apacheLicenseSHA256 is the SHA-256 of the Apache License 2.0's canonical
// text, https://www.apache.org/licenses/LICENSE-2.0.txt, byte for byte (the
// file Kubernetes' modules carry as their LICENSE).
const apacheLicenseSHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

// TestLicense: the project is Apache-2.0: LICENSE at the root is the
// license's standard text unchanged, and the chart's metadata names it
// (hack/release.sh copies that into the krew manifest; the archives and the
// image carry LICENSE: test/release and test/image check them).
func TestLicense(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	require.NoError(t, err, "LICENSE at the repository's root")
	sum := sha256.Sum256(text)
	assert.Equal(t, apacheLicenseSHA256, hex.EncodeToString(sum[:]), "LICENSE is not the Apache License 2.0's canonical text")
	assert.Contains(t, string(text), "Apache License\n                           Version 2.0, January 2004")

	chart, err := os.ReadFile(filepath.Join(root, "charts/listenerset-webhook/Chart.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(chart), "\nannotations:\n", "Chart.yaml has annotations")
	assert.Contains(t, strings.Split(string(chart), "\n"), "  artifacthub.io/license: Apache-2.0", "Chart.yaml's license annotation")
}
