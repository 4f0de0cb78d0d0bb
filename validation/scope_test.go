package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

const envoyController gwv1.GatewayController = "gateway.envoyproxy.io/gatewayclass-controller"

func gatewayClass(name string, controller gwv1.GatewayController) *gwv1.GatewayClass {
	return &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: gwv1.GatewayClassSpec{ControllerName: controller}}
}

func gatewayOfClass(class string) *gwv1.Gateway {
	gw := gateway(gwv1.NamespacesFromAll)
	gw.Spec.GatewayClassName = gwv1.ObjectName(class)
	return gw
}

// foreignSet is what another implementation serves and Airlock cannot: a
// TCP listener, an HTTPS listener with two certificateRefs.
func foreignSet() *gwv1.ListenerSet {
	ls := attached("team", "envoy-tcp", 0,
		gwv1.ListenerEntry{Name: "tcp", Port: 9000, Protocol: gwv1.TCPProtocolType},
		gwv1.ListenerEntry{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, TLS: &gwv1.ListenerTLSConfig{
			Mode:            ptr.To(gwv1.TLSModeTerminate),
			CertificateRefs: []gwv1.SecretObjectReference{{Name: "a"}, {Name: "b"}},
		}})
	return ls
}

func TestScopeDecide(t *testing.T) {
	airlock := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	admit := incluster.Scope{ControllerNames: airlock.ControllerNames, Unknown: incluster.UnknownAdmit}
	two := incluster.Scope{ControllerNames: []gwv1.GatewayController{"microgateway.airlock.com/second", incluster.AirlockControllerName}}
	classes := []*gwv1.GatewayClass{gatewayClass("airlock", incluster.AirlockControllerName), gatewayClass("envoy", envoyController)}
	known := func(class string) *incluster.Objects {
		return &incluster.Objects{Gateways: []*gwv1.Gateway{gatewayOfClass(class)}, Classes: classes}
	}
	otherParent := foreignSet()
	otherParent.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service")
	tests := []struct {
		name    string
		scope   incluster.Scope
		classes views.Classes
		ls      *gwv1.ListenerSet
		want    incluster.Outcome
		judge   bool
		// note is the start of the note's message; "" for none.
		note string
	}{
		{"scope off judges everything", incluster.Scope{}, known("envoy"), foreignSet(), incluster.OutcomeUnscoped, true, ""},
		{"Airlock's class", airlock, known("airlock"), foreignSet(), incluster.OutcomeAirlock, true, ""},
		{"another implementation's class", airlock, known("envoy"), foreignSet(), incluster.OutcomeOther, false, ""},
		{"one of several controller names", two, known("airlock"), foreignSet(), incluster.OutcomeAirlock, true, ""},
		{"Gateway not found, judged", airlock, &incluster.Objects{Gateways: []*gwv1.Gateway{}, Classes: classes}, foreignSet(), incluster.OutcomeUnknownJudged, true,
			"Gateway gateway-ns/gw is unknown (not found), so Airlock Microgateway's rules apply"},
		{"Gateway not read yet, judged", airlock, &incluster.Objects{Classes: classes}, foreignSet(), incluster.OutcomeUnknownJudged, true,
			"Gateway gateway-ns/gw is unknown (no Gateways read), so"},
		{"no view, judged", airlock, nil, foreignSet(), incluster.OutcomeUnknownJudged, true, "Gateway gateway-ns/gw is unknown, so"},
		{"class not found, judged", airlock, &incluster.Objects{Gateways: []*gwv1.Gateway{gatewayOfClass("gone")}, Classes: classes}, foreignSet(), incluster.OutcomeUnknownJudged, true,
			`GatewayClass "gone" of Gateway gateway-ns/gw is unknown (not found), so`},
		{"class not read yet, judged", airlock, &incluster.Objects{Gateways: []*gwv1.Gateway{gatewayOfClass("envoy")}}, foreignSet(), incluster.OutcomeUnknownJudged, true,
			`GatewayClass "envoy" of Gateway gateway-ns/gw is unknown (no GatewayClasses read), so`},
		{"parentRef names no Gateway, judged", airlock, known("envoy"), otherParent, incluster.OutcomeUnknownJudged, true, "the parentRef names no Gateway, so"},
		{"Gateway not found, admitted", admit, &incluster.Objects{Gateways: []*gwv1.Gateway{}, Classes: classes}, foreignSet(), incluster.OutcomeUnknownAdmitted, false,
			"Gateway gateway-ns/gw is unknown (not found), admitted without Airlock Microgateway's rules"},
		{"class not found, admitted", admit, &incluster.Objects{Gateways: []*gwv1.Gateway{gatewayOfClass("gone")}, Classes: classes}, foreignSet(), incluster.OutcomeUnknownAdmitted, false,
			`GatewayClass "gone" of Gateway gateway-ns/gw is unknown (not found), admitted`},
		{"admit leaves known classes alone", admit, known("airlock"), foreignSet(), incluster.OutcomeAirlock, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.scope.Decide(tt.ls, tt.classes)
			assert.Equal(t, tt.want, d.Outcome)
			assert.Equal(t, tt.judge, d.Judge)
			if tt.note == "" {
				assert.Nil(t, d.Note)
				return
			}
			require.NotNil(t, d.Note)
			assert.Equal(t, "spec.parentRef", d.Note.Path)
			assert.Equal(t, incluster.CodeScopeUnknown, d.Note.Code)
			assert.Contains(t, d.Note.Message, tt.note)
			assert.Contains(t, d.Note.Message, string(incluster.AirlockControllerName))
		})
	}
}

