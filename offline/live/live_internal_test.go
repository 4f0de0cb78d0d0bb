package live

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestSelectSets: --namespace and --gateway select by the set's namespace
// and by its parentRef (whose namespace defaults to the set's), in list
// order; both at once select what both select.
func TestSelectSets(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := vt.TenantSet("team-a", "a", t0)
	b := vt.TenantSet("team-b", "b", t0)
	local := vt.TenantSet("team-a", "local", t0)
	local.Spec.ParentRef = gwv1.ParentGatewayReference{Name: "own"}
	other := vt.TenantSet("team-b", "other", t0)
	other.Spec.ParentRef.Namespace = ptr.To[gwv1.Namespace]("team-b")
	sets := []*gwv1.ListenerSet{a, local, b, other}
	shared := vt.SharedGatewayNamespace + "/" + vt.SharedGatewayName

	for _, tt := range []struct {
		name string
		opts Options
		want []*gwv1.ListenerSet
	}{
		{"all", Options{}, sets},
		{"namespace", Options{Namespace: "team-a"}, []*gwv1.ListenerSet{a, local}},
		{"gateway", Options{Gateway: shared}, []*gwv1.ListenerSet{a, b}},
		{"parentRef without namespace", Options{Gateway: "team-a/own"}, []*gwv1.ListenerSet{local}},
		{"both", Options{Namespace: "team-b", Gateway: shared}, []*gwv1.ListenerSet{b}},
		{"none", Options{Namespace: "nobody"}, []*gwv1.ListenerSet{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, selectSets(sets, tt.opts))
		})
	}
}

// TestRBACRules: list and nothing else, on the kinds Read lists;
// gatewayclasses only when the scope reads them.
func TestRBACRules(t *testing.T) {
	for _, secrets := range []bool{false, true} {
		for _, classes := range []bool{false, true} {
			var resources []string
			for _, r := range RBACRules(secrets, classes) {
				assert.Equal(t, []string{"list"}, r.Verbs)
				resources = append(resources, r.Resources...)
			}
			want := []string{"gateways", "listenersets", "referencegrants"}
			if classes {
				want = append(want, "gatewayclasses")
			}
			want = append(want, "httproutes", "namespaces")
			if secrets {
				want = append(want, "secrets")
			}
			assert.Equal(t, want, resources)
		}
	}
	assert.Equal(t, []string{"list on gateways, listenersets, referencegrants, gatewayclasses, httproutes (gateway.networking.k8s.io)", "list on namespaces (core)"},
		DescribeRules(RBACRules(false, true)))
	// What listeners reads: no ReferenceGrants.
	assert.Equal(t, []string{"list on gateways, listenersets (gateway.networking.k8s.io)", "list on namespaces (core)"},
		DescribeRules(KindRules(Kinds{})))
	assert.Equal(t, []string{"list on gateways, listenersets, gatewayclasses (gateway.networking.k8s.io)", "list on namespaces (core)"},
		DescribeRules(KindRules(Kinds{GatewayClasses: true})))
}
