package defaults

import (
	"slices"

	"gomodules.xyz/jsonpatch/v2"
)

// WithoutRemovals is a defaulting patch as the mutating webhook sends it:
// ops without its "remove" operations. Defaulting only sets what is unset,
// so a removal in a patch from the object as sent to the defaulted Go value
// can only come from what the Go types drop (a newer CRD's field, an
// explicit null or empty value they omit), and must not be sent. The webhook
// and the offline command both apply it, so that they patch alike.
func WithoutRemovals(ops []jsonpatch.JsonPatchOperation) []jsonpatch.JsonPatchOperation {
	return slices.DeleteFunc(ops, func(op jsonpatch.JsonPatchOperation) bool { return op.Operation == "remove" })
}
