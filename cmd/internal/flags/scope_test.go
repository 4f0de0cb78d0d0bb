package flags_test

import (
	"flag"
	"io"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
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
			s := flags.NewScopeFlags()
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Var(s.ModeFlag(), "scope", flags.ScopeUsage("reads"))
			fs.Var(s.NamesFlag(), "controller-names", flags.ControllerNamesUsage)
			fs.Var(s.UnknownFlag(), "unknown-parent", flags.UnknownParentUsage)
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

// TestEnumFlags: every enum flag takes one of its type's choices, shows the
// default when unset, and words a refusal from the list.
func TestEnumFlags(t *testing.T) {
	var tenancy validation.Tenancy
	first := flags.FirstClaim(&tenancy)
	assert.Equal(t, "warn", first.String())
	assert.EqualError(t, first.Set("maybe"), `must be one of "warn", "off" or "deny"`)
	assert.EqualError(t, first.Set(""), `must be one of "warn", "off" or "deny"`)
	assert.NoError(t, first.Set("deny"))
	assert.Equal(t, validation.ClaimDeny, tenancy.FirstClaim)
	assert.Equal(t, "mode", first.Type())
	var zero flags.Enum[validation.UnknownParent]
	assert.Equal(t, "judge", zero.String(), "the zero value shows the default, so that package flag prints none of its own")
}
