package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// TestJudgeOnlyWhatIsOurs: the verdict on another implementation's
// ListenerSet is empty (no error, no warning) on create and update; the
// same object under Airlock's class gets every error, and an unknown
// parent gets them with the note first.
func TestJudgeOnlyWhatIsOurs(t *testing.T) {
	scope := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	classes := []*gwv1.GatewayClass{fixture.GatewayClass("airlock", incluster.AirlockControllerName), fixture.GatewayClass("envoy", fixture.EnvoyController)}
	judge := func(class string, old *gwv1.ListenerSet, c *incluster.Objects) *Report {
		if c == nil {
			c = &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.GatewayOfClass(class)}, Classes: classes}
		}
		return Judge(fixture.ForeignSet(), old, Options{Scope: scope, Classes: c, Cluster: c})
	}

	for _, old := range []*gwv1.ListenerSet{nil, fixture.Attached("team", "envoy-tcp", 0, gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType})} {
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
		gw := fixture.GatewayOfClass("airlock")
		gw.Name = "airlock-gw"
		return &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.GatewayOfClass("envoy"), gw}, Classes: classes}
	}
	moved, stored := fixture.ForeignSet(), fixture.ForeignSet()
	moved.Spec.ParentRef.Name = "airlock-gw"
	r = Judge(moved, stored, Options{Scope: scope, Classes: airlockParent()})
	assert.Equal(t, len(unknownErrs), r.Errors.Total(), "moved to Airlock: %v", r.Errors.List())
	stored.Spec.ParentRef.Name = "airlock-gw"
	r = Judge(moved, stored, Options{Scope: scope, Classes: airlockParent()})
	assert.Zero(t, r.Errors.Total(), "unchanged under Airlock: ratcheted")

	// A set Airlock's rules find nothing in gets no note: the unknown
	// parent changed nothing.
	clean := fixture.Attached("team", "web", 0, gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType})
	r = Judge(clean, nil, Options{Scope: scope, Classes: &incluster.Objects{Classes: classes}})
	assert.Equal(t, incluster.OutcomeUnknownJudged, r.Scope.Outcome)
	assert.Zero(t, r.Warnings.Total()+r.Errors.Total())
	// Admitted unjudged, the note is all there is.
	r = Judge(fixture.ForeignSet(), nil, Options{Scope: incluster.Scope{ControllerNames: scope.ControllerNames, Unknown: incluster.UnknownAdmit}, Classes: &incluster.Objects{Classes: classes}})
	assert.Zero(t, r.Errors.Total())
	require.Len(t, r.Warnings.List(), 1)
	assert.Equal(t, incluster.CodeScopeUnknown, r.Warnings.List()[0].Code)

	// Unscoped, the object alone: as before the scope existed.
	assert.Equal(t, unknownErrs, Judge(fixture.ForeignSet(), nil, Options{}).Errors.List())
}
