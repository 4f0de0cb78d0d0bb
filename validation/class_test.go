package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

// The conditions a GatewayClass's status holds in the cases below.
var (
	// pendingCondition is the CRD's default, which kube-apiserver writes
	// into every GatewayClass it stores.
	pendingCondition  = metav1.Condition{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending", Message: "Waiting for controller"}
	acceptedCondition = metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: 1}
	refusedCondition  = metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "InvalidParameters",
		Message: `parametersRef: ConfigMap "gw-params" not found`}
)

// classWith is gatewayClass with the status a controller wrote (conditions
// and supportedFeatures by name).
func classWith(name string, controller gwv1.GatewayController, conditions []metav1.Condition, supported ...features.FeatureName) *gwv1.GatewayClass {
	gc := fixture.GatewayClass(name, controller)
	gc.Status.Conditions = conditions
	for _, f := range supported {
		gc.Status.SupportedFeatures = append(gc.Status.SupportedFeatures, gwv1.SupportedFeature{Name: gwv1.FeatureName(f)})
	}
	return gc
}

// TestClassWarnings: a ListenerSet under a GatewayClass that no controller
// accepted, or whose controller does not list ListenerSet support, is
// warned about (LS317, LS318) when the cluster checks are on and the set is
// Airlock's (or the scope is off and the class is known), and nothing else
// changes; a class without conditions or with an empty feature list says
// nothing.
func TestClassWarnings(t *testing.T) {
	airlock := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	ls := fixture.Attached("gateway-ns", "ls", 0, fixture.Entry("web", 80, gwv1.HTTPProtocolType, "app.example.com"))
	const (
		notAccepted = `GatewayClass "airlock" is not accepted by its controller microgateway.airlock.com/gatewayclass-controller ` +
			`(Accepted is Unknown, reason Pending): the ListenerSet stays Pending and unprogrammed`
		refused = `GatewayClass "airlock" refused by its controller microgateway.airlock.com/gatewayclass-controller: ` +
			`the ListenerSet stays Pending and unprogrammed; InvalidParameters: parametersRef: ConfigMap "gw-params" not found`
		unsupported = `GatewayClass "airlock": its controller microgateway.airlock.com/gatewayclass-controller does not list ListenerSet ` +
			`in status.supportedFeatures: the ListenerSet stays Pending and unprogrammed`
	)
	tests := []struct {
		name  string
		class *gwv1.GatewayClass
		// scope, strict and noClasses/noCluster are the options; the
		// class's controller is Airlock's unless the row says otherwise.
		scope     incluster.Scope
		strict    bool
		noClasses bool
		noCluster bool
		want      findings.Warnings
	}{
		{name: "accepted, ListenerSet supported: nothing",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{acceptedCondition}, features.SupportGateway, features.SupportListenerSet), scope: airlock},
		{name: "pending (the CRD's default): not accepted",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{pendingCondition}), scope: airlock,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted, Message: notAccepted}}},
		{name: "refused: its reason and message",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{refusedCondition}), scope: airlock,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted, Message: refused}}},
		{name: "refused without a message: its reason",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "Unsupported"}}), scope: airlock,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted,
				Message: `GatewayClass "airlock" refused by its controller microgateway.airlock.com/gatewayclass-controller: the ListenerSet stays Pending and unprogrammed; Unsupported`}}},
		{name: "refused with a control character in its message: escaped",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "Invalid", Message: "bad\x1b[31m"}}), scope: airlock,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted,
				Message: `GatewayClass "airlock" refused by its controller microgateway.airlock.com/gatewayclass-controller: the ListenerSet stays Pending and unprogrammed; Invalid: bad\x1b[31m`}}},
		{name: "conditions without Accepted: not accepted",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{{Type: "SupportedVersion", Status: metav1.ConditionTrue, Reason: "SupportedVersion"}}), scope: airlock,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted,
				Message: `GatewayClass "airlock" is not accepted by its controller microgateway.airlock.com/gatewayclass-controller (no Accepted condition): the ListenerSet stays Pending and unprogrammed`}}},
		{name: "no conditions at all (a manifest's class): nothing",
			class: classWith("airlock", incluster.AirlockControllerName, nil), scope: airlock},
		{name: "features without ListenerSet: not supported",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{acceptedCondition}, features.SupportGateway, features.SupportHTTPRoute), scope: airlock,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindListenerSetNotSupported, Code: incluster.CodeListenerSetUnsupported, Message: unsupported}}},
		{name: "an empty feature list: nothing",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{acceptedCondition}), scope: airlock},
		{name: "pending and without ListenerSet: both",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{pendingCondition}, features.SupportGateway), scope: airlock,
			want: findings.Warnings{
				{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted, Message: notAccepted},
				{Path: "spec.parentRef", Kind: incluster.KindListenerSetNotSupported, Code: incluster.CodeListenerSetUnsupported, Message: unsupported},
			}},
		{name: "strict: still warnings",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{pendingCondition}), scope: airlock, strict: true,
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted, Message: notAccepted}}},
		{name: "another implementation's class: not ours, nothing",
			class: classWith("airlock", fixture.EnvoyController, []metav1.Condition{pendingCondition}, features.SupportGateway), scope: airlock},
		{name: "scope off, class known: warned whatever its controller",
			class: classWith("airlock", fixture.EnvoyController, []metav1.Condition{pendingCondition}),
			want: findings.Warnings{{Path: "spec.parentRef", Kind: incluster.KindClassNotAccepted, Code: incluster.CodeClassNotAccepted,
				Message: `GatewayClass "airlock" is not accepted by its controller gateway.envoyproxy.io/gatewayclass-controller (Accepted is Unknown, reason Pending): the ListenerSet stays Pending and unprogrammed`}}},
		{name: "scope off, no class view (the webhook's --scope=all): nothing",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{pendingCondition}), noClasses: true},
		{name: "cluster checks off: nothing",
			class: classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{pendingCondition}), scope: airlock, noCluster: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)}, Classes: []*gwv1.GatewayClass{tt.class}}
			opts := Options{Scope: tt.scope, Classes: c, Cluster: c, Strict: tt.strict}
			if tt.noClasses {
				opts.Classes = nil
			}
			if tt.noCluster {
				opts.Cluster = nil
			}
			r := Judge(ls, nil, opts)
			assert.Zero(t, r.Errors.Total(), "the class is never an error: %v", r.Errors.List())
			assert.Equal(t, tt.want, codedWarnings(t, r.Warnings.List()))
			for _, w := range r.Warnings.List() {
				assert.LessOrEqual(t, len(w.String()), findings.MaxWarningRunes)
			}
		})
	}
}

