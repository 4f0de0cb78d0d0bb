package judge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/judge"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestAirlockOptionsOffline judges every object of vt.OptionCases (a
// value each row of validation.AirlockOptions accepts, and one it does
// not) as the validate command does, from one YAML stream through the CRD
// and the rules: the valid ones are valid, the others have one error, the
// row's code.
func TestAirlockOptionsOffline(t *testing.T) {
	cases := vt.OptionCases()
	var docs []string
	for i, c := range cases {
		ls := c.ListenerSet.DeepCopy()
		ls.Name = fmt.Sprintf("option-%d", i)
		data, err := yaml.Marshal(ls)
		require.NoError(t, err)
		docs = append(docs, string(data))
	}
	v := judge.Run(readString(t, strings.Join(docs, "---\n")), judge.Options{})
	require.Len(t, v.Results, len(cases), "notes: %v", v.Notes)
	for i, c := range cases {
		r := v.Results[i]
		if assert.Equal(t, c.Valid, r.Valid, "%s: %v", c.Name, r.Errors) && !c.Valid && assert.Len(t, r.Errors, 1, c.Name) {
			assert.Equal(t, string(c.Code), r.Errors[0].Code, c.Name)
		}
	}
}
