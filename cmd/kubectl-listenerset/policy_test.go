package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/policy"
)

// TestPolicyCommand: the flags reach the objects, the output is the
// package's YAML, and bad flags are a usage error.
func TestPolicyCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"policy", "--name", "p", "--binding-name", "b", "--validation-actions", "Warn,Audit",
		"--namespace-selector", "team in (a,b),!legacy"}, nil, &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	want, err := policy.YAML(policy.Options{
		PolicyName: "p", BindingName: "b",
		Actions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn, admissionregistrationv1.Audit},
		NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "legacy", Operator: metav1.LabelSelectorOpDoesNotExist},
			{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}},
		}},
	})
	require.NoError(t, err)
	require.Equal(t, string(want), stdout.String())
	docs := strings.Split(stdout.String(), "\n---\n")
	require.Len(t, docs, 4, "the rules' policy and binding, then the declarations'")
	for i, want := range []struct{ name, policy string }{{"b", "p"}, {policy.DeclarationsPrefix + "b", policy.DeclarationsPrefix + "p"}} {
		var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
		require.NoError(t, yaml.UnmarshalStrict([]byte(docs[2*i+1]), &binding))
		assert.Equal(t, want.name, binding.Name)
		assert.Equal(t, want.policy, binding.Spec.PolicyName)
	}

	// --gateways scopes the policy to those Gateways.
	stdout.Reset()
	code = run([]string{"policy", "--gateways", "infra/airlock,team-a/*", "--gateways", "edge/gw"}, nil, &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	want, err = policy.YAML(policy.Options{Gateways: []string{"infra/airlock", "team-a/*", "edge/gw"}})
	require.NoError(t, err)
	require.Equal(t, string(want), stdout.String())
	var vap admissionregistrationv1.ValidatingAdmissionPolicy
	require.NoError(t, yaml.UnmarshalStrict([]byte(strings.Split(stdout.String(), "\n---\n")[0]), &vap))
	assert.Equal(t, policy.ScopeCondition, vap.Spec.MatchConditions[0].Name)
	assert.Contains(t, vap.Spec.MatchConditions[0].Expression, `["infra/airlock","team-a/*","edge/gw"]`)

	// --allowed-hostnames-annotation names the declarations' annotation.
	stdout.Reset()
	code = run([]string{"policy", "--allowed-hostnames-annotation", "example.com/hosts"}, nil, &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	want, err = policy.YAML(policy.Options{AllowedHostnamesAnnotation: "example.com/hosts"})
	require.NoError(t, err)
	require.Equal(t, string(want), stdout.String())
	assert.Contains(t, stdout.String(), `expression: '"example.com/hosts"'`)

	for _, args := range [][]string{
		{"policy", "--allowed-hostnames-annotation", "not a key"},
		{"policy", "--gateways", "infra"},
		{"policy", "--gateways", "infra/a,infra/a"},
		{"policy", "--validation-actions", "Block"},
		{"policy", "--namespace-selector", "a in ("},
		{"policy", "extra"},
	} {
		stdout.Reset()
		stderr.Reset()
		assert.Equal(t, exitUsage, run(args, nil, &stdout, &stderr), "%v", args)
		assert.Empty(t, stdout.String(), "%v", args)
	}
}
