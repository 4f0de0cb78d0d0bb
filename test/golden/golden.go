// Package golden compares a test's output with its golden file, the one
// convention of the repository's golden tests: UPDATE_GOLDEN=1 rewrites
// the files from the current output (then review the diff).
package golden

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Update is true when the golden files are to be rewritten.
var Update = os.Getenv("UPDATE_GOLDEN") == "1"

// Assert wants got to be path's content; with Update it writes got there
// first.
func Assert(t testing.TB, path, got string) {
	t.Helper()
	if Update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; run with UPDATE_GOLDEN=1")
	assert.Equal(t, string(want), got)
}

// Generated wants path to hold exactly want, a file generated from the Go
// code (the chart's files/webhooks.yaml, docs/codes.md); with update it
// writes want there first. A stale file fails, naming regenerate, the
// command that rewrites it.
func Generated(t testing.TB, path string, want []byte, update bool, regenerate string) {
	t.Helper()
	if update {
		require.NoError(t, os.WriteFile(path, want, 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: regenerate it with %s", path, regenerate)
	}
}
