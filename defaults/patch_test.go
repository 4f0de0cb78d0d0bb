package defaults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"gomodules.xyz/jsonpatch/v2"
)

func TestWithoutRemovals(t *testing.T) {
	add := jsonpatch.NewOperation("add", "/spec/listeners/0/tls/mode", "Terminate")
	replace := jsonpatch.NewOperation("replace", "/spec/parentRef/kind", "Gateway")
	remove := jsonpatch.NewOperation("remove", "/spec/listeners/0/filters", nil)
	assert.Equal(t, []jsonpatch.JsonPatchOperation{add, replace},
		WithoutRemovals([]jsonpatch.JsonPatchOperation{remove, add, remove, replace}))
	assert.Empty(t, WithoutRemovals([]jsonpatch.JsonPatchOperation{remove}))
}
