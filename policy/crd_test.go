package policy_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/crdcheck"
)

// The policy runs in kube-apiserver's validating admission, after the
// object has been decoded with the CRD's schema (pruned, defaulted) and has
// passed the CRD's schema and rules; its fast path leaves to the CRD
// what the CRD enforces (fast.go). So the whole policy is judged on objects
// as the CRD hands them over, and its rules alone (the policy without the
// fast path) on anything.

var crd = sync.OnceValues(crdcheck.Default)

// throughCRD is ls as kube-apiserver hands a create of it to validating
// admission (the embedded v1.6.3 CRD's decoding and defaults), the same
// object typed, and whether the CRD admits it at all.
func throughCRD(t testing.TB, ls *gwv1.ListenerSet) (map[string]any, *gwv1.ListenerSet, bool) {
	t.Helper()
	c, err := crd()
	if err != nil {
		t.Fatal(err)
	}
	ls = ls.DeepCopy()
	ls.APIVersion, ls.Kind = gwv1.GroupVersion.String(), "ListenerSet"
	raw, err := json.Marshal(ls)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DecodeCreate(raw)
	if err != nil {
		return nil, nil, false
	}
	data, err := json.Marshal(d.Object.Object)
	if err != nil {
		t.Fatal(err)
	}
	var typed gwv1.ListenerSet
	if err := json.Unmarshal(data, &typed); err != nil {
		t.Fatal(err)
	}
	errs, _ := c.ValidateCreate(context.Background(), d.Object)
	return d.Object.Object, &typed, len(errs) == 0
}

// crdDefaulted is ls decoded and defaulted as the CRD does, whether or not
// the CRD admits it.
func crdDefaulted(t testing.TB, ls *gwv1.ListenerSet) map[string]any {
	t.Helper()
	obj, _, _ := throughCRD(t, ls)
	if obj == nil {
		t.Fatal("the CRD cannot decode the object")
	}
	return obj
}
