package validation_test

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// TestScopeFlags: the command lines every command that judges takes, and
// the Scope each sets.
func TestScopeFlags(t *testing.T) {
	airlock := []gwv1.GatewayController{validation.AirlockControllerName}
	for _, tc := range []struct {
		name string
		args []string
		want validation.Scope
		err  string
	}{
		{"default", nil, validation.Scope{ControllerNames: airlock, Unknown: validation.UnknownJudge}, ""},
		{"all", []string{"--scope=all"}, validation.Scope{Unknown: validation.UnknownJudge}, ""},
		{"class admit", []string{"--scope=class", "--unknown-parent=admit"},
			validation.Scope{ControllerNames: airlock, Unknown: validation.UnknownAdmit}, ""},
		{"names replace the default, repeatable", []string{"--controller-names=a.example/x, b.example/y", "--controller-names=c.example/z"},
			validation.Scope{ControllerNames: []gwv1.GatewayController{"a.example/x", "b.example/y", "c.example/z"}, Unknown: validation.UnknownJudge}, ""},
		{"bad scope", []string{"--scope=mine"}, validation.Scope{}, `invalid value "mine" for flag -scope: must be "class" or "all"`},
		{"bad unknown-parent", []string{"--unknown-parent=deny"}, validation.Scope{}, `invalid value "deny" for flag -unknown-parent: must be "judge" or "admit"`},
		{"empty unknown-parent", []string{"--unknown-parent="}, validation.Scope{}, `invalid value "" for flag -unknown-parent: must be "judge" or "admit"`},
		{"no names", []string{"--controller-names=,"}, validation.Scope{},
			`invalid value "," for flag -controller-names: names no controller: to judge every ListenerSet, use --scope=all`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := validation.NewScopeFlags()
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Var(s.ModeFlag(), "scope", validation.ScopeUsage("reads"))
			fs.Var(s.NamesFlag(), "controller-names", validation.ControllerNamesUsage)
			fs.Var(s.UnknownFlag(), "unknown-parent", validation.UnknownParentUsage)
			err := fs.Parse(tc.args)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, s.Scope())
		})
	}
}
