package policy

import (
	"context"
	"testing"

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
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, client := startCluster(t, root, localcluster.CRDsV163Standard, namespace)
	vap, binding, err := policy.Generate(policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Create(ctx, vap); err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	waitForPolicy(t, client)
	var admitted, denied int
	for _, tc := range validationtest.OptionCases() {
		ls := tc.ListenerSet.DeepCopy()
		ls.Namespace = namespace
		res := send(ctx, client, ls, nil)
		switch {
		case res.err != nil:
			t.Errorf("%s: %v", tc.Name, res.err)
		case res.schema:
			t.Errorf("%s: the CRD denies it, the policy never saw it: %s", tc.Name, res.message)
		case res.allowed != tc.Valid:
			t.Errorf("%s: kube-apiserver allowed=%v, want %v: %s", tc.Name, res.allowed, tc.Valid, res.message)
		}
		if d := judge(ls, nil, res); d != "" {
			t.Errorf("%s: %s", tc.Name, d)
		}
		if res.allowed {
			admitted++
		} else {
			denied++
			t.Logf("%s: %s", tc.Name, res.message)
		}
	}
	t.Logf("kube-apiserver with the policy: %d admitted, %d denied", admitted, denied)
}
