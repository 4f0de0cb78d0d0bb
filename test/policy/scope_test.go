package policy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// scopeNamespace holds the scoped policy's ListenerSets.
const scopeNamespace = "policy-scope"

// TestScopedPolicyAgainstKubeAPIServer installs the policy scoped to a list
// of Gateways (policy.Options.Gateways) into a real kube-apiserver, alone,
// with the real kubectl, and sends:
//   - a ListenerSet another implementation serves (TCP and UDP listeners,
//     two certificateRefs) attached to a Gateway not listed: stored; the
//     same attached to a listed Gateway, or to one of a namespace listed
//     with "*": denied by the policy;
//   - the examples and POLICY_SCOPE_N (default 300) random objects of the
//     fuzz generator, whose parent Gateways are listed for about half: in
//     scope each answer equals validation.Validate's (judge, as the
//     differential test), out of scope each is admitted (or refused by the
//     CRD's schema first);
//   - after the policy is applied again with one more Gateway listed, that
//     Gateway's ListenerSets are judged.
func TestScopedPolicyAgainstKubeAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("long: make test-all runs it (-short runs the sample of TestPolicyAgainstKubeAPIServer)")
	}
	ctx := context.Background()
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c, client := startCluster(t, root, "", scopeNamespace, "infra", "edge")

	// The sample and the parents listed: about half of the distinct ones.
	var cases []*gwv1.ListenerSet
	var names []string
	examples, err := validationtest.Examples(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		cases, names = append(cases, ex.ListenerSet), append(names, filepath.Base(ex.Path))
	}
	n := 300
	if s := os.Getenv("POLICY_SCOPE_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	rng := rand.New(rand.NewPCG(32, 32))
	for i := range n {
		cases, names = append(cases, validationtest.FuzzListenerSet(validationtest.BiasedFuzzBytes(rng))), append(names, fmt.Sprintf("fuzz-%d", i))
	}
	// every other parent Gateway listed, the most common one first
	listed, parents := policytest.EveryOtherParent(cases, scopeNamespace)
	entries := append([]string{"infra/airlock", "edge/*"}, parents...)

	// installed as docs/policy.md shows: kubectl listenerset policy
	// --gateways ... | kubectl apply -f -
	apply := func(gateways []string) {
		out, err := policy.YAML(policy.Options{Gateways: gateways})
		if err != nil {
			t.Fatal(err)
		}
		r := c.Kubectl(ctx, string(out), "apply", "-f", "-")
		if r.Err != nil {
			t.Fatalf("%v: %s", r.Err, r.Stderr)
		}
		t.Logf("the policy scoped to %d Gateways: kubectl apply -f -\n%s", len(gateways), r.Stdout)
	}
	apply(entries)

	other := func(name, parentNS, parent string) *gwv1.ListenerSet {
		ls := &gwv1.ListenerSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: scopeNamespace},
			Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(parent)}, Listeners: []gwv1.ListenerEntry{
				{Name: "tcp", Port: 5000, Protocol: gwv1.TCPProtocolType},
				{Name: "udp", Port: 5001, Protocol: gwv1.UDPProtocolType},
				{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname("a.example.com")),
					TLS: &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: "one"}, {Name: "two"}}}},
			}},
		}
		if parentNS != "" {
			ls.Spec.ParentRef.Namespace = ptr.To(gwv1.Namespace(parentNS))
		}
		return ls
	}
	// the policy is enforced once the Airlock Gateway's set is denied
	deadline := time.Now().Add(time.Minute)
	for {
		res := send(ctx, client, other("probe", "infra", "airlock"), nil)
		if !res.allowed && !res.schema && res.err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scoped policy is not enforced after a minute: %+v", res)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Another implementation's ListenerSet is stored; the same under an
	// Airlock Gateway is denied.
	stored, err := create(ctx, client, other("envoy-tcp", "infra", "envoy"), false)
	if err != nil {
		t.Fatalf("another implementation's ListenerSet: %v", err)
	}
	t.Logf("stored %s/%s (parent infra/envoy, not listed)", stored.GetNamespace(), stored.GetName())
	for _, tc := range []struct{ parentNS, parent string }{{"infra", "airlock"}, {"edge", "any-gateway"}} {
		res := send(ctx, client, other("airlock-tcp", tc.parentNS, tc.parent), nil)
		switch {
		case res.err != nil:
			t.Fatal(res.err)
		case res.allowed || res.schema:
			t.Errorf("parent %s/%s (listed): want the policy's denial, got %+v", tc.parentNS, tc.parent, res)
		default:
			for _, want := range []string{`spec.listeners[0].protocol: Unsupported value: "TCP"`, `spec.listeners[1].protocol: Unsupported value: "UDP"`,
				"spec.listeners[2].tls.certificateRefs: Too many: 2: must have at most 1 item"} {
				if !strings.Contains(res.message, want) {
					t.Errorf("parent %s/%s: the denial lacks %q: %s", tc.parentNS, tc.parent, want, res.message)
				}
			}
			t.Logf("parent %s/%s (listed): %s", tc.parentNS, tc.parent, res.message)
		}
	}
	// An update follows the current parent: the stored set with one more
	// TCP listener is admitted under its own Gateway and denied when moved
	// to the Airlock Gateway, as validation.Validate judges it (the new
	// listener's protocol; the stored listeners' errors ratchet, their
	// values being as stored).
	for _, parent := range []string{"envoy", "airlock"} {
		changed := other("envoy-tcp", "infra", parent)
		changed.Spec.Listeners = append(changed.Spec.Listeners, gwv1.ListenerEntry{Name: "tcp-2", Port: 5002, Protocol: gwv1.TCPProtocolType})
		changed.ResourceVersion = stored.GetResourceVersion()
		res := send(ctx, client, changed, stored)
		if res.err != nil {
			t.Fatal(res.err)
		}
		if parent == "envoy" && !res.allowed {
			t.Errorf("an update under another Gateway: want admitted, got %s", res.message)
		}
		if parent == "airlock" {
			if res.allowed {
				t.Error("an update that moves the set to a listed Gateway: admitted, want denied")
			}
			if msg := judge(changed, stored, res); msg != "" {
				t.Errorf("an update that moves the set to a listed Gateway: %s", msg)
			}
			t.Logf("an update that moves the set to infra/airlock: %s", res.message)
		}
	}

	// The sample: in scope Validate's verdict, out of scope admitted.
	var inScope, outOfScope, denied, mismatches int
	for i, ls := range cases {
		ls = ls.DeepCopy()
		ls.TypeMeta = metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"}
		ls.Namespace, ls.Name, ls.GenerateName = scopeNamespace, fmt.Sprintf("case-%d", i), ""
		res := send(ctx, client, ls, nil)
		msg := ""
		switch {
		case res.err != nil:
			msg = res.err.Error()
		case res.schema:
		case listed[parentOf(ls)]:
			inScope++
			if !res.allowed {
				denied++
			}
			msg = judge(ls, nil, res)
		default:
			outOfScope++
			if !res.allowed {
				msg = "not listed, denied by the policy: " + res.message
			}
		}
		if msg != "" {
			mismatches++
			t.Errorf("%s (parent %s, listed %v): %s", names[i], parentOf(ls), listed[parentOf(ls)], msg)
		}
	}
	t.Logf("%d objects: %d in scope (%d denied), %d out of scope and admitted, %d refused by the CRD, %d differences",
		len(cases), inScope, denied, outOfScope, len(cases)-inScope-outOfScope, mismatches)
	if denied == 0 || denied == inScope || outOfScope == 0 {
		t.Errorf("the sample reaches too few verdicts: %d in scope, %d denied, %d out of scope", inScope, denied, outOfScope)
	}

	// Keeping the list current: applied again with one more Gateway, its
	// ListenerSets are judged from then on.
	apply(append(slices.Clone(entries), "infra/envoy"))
	eventuallyDenied(t, client, other("envoy-2", "infra", "envoy"), "ValidatingAdmissionPolicy '"+policy.DefaultPolicyName+"'", "a Gateway added to the list")
	if res := send(ctx, client, other("istio-2", "infra", "istio"), nil); !res.allowed {
		t.Errorf("a Gateway still not listed: %+v", res)
	}
}

// parentOf is the namespace/name of ls's parent Gateway as the scope reads
// it.
func parentOf(ls *gwv1.ListenerSet) string { return policytest.ParentOf(ls, scopeNamespace) }

// eventuallyDenied sends ls until kube-apiserver denies it (the policy's
// inputs reach it through informers), with want in the message.
func eventuallyDenied(t *testing.T, client dynamic.ResourceInterface, ls *gwv1.ListenerSet, want, what string) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(time.Minute)
	for {
		_, err := create(context.Background(), client, ls, true)
		if err != nil && strings.Contains(err.Error(), want) {
			t.Logf("%s, after %v: %v", what, time.Since(start).Round(100*time.Millisecond), err)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: want denied with %q, got %v", what, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
