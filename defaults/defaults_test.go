package defaults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/golden"
)

// TestGolden defaults every testdata/*.in.yaml and compares with the
// .out.yaml next to it. UPDATE_GOLDEN=1 rewrites the outputs for review.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.in.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			ls := read(t, in)
			ListenerSet(ls)
			got, err := yaml.Marshal(ls)
			require.NoError(t, err)

			golden.Assert(t, strings.TrimSuffix(in, ".in.yaml")+".out.yaml", string(got))
		})
	}
}

// TestIdempotent: a second pass must change nothing, or the mutating webhook
// would patch objects it already patched.
func TestIdempotent(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.in.yaml")
	require.NoError(t, err)
	for _, in := range inputs {
		once := read(t, in)
		ListenerSet(once)
		twice := once.DeepCopy()
		ListenerSet(twice)
		assert.True(t, equality.Semantic.DeepEqual(once, twice), in)
	}
}

// TestOnlyFillsUnset: a set value, even an invalid one, is validation's to
// judge; defaulting must never hide it.
func TestOnlyFillsUnset(t *testing.T) {
	ls := read(t, "testdata/set-values-kept.in.yaml")
	want := ls.DeepCopy()
	ListenerSet(ls)
	assert.Equal(t, want, ls)
}

func read(t *testing.T, path string) *gwv1.ListenerSet {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	ls := &gwv1.ListenerSet{}
	require.NoError(t, yaml.UnmarshalStrict(data, ls))
	return ls
}
