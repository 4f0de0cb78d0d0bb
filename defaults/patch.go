package defaults

import (
	"encoding/json"
	"slices"

	"gomodules.xyz/jsonpatch/v2"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Patch defaults ls, decoded from raw, in place and returns the JSON patch
// that takes raw to it, as the mutating webhook sends it: none when nothing
// is unset (Needed), and never a removal (WithoutRemovals). The webhook and
// the offline command both call it, so that they patch alike.
//
// Needed decides before anything is marshalled: kube-apiserver's CRD
// defaulting has usually set everything already.
func Patch(raw []byte, ls *gwv1.ListenerSet) ([]jsonpatch.JsonPatchOperation, error) {
	if !Needed(ls) {
		return nil, nil
	}
	ListenerSet(ls)
	defaulted, err := json.Marshal(ls)
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.CreatePatch(raw, defaulted)
	if err != nil {
		return nil, err
	}
	return WithoutRemovals(ops), nil
}

// WithoutRemovals is a defaulting patch as the mutating webhook sends it:
// ops without its "remove" operations. Defaulting only sets what is unset,
// so a removal in a patch from the object as sent to the defaulted Go value
// can only come from what the Go types drop (a newer CRD's field, an
// explicit null or empty value they omit, or a field inside an object they
// omit whole: "spec": {"x": 1} without parentRef), and must not be sent.
func WithoutRemovals(ops []jsonpatch.JsonPatchOperation) []jsonpatch.JsonPatchOperation {
	return slices.DeleteFunc(ops, func(op jsonpatch.JsonPatchOperation) bool { return op.Operation == "remove" })
}
