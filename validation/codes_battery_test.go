package validation_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestEveryFindingHasACode: every error and warning the examples, the fuzz
// seeds, the worst objects and the most-rivals objects earn has its code
// (validation.Coded), as a create, as an unchanged update (ratcheted), and
// with enforcement warn (would deny); the tables of the other tests check
// theirs the same way.
func TestEveryFindingHasACode(t *testing.T) {
	type input struct {
		name string
		ls   *gwv1.ListenerSet
		old  *gwv1.ListenerSet
		opts validation.Options
	}
	var objects []input
	examples, err := validationtest.Examples("..")
	require.NoError(t, err)
	for _, e := range examples {
		objects = append(objects, input{name: e.Path, ls: e.ListenerSet})
	}
	seeds, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzValidateListenerSet", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, seeds)
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, quoted, ok := strings.Cut(strings.TrimSpace(string(data)), "[]byte(")
		require.True(t, ok, f)
		seed, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
		require.NoError(t, err, f)
		objects = append(objects, input{name: f, ls: validationtest.FuzzListenerSet([]byte(seed))})
	}
	for _, s := range validationtest.WorstShapes {
		ls, old := worstCase(s, object.MaxListeners)
		objects = append(objects, input{name: s.Name, ls: ls, old: old})
	}
	for _, shape := range validationtest.MostRivalsShapes {
		ls, rivals := validationtest.MostRivals(shape, 100)
		for _, strict := range []bool{false, true} {
			objects = append(objects, input{name: string(shape), ls: ls,
				opts: validation.Options{Cluster: validationtest.SharedCluster(rivals), Strict: strict}})
		}
	}
	for _, o := range objects {
		t.Run(o.name, func(t *testing.T) {
			for _, old := range []*gwv1.ListenerSet{o.old, o.ls} {
				r := validation.Judge(o.ls, old, o.opts)
				validation.Coded(t, r.Errors.List())
				validation.CodedWarnings(t, r.Warnings.List())
				r.ErrorsAsWarnings()
				validation.CodedWarnings(t, r.Warnings.List())
			}
		})
	}
}
