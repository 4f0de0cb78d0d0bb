package defaults

import (
	"encoding/json"
	"testing"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gomodules.xyz/jsonpatch/v2"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/randfill"
)

func TestWithoutRemovals(t *testing.T) {
	add := jsonpatch.NewOperation("add", "/spec/listeners/0/tls/mode", "Terminate")
	replace := jsonpatch.NewOperation("replace", "/spec/parentRef/kind", "Gateway")
	remove := jsonpatch.NewOperation("remove", "/spec/listeners/0/filters", nil)
	assert.Equal(t, []jsonpatch.JsonPatchOperation{add, replace},
		WithoutRemovals([]jsonpatch.JsonPatchOperation{remove, add, remove, replace}))
	assert.Empty(t, WithoutRemovals([]jsonpatch.JsonPatchOperation{remove}))
}

// TestPatch: on random objects with a field the Go types do not know, the
// patch applied to the object as sent gives the defaulted object and keeps
// that field, has no removal, and a second Patch of the
// result is empty; an object with nothing to default gets none.
func TestPatch(t *testing.T) {
	patched := 0
	for seed := int64(0); seed < 2000; seed++ {
		ls := &gwv1.ListenerSet{}
		randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).MaxDepth(12).Fill(&ls.Spec)
		raw, err := json.Marshal(ls)
		require.NoError(t, err)
		// A field the Go types do not know (a newer CRD's): the patch
		// must keep it.
		var obj map[string]any
		require.NoError(t, json.Unmarshal(raw, &obj))
		obj["newerField"] = seed
		raw, err = json.Marshal(obj)
		require.NoError(t, err)
		needed := Needed(ls)
		ops, err := Patch(raw, ls)
		require.NoError(t, err)
		if !needed {
			require.Empty(t, ops, "seed %d: a patch for an object with nothing to default", seed)
			continue
		}
		require.NotEmpty(t, ops, "seed %d", seed)
		patched++
		for _, op := range ops {
			require.NotEqual(t, "remove", op.Operation, "seed %d: %s", seed, op.Path)
		}
		opsJSON, err := json.Marshal(ops)
		require.NoError(t, err)
		p, err := jsonpatchapply.DecodePatch(opsJSON)
		require.NoError(t, err)
		after, err := p.Apply(raw)
		require.NoError(t, err, "seed %d", seed)
		require.Contains(t, string(after), `"newerField":`, "seed %d: the patch removed a field it does not know", seed)
		again := &gwv1.ListenerSet{}
		require.NoError(t, json.Unmarshal(after, again))
		want, err := json.Marshal(ls)
		require.NoError(t, err)
		got, err := json.Marshal(again)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got), "seed %d: the patched object is not the defaulted one", seed)
		ops, err = Patch(after, again)
		require.NoError(t, err)
		require.Empty(t, ops, "seed %d: a second patch", seed)
	}
	if patched < 100 {
		t.Fatalf("%d of 2000 random objects were patched: the test does not exercise the patch", patched)
	}
}