// TestJudgeOnlyWhatIsOurs: the verdict on another implementation's
// ListenerSet is empty (no error, no warning) on create and update; the
// same object under Airlock's class gets every error, and an unknown
// parent gets them with the note first.
func TestJudgeOnlyWhatIsOurs(t *testing.T) {
	scope := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	classes := []*gwv1.GatewayClass{gatewayClass("airlock", incluster.AirlockControllerName), gatewayClass("envoy", envoyController)}
	judge := func(class string, old *gwv1.ListenerSet, c *incluster.Objects) *Report {
		if c == nil {
			c = &incluster.Objects{Gateways: []*gwv1.Gateway{gatewayOfClass(class)}, Classes: classes}
		}
		return Judge(foreignSet(), old, Options{Scope: scope, Classes: c, Cluster: c})
	}

	for _, old := range []*gwv1.ListenerSet{nil, attached("team", "envoy-tcp", 0, gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType})} {
		r := judge("envoy", old, nil)
		assert.Zero(t, r.Errors.Total(), "another class's ListenerSet gets no error")
		assert.Zero(t, r.Warnings.Total(), "nor any warning")
		assert.Equal(t, incluster.OutcomeOther, r.Scope.Outcome)
	}

	r := judge("airlock", nil, nil)
	codes := map[findings.Code]bool{}
	for _, e := range r.Errors.List() {
		codes[findings.CodeOf(e)] = true
	}
	assert.True(t, codes[object.CodeProtocol] && codes[object.CodeTooManyCertificateRefs], "Airlock's class: %v", r.Errors.List())

	r = judge("", nil, &incluster.Objects{Gateways: []*gwv1.Gateway{}, Classes: classes})
	assert.Equal(t, incluster.OutcomeUnknownJudged, r.Scope.Outcome)
	assert.NotZero(t, r.Errors.Total())
	ws := codedWarnings(t, r.Warnings.List())
	require.NotEmpty(t, ws)
	assert.Equal(t, incluster.CodeScopeUnknown, ws[0].Code)
	unknownErrs := r.Errors.List()

	// An update that moves another implementation's stored set to Airlock's
	// Gateway grandfathers nothing: every error denies. Kept under
	// Airlock's Gateway, the same update ratchets them.
	airlockParent := func() *incluster.Objects {
		gw := gatewayOfClass("airlock")
		gw.Name = "airlock-gw"
		return &incluster.Objects{Gateways: []*gwv1.Gateway{gatewayOfClass("envoy"), gw}, Classes: classes}
	}
	moved, stored := foreignSet(), foreignSet()
	moved.Spec.ParentRef.Name = "airlock-gw"
	r = Judge(moved, stored, Options{Scope: scope, Classes: airlockParent()})
	assert.Equal(t, len(unknownErrs), r.Errors.Total(), "moved to Airlock: %v", r.Errors.List())
	stored.Spec.ParentRef.Name = "airlock-gw"
	r = Judge(moved, stored, Options{Scope: scope, Classes: airlockParent()})
	assert.Zero(t, r.Errors.Total(), "unchanged under Airlock: ratcheted")

	// A set Airlock's rules find nothing in gets no note: the unknown
	// parent changed nothing.
	clean := attached("team", "web", 0, gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType})
	r = Judge(clean, nil, Options{Scope: scope, Classes: &incluster.Objects{Classes: classes}})
	assert.Equal(t, incluster.OutcomeUnknownJudged, r.Scope.Outcome)
	assert.Zero(t, r.Warnings.Total()+r.Errors.Total())
	// Admitted unjudged, the note is all there is.
	r = Judge(foreignSet(), nil, Options{Scope: incluster.Scope{ControllerNames: scope.ControllerNames, Unknown: incluster.UnknownAdmit}, Classes: &incluster.Objects{Classes: classes}})
	assert.Zero(t, r.Errors.Total())
	require.Len(t, r.Warnings.List(), 1)
	assert.Equal(t, incluster.CodeScopeUnknown, r.Warnings.List()[0].Code)

	// Unscoped, the object alone: as before the scope existed.
	assert.Equal(t, unknownErrs, Judge(foreignSet(), nil, Options{}).Errors.List())
}
