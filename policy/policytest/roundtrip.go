package policytest

import (
	"encoding/json"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// RoundTrip is ls as kube-apiserver hands it to admission: JSON (invalid
// UTF-8 replaced), decoded both ways; nil for nil.
func RoundTrip(t testing.TB, ls *gwv1.ListenerSet) (*gwv1.ListenerSet, map[string]any) {
	t.Helper()
	if ls == nil {
		return nil, nil
	}
	data, err := json.Marshal(ls)
	if err != nil {
		t.Fatal(err)
	}
	var typed gwv1.ListenerSet
	var obj map[string]any
	if err := json.Unmarshal(data, &typed); err != nil {
		t.Fatal(err)
	}
	// as unstructured objects hold numbers: int64, not float64
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return &typed, obj
}
