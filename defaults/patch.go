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
// Needed decides before anything is copied or marshalled: kube-apiserver's
// CRD defaulting has usually set everything, and controller-runtime's
// WithDefaulter, which this replaced in the webhook, copied the object and
// compared it with reflect.DeepEqual to find that out: 19 ms of the 2.95 MB
// longest-selector object's 93 ms (BenchmarkHandlerWorst, mutate, idle).
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
// explicit null or empty value they omit), and must not be sent.
// controller-runtime's own filter (dropSchemeRemovals in WithDefaulter)
// dropped only the removals that a patch to the undefaulted object has as
// well; that misses a field inside an object the Go types omit whole
// ("spec": {"x": 1} without parentRef: that patch removes /spec, this one
// /spec/x, and x would be removed).
func WithoutRemovals(ops []jsonpatch.JsonPatchOperation) []jsonpatch.JsonPatchOperation {
	return slices.DeleteFunc(ops, func(op jsonpatch.JsonPatchOperation) bool { return op.Operation == "remove" })
}