// TestClassWarningsUnknownClass: a class the view does not have is the
// scope's note's to tell (and only when the rules find something); the
// class rules add nothing.
func TestClassWarningsUnknownClass(t *testing.T) {
	airlock := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	ls := fixture.Attached("gateway-ns", "ls", 0, fixture.Entry("web", 80, gwv1.HTTPProtocolType, "app.example.com"))
	for _, classes := range [][]*gwv1.GatewayClass{nil, {}} {
		c := &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)}, Classes: classes}
		r := Judge(ls, nil, Options{Scope: airlock, Classes: c, Cluster: c})
		require.Equal(t, incluster.OutcomeUnknownJudged, r.Scope.Outcome)
		assert.Nil(t, r.Scope.Class)
		assert.Empty(t, r.Warnings.List())
	}
}

// TestDecisionCarriesTheClass: the class a decision read is the one Judge
// warns from, so the scope and the class rules read the class once.
func TestDecisionCarriesTheClass(t *testing.T) {
	gc := classWith("airlock", incluster.AirlockControllerName, []metav1.Condition{acceptedCondition})
	c := &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)}, Classes: []*gwv1.GatewayClass{gc}}
	ls := fixture.Attached("gateway-ns", "ls", 0, fixture.Entry("web", 80, gwv1.HTTPProtocolType, ""))
	assert.Same(t, gc, incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}.Decide(ls, c).Class, "scope on, Airlock's")
	assert.Same(t, gc, incluster.Scope{ControllerNames: []gwv1.GatewayController{fixture.EnvoyController}}.Decide(ls, c).Class, "scope on, another's")
	assert.Same(t, gc, incluster.Scope{}.Decide(ls, c).Class, "scope off, with a view")
	assert.Nil(t, incluster.Scope{}.Decide(ls, nil).Class, "scope off, no view")
}
