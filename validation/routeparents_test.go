package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

// TestJudgeRoute: a route's parentRefs to ListenerSets it attaches to none
// of give one finding each, with the reason its status will carry; one that
// attaches, a Gateway parent, and a set of another implementation give none.
func TestJudgeRoute(t *testing.T) {
	ls, _ := detachFixture() // team-a/ls: web (HTTP 80, shop.example.com), api (HTTP 8080)
	other := attachSet(httpListener(""))
	other.Name, other.Spec.ParentRef.Name = "foreign", "envoy"
	c := &incluster.Objects{Sets: []*gwv1.ListenerSet{ls, other},
		Gateways: []*gwv1.Gateway{
			{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gw"}, Spec: gwv1.GatewaySpec{GatewayClassName: "airlock"}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "envoy"}, Spec: gwv1.GatewaySpec{GatewayClassName: "envoy"}}},
		Classes: []*gwv1.GatewayClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "airlock"}, Spec: gwv1.GatewayClassSpec{ControllerName: incluster.AirlockControllerName}},
			{ObjectMeta: metav1.ObjectMeta{Name: "envoy"}, Spec: gwv1.GatewayClassSpec{ControllerName: "gateway.envoyproxy.io/gatewayclass-controller"}}},
	}
	ref := func(name, section string) gwv1.ParentReference {
		r := lsRef()
		r.Name, r.Namespace = gwv1.ObjectName(name), ptr.To[gwv1.Namespace]("team-a")
		if section != "" {
			r.SectionName = ptr.To(gwv1.SectionName(section))
		}
		return r
	}
	r := route("team-b", "cart.example.com")
	r.Spec.ParentRefs = []gwv1.ParentReference{
		ref("ls", "www"),      // no such listener
		ref("gone", ""),       // no such set
		ref("ls", "web"),      // team-b not allowed (from Same)
		{Name: "gw"},          // a Gateway: out of scope
		ref("foreign", "www"), // another implementation's set
	}
	scope := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	got := codedWarnings(t, JudgeRoute(r, nil, Options{Cluster: c, Scope: scope, Classes: c}).Warnings.List()).Strings()
	assert.Equal(t, []string{
		`spec.parentRefs[0]: attaches to no listener of ListenerSet team-a/ls: no listener named "www" (NoMatchingParent)`,
		`spec.parentRefs[1]: ListenerSet team-a/gone not found (NoMatchingParent)`,
		`spec.parentRefs[2]: attaches to no listener of ListenerSet team-a/ls: namespace "team-b" not allowed by listener "web" (allowedRoutes.namespaces.from: Same) (NotAllowedByListeners)`,
	}, got)

	same := route("team-a", "cart.example.com")
	same.Spec.ParentRefs = []gwv1.ParentReference{ref("ls", "web"), ref("ls", "")}
	assert.Equal(t, []string{
		`spec.parentRefs[0]: attaches to no listener of ListenerSet team-a/ls: no hostname of the route intersects hostname shop.example.com of listener "web" (NoMatchingListenerHostname)`,
	}, codedWarnings(t, JudgeRoute(same, nil, Options{Cluster: c}).Warnings.List()).Strings(), "the whole set attaches by api")

	admit := incluster.Scope{ControllerNames: scope.ControllerNames, Unknown: incluster.UnknownAdmit}
	assert.Len(t, JudgeRoute(r, nil, Options{Cluster: c, Scope: admit, Classes: c}).Warnings.List(), 2, "a missing set is an unknown parent: admitted")
	assert.Empty(t, JudgeRoute(r, nil, Options{Cluster: &incluster.Objects{}}).Warnings.List(), "ListenerSets unknown: nothing")
}
