package validation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// TestRouteCaptureSelector: a listener without a hostname whose
// allowedRoutes is a Selector is warned about (LS206) unless the selector
// pins kubernetes.io/metadata.name to the set's own namespace, which only
// that namespace can match (kube-apiserver sets the label to each
// Namespace's name); a selector another namespace could match is warned,
// each shape a row.
func TestRouteCaptureSelector(t *testing.T) {
	const own = "team-b"
	name := corev1.LabelMetadataName
	expr := func(op metav1.LabelSelectorOperator, key string, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	for _, tc := range []struct {
		shape    string
		selector *metav1.LabelSelector
		warned   bool
	}{
		{shape: "matchLabels: its own name", selector: &metav1.LabelSelector{MatchLabels: map[string]string{name: own}}},
		{shape: "matchExpressions In its own name alone", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr(metav1.LabelSelectorOpIn, name, own)}}},
		{shape: "its own name, and another key alongside", selector: &metav1.LabelSelector{MatchLabels: map[string]string{name: own, "team": "b"}}},
		{shape: "its own name, and NotIn alongside", selector: &metav1.LabelSelector{MatchLabels: map[string]string{name: own},
			MatchExpressions: []metav1.LabelSelectorRequirement{expr(metav1.LabelSelectorOpNotIn, "env", "prod")}}},
		{shape: "matchLabels: another namespace's name", selector: &metav1.LabelSelector{MatchLabels: map[string]string{name: "team-a"}}, warned: true},
		{shape: "In its own name and another", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr(metav1.LabelSelectorOpIn, name, own, "team-a")}}, warned: true},
		{shape: "NotIn another name", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr(metav1.LabelSelectorOpNotIn, name, "team-a")}}, warned: true},
		{shape: "NotIn its own name", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr(metav1.LabelSelectorOpNotIn, name, own)}}, warned: true},
		{shape: "Exists", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr(metav1.LabelSelectorOpExists, name)}}, warned: true},
		{shape: "another key only", selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}, warned: true},
		{shape: "its own name under another key", selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": own}}, warned: true},
		{shape: "empty", selector: &metav1.LabelSelector{}, warned: true},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			e := fixture.Entry("open", 9090, "HTTP", "")
			e.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector), Selector: tc.selector}}
			ls := fixture.Attached(own, "b", 9, e)
			errs, warnings := Validate(ls, nil, Options{})
			assert.Empty(t, coded(t, errs))
			var want []string
			if tc.warned {
				want = []string{"spec.listeners[0].allowedRoutes.namespaces.from: " + fmt.Sprintf(object.WarnRouteCapture, gwv1.NamespacesFromSelector)}
			}
			assert.Equal(t, want, codedWarnings(t, warnings).Strings())

			// With a hostname the selector does not matter: no capture.
			e.Hostname = ptr.To[gwv1.Hostname]("b.example.com")
			_, warnings = Validate(fixture.Attached(own, "b", 9, e), nil, Options{})
			assert.Empty(t, warnings.Strings())
		})
	}
}
