package incluster

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

func TestScopeDecide(t *testing.T) {
	airlock := Scope{ControllerNames: []gwv1.GatewayController{AirlockControllerName}}
	admit := Scope{ControllerNames: airlock.ControllerNames, Unknown: UnknownAdmit}
	two := Scope{ControllerNames: []gwv1.GatewayController{"microgateway.airlock.com/second", AirlockControllerName}}
	classes := []*gwv1.GatewayClass{fixture.GatewayClass("airlock", AirlockControllerName), fixture.GatewayClass("envoy", fixture.EnvoyController)}
	known := func(class string) *Objects {
		return &Objects{Gateways: []*gwv1.Gateway{fixture.GatewayOfClass(class)}, Classes: classes}
	}
	otherParent := fixture.ForeignSet()
	otherParent.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service")
	tests := []struct {
		name    string
		scope   Scope
		classes views.Classes
		ls      *gwv1.ListenerSet
		want    Outcome
		judge   bool
		// note is the start of the note's message; "" for none.
		note string
	}{
		{"scope off judges everything", Scope{}, known("envoy"), fixture.ForeignSet(), OutcomeUnscoped, true, ""},
		{"Airlock's class", airlock, known("airlock"), fixture.ForeignSet(), OutcomeAirlock, true, ""},
		{"another implementation's class", airlock, known("envoy"), fixture.ForeignSet(), OutcomeOther, false, ""},
		{"one of several controller names", two, known("airlock"), fixture.ForeignSet(), OutcomeAirlock, true, ""},
		{"Gateway not found, judged", airlock, &Objects{Gateways: []*gwv1.Gateway{}, Classes: classes}, fixture.ForeignSet(), OutcomeUnknownJudged, true,
			"Gateway gateway-ns/gw is unknown (not found), so Airlock Microgateway's rules apply"},
		{"Gateway not read yet, judged", airlock, &Objects{Classes: classes}, fixture.ForeignSet(), OutcomeUnknownJudged, true,
			"Gateway gateway-ns/gw is unknown (no Gateways read), so"},
		{"no view, judged", airlock, nil, fixture.ForeignSet(), OutcomeUnknownJudged, true, "Gateway gateway-ns/gw is unknown, so"},
		{"class not found, judged", airlock, &Objects{Gateways: []*gwv1.Gateway{fixture.GatewayOfClass("gone")}, Classes: classes}, fixture.ForeignSet(), OutcomeUnknownJudged, true,
			`GatewayClass "gone" of Gateway gateway-ns/gw is unknown (not found), so`},
		{"class not read yet, judged", airlock, &Objects{Gateways: []*gwv1.Gateway{fixture.GatewayOfClass("envoy")}}, fixture.ForeignSet(), OutcomeUnknownJudged, true,
			`GatewayClass "envoy" of Gateway gateway-ns/gw is unknown (no GatewayClasses read), so`},
		{"parentRef names no Gateway, judged", airlock, known("envoy"), otherParent, OutcomeUnknownJudged, true, "the parentRef names no Gateway, so"},
		{"Gateway not found, admitted", admit, &Objects{Gateways: []*gwv1.Gateway{}, Classes: classes}, fixture.ForeignSet(), OutcomeUnknownAdmitted, false,
			"Gateway gateway-ns/gw is unknown (not found), admitted without Airlock Microgateway's rules"},
		{"class not found, admitted", admit, &Objects{Gateways: []*gwv1.Gateway{fixture.GatewayOfClass("gone")}, Classes: classes}, fixture.ForeignSet(), OutcomeUnknownAdmitted, false,
			`GatewayClass "gone" of Gateway gateway-ns/gw is unknown (not found), admitted`},
		{"admit leaves known classes alone", admit, known("airlock"), fixture.ForeignSet(), OutcomeAirlock, true, ""},
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
			assert.Equal(t, CodeScopeUnknown, d.Note.Code)
			assert.Contains(t, d.Note.Message, tt.note)
			assert.Contains(t, d.Note.Message, string(AirlockControllerName))
		})
	}
}
