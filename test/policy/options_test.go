package policy

import (
	"context"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestAirlockOptionsAgainstKubeAPIServer installs only the policy into a
// real kube-apiserver (the v1.6.3 standard CRDs) and sends every object of
// validationtest.OptionCases, one per value each row of
// validation.AirlockOptions accepts and one per value it does not, as
// server-side dry-run creates: kube-apiserver admits exactly the valid
// ones, the policy (not the CRD) denies the others, and each answer equals
// validation.Validate's. A new option is proved here by its row alone, in
// about 20 seconds, where TestPolicyAgainstKubeAPIServer takes twenty
// minutes.
func TestAirlockOptionsAgainstKubeAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("long: make test-all runs it (-short runs the sample of TestPolicyAgainstKubeAPIServer)")
	}
	var cases []policyCase
	for _, tc := range validationtest.OptionCases() {
		cases = append(cases, policyCase{name: tc.Name, ls: tc.ListenerSet, valid: tc.Valid})
	}
	againstPolicy(t, cases)
}

// TestRuleExamplesAgainstKubeAPIServer installs only the policy into a
// real kube-apiserver (the v1.6.3 standard CRDs) and creates, as
// server-side dry-runs, each rule's valid and invalid example
// (validation.Rules): kube-apiserver admits the valid one, denies the
// invalid one (the policy, or the CRD before it where the CRD enforces the
// rule too), and each answer equals validation.Validate's. A new rule is
// proved in a real kube-apiserver by its definition here.
func TestRuleExamplesAgainstKubeAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("long: make test-all runs it (-short runs the sample of TestPolicyAgainstKubeAPIServer)")
	}
	rules, err := validationtest.RuleCases(validation.Rules())
	if err != nil {
		t.Fatal(err)
	}
	var cases []policyCase
	for _, c := range rules {
		cases = append(cases, policyCase{name: c.Name, ls: c.ListenerSet, valid: c.Valid, crdMay: !c.Valid, want: c.Want()})
	}
	againstPolicy(t, cases)
}

// policyCase is an object sent to kube-apiserver: valid or not, and
// whether the CRD may deny it before the policy sees it; want, when set,
// says the verdict wanted in a rule's terms.
type policyCase struct {
	name   string
	ls     *gwv1.ListenerSet
	valid  bool
	crdMay bool
	want   string
}

// againstPolicy starts kube-apiserver with the CRDs and the policy alone
// and sends each case as a server-side dry-run create.
func againstPolicy(t *testing.T, cases []policyCase) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, client := startCluster(t, root, localcluster.CRDsV163Standard, namespace)
	p, err := policy.Generate(policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range p.Pairs() {
		for _, obj := range []crclient.Object{pair.Policy, pair.Binding} {
			if err := c.Client.Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitForPolicy(t, c, client)
	var admitted, denied, crd int
	for _, tc := range cases {
		ls := tc.ls.DeepCopy()
		ls.Namespace = namespace
		res := send(ctx, client, ls, nil)
		switch {
		case res.err != nil:
			t.Errorf("%s: %v", tc.name, res.err)
		case res.schema && tc.crdMay:
			crd++
			t.Logf("%s: the CRD denies it: %s", tc.name, res.message)
			continue
		case res.schema:
			t.Errorf("%s: the CRD denies it, the policy never saw it: %s", tc.name, res.message)
		case res.allowed != tc.valid && tc.want != "":
			t.Errorf("%s: kube-apiserver allowed=%v, want %s: %s", tc.name, res.allowed, tc.want, res.message)
		case res.allowed != tc.valid:
			t.Errorf("%s: kube-apiserver allowed=%v, want %v: %s", tc.name, res.allowed, tc.valid, res.message)
		}
		if d := judge(ls, nil, res); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
		if res.allowed {
			admitted++
		} else {
			denied++
			t.Logf("%s: %s", tc.name, res.message)
		}
	}
	t.Logf("kube-apiserver with the policy: %d admitted, %d denied by the policy, %d by the CRD", admitted, denied, crd)
}
