package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

const namespace = "policy-diff"

// ratcheted counts the updates where ratcheting let a stored error through.
var ratcheted atomic.Int64

var gvr = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"}

// TestPolicyAgainstKubeAPIServer installs only the policy into a real
// kube-apiserver with the Gateway API CRDs and sends every example, every
// object validation's own tests judge (their table rows, recorded by
// recordTableCalls), the worst objects the CRD admits
// (validationtest.WorstShapes, the Update shapes as updates), POLICY_DIFF_N (default 3000; 300 with -short) random objects of the fuzz generator as
// server-side dry-run creates, and updates of POLICY_DIFF_N stored random
// objects (those the CRD stores) to changed copies, from 8 clients at once. Each answer must
// equal validation.Validate's verdict: admitted or not, and when the policy
// (not the CRD's schema) denied, the same set of field paths.
//
// The declared hostnames: the Namespaces of validationtest.Declarations are
// created with their declarations (none, valid ones, every bad input), and
// the rows of validationtest.DeclarationCases, creates and updates, each get
// its verdict; a third as many random creates and updates again, in those
// Namespaces in turn, are held to validation.Validate with the Namespace in
// its Cluster (validationtest.Declaration.Cluster).
//
// It runs once for each CRD set of the end-to-end matrix whose ListenerSet
// CRD differs (distinctSets): the policy's match condition leaves to the
// CRD what the CRD enforces, so the verdict must hold with each CRD that
// can serve ListenerSets. POLICY_CRDS (a
// comma-separated list of localcluster.CRDSet) names other sets; the version
// matrix (hack/matrix) runs one, with KUBE_VERSION naming the kube-apiserver.
//
// With -short (make test) it is a sample: the product's CRD set only, and
// 300 random objects of each kind.
func TestPolicyAgainstKubeAPIServer(t *testing.T) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// every object validation's own tests judge alone: the tables' rows
	tableCalls := recordTableCalls(t, context.Background(), root)
	// the product's set first: distinctSets keeps the first of those with one spec
	sets := []localcluster.CRDSet{localcluster.CRDsV163Standard, localcluster.CRDsV151Standard, localcluster.CRDsV170Standard, localcluster.CRDsV170Experimental}
	if testing.Short() {
		sets = []localcluster.CRDSet{localcluster.CRDsV163Standard}
	}
	if s := os.Getenv("POLICY_CRDS"); s != "" {
		// the version matrix (hack/matrix) runs the sample against one set
		sets = nil
		for _, name := range strings.Split(s, ",") {
			sets = append(sets, localcluster.CRDSet(strings.TrimSpace(name)))
		}
	}
	for _, set := range distinctSets(t, root, sets) {
		t.Run(string(set), func(t *testing.T) { againstKubeAPIServer(t, root, set, tableCalls) })
	}
}

// distinctSets is sets without each set whose ListenerSet CRD has the spec
// of an earlier one's (the standard channel's of v1.5.1, v1.6.3 and v1.7.0
// differ only in their annotations): all the policy sees of the CRD is its
// spec (the schema, defaults and rules that decide before the policy runs),
// the policy matches ListenerSets only, and the campaign's objects come
// from a fixed seed, so such a set would get the same requests, answered
// by the same schema, as the earlier one. A set whose spec differs runs,
// however it is named; the log says which run stands for which set.
func distinctSets(t *testing.T, root string, sets []localcluster.CRDSet) []localcluster.CRDSet {
	var distinct []localcluster.CRDSet
	specs := map[localcluster.CRDSet]*apiextensionsv1.CustomResourceDefinitionSpec{}
	for _, set := range sets {
		crd, err := localcluster.ListenerSetCRD(context.Background(), root, set)
		if err != nil {
			t.Fatal(err)
		}
		same := slices.IndexFunc(distinct, func(d localcluster.CRDSet) bool { return equality.Semantic.DeepEqual(specs[d], &crd.Spec) })
		if same >= 0 {
			t.Logf("%s: its ListenerSet CRD's spec is %s's, whose run stands for it", set, distinct[same])
			continue
		}
		specs[set] = &crd.Spec
		distinct = append(distinct, set)
	}
	return distinct
}

func againstKubeAPIServer(t *testing.T, root string, set localcluster.CRDSet, tableCalls []tableCall) {
	ctx := context.Background()
	ratcheted.Store(0)
	c, client := startCluster(t, root, set, namespace)
	declClients := createDeclarations(t, c)
	declarations := validationtest.Declarations()

	var cases []*gwv1.ListenerSet
	names := []string{}
	// the Namespace of each case: nil for namespace, without a declaration
	// and judged without a Cluster
	var caseIn []*validationtest.Declaration
	examples, err := validationtest.Examples(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		cases, names = append(cases, ex.ListenerSet), append(names, filepath.Base(ex.Path))
	}
	var tableUpdates int
	for i, call := range tableCalls {
		if call.Old != nil {
			tableUpdates++
			continue
		}
		cases, names = append(cases, call.New), append(names, fmt.Sprintf("table call %d", i))
	}
	t.Logf("validation's tests judge %d objects alone: %d creates, %d updates", len(tableCalls), len(tableCalls)-tableUpdates, tableUpdates)
	n := 3000
	if testing.Short() {
		n = 300
	}
	if s := os.Getenv("POLICY_DIFF_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	rng := rand.New(rand.NewPCG(13, 13))
	for i := range n {
		data := validationtest.BiasedFuzzBytes(rng)
		cases, names = append(cases, validationtest.FuzzListenerSet(data)), append(names, fmt.Sprintf("fuzz-%d", i))
	}
	// the worst objects the CRD admits (their Update shapes below)
	for _, s := range validationtest.WorstShapes {
		if s.Update == nil {
			cases, names = append(cases, s.Build(validation.MaxListeners)), append(names, "worst "+s.Name)
		}
	}
	caseIn = make([]*validationtest.Declaration, len(cases))
	// the declared hostnames: the shared rows, and a third as many random
	// objects as above in each Namespace of validationtest.Declarations in
	// turn
	declarationCases := validationtest.DeclarationCases()
	// the verdict each declared-hostnames row wants, by case or stored name
	admits := map[string]bool{}
	for _, tc := range declarationCases {
		if tc.Old == nil {
			admits[tc.Name] = tc.Code == ""
			cases, names, caseIn = append(cases, tc.New), append(names, tc.Name), append(caseIn, &tc.Declaration)
		}
	}
	for i := range n / 3 {
		d := &declarations[i%len(declarations)]
		data := validationtest.BiasedFuzzBytes(rng)
		cases, names, caseIn = append(cases, validationtest.FuzzListenerSet(data)), append(names, fmt.Sprintf("fuzz-%d in %s", i, d.Namespace)), append(caseIn, d)
	}

	// Updates: a stored object (created before the policy exists, so it
	// may be invalid, as one stored before the policy was installed) and a
	// changed copy: a few of the generator's choices differ, so most
	// listeners stay as stored and ratcheting decides.
	type pair struct {
		stored *unstructured.Unstructured
		new    *gwv1.ListenerSet
		in     *validationtest.Declaration
	}
	var pairs []pair
	storeStart := time.Now()
	storeIn := func(d *validationtest.Declaration, name string, old, nls *gwv1.ListenerSet) bool {
		ns, cl := namespace, client
		if d != nil {
			ns, cl = d.Namespace, declClients[d.Namespace]
		}
		old, nls = old.DeepCopy(), nls.DeepCopy()
		old.TypeMeta = metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"}
		old.Namespace, old.Name, old.GenerateName = ns, name, ""
		stored, err := create(ctx, cl, old, false)
		if err != nil {
			return false // the CRD's schema refuses it: nothing to update
		}
		nls.TypeMeta, nls.Namespace, nls.Name, nls.GenerateName = old.TypeMeta, ns, name, ""
		nls.ResourceVersion = stored.GetResourceVersion()
		pairs = append(pairs, pair{stored, nls, d})
		return true
	}
	store := func(name string, old, nls *gwv1.ListenerSet) { storeIn(nil, name, old, nls) }
	var tablePairs int
	for i, call := range tableCalls {
		if call.Old != nil {
			store(fmt.Sprintf("table-%d", i), call.Old, call.New)
			tablePairs = len(pairs)
		}
	}
	var worstPairs int
	for _, s := range validationtest.WorstShapes {
		if s.Update != nil {
			store("worst-"+s.Name, s.Update(validation.MaxListeners), s.Build(validation.MaxListeners))
			worstPairs++
		}
	}
	if len(pairs)-tablePairs != worstPairs {
		t.Fatalf("the CRD refuses a stored worst object: %d of %d stored", len(pairs)-tablePairs, worstPairs)
	}
	nPairs := n
	for i := range nPairs {
		data := validationtest.BiasedFuzzBytes(rng)
		changed := slices.Clone(data)
		for range 1 + rng.IntN(2) {
			changed[rng.IntN(len(changed))] = byte(rng.IntN(3))
		}
		store(fmt.Sprintf("stored-%d", i), validationtest.FuzzListenerSet(data), validationtest.FuzzListenerSet(changed))
	}
	randomPairs := len(pairs) - tablePairs - worstPairs
	var declarationUpdates int
	for i, tc := range declarationCases {
		if tc.Old != nil {
			declarationUpdates++
			admits["update of "+tc.Declaration.Namespace+"/"+fmt.Sprintf("declared-%d", i)] = tc.Code == ""
			if !storeIn(&tc.Declaration, fmt.Sprintf("declared-%d", i), tc.Old, tc.New) {
				t.Errorf("%s: the CRD refuses the stored object", tc.Name)
			}
		}
	}
	for i := range nPairs / 3 {
		d := &declarations[i%len(declarations)]
		data := validationtest.BiasedFuzzBytes(rng)
		changed := slices.Clone(data)
		for range 1 + rng.IntN(2) {
			changed[rng.IntN(len(changed))] = byte(rng.IntN(3))
		}
		storeIn(d, fmt.Sprintf("stored-%d", i), validationtest.FuzzListenerSet(data), validationtest.FuzzListenerSet(changed))
	}
	t.Logf("stored objects for updates: %d of the tables' %d update rows, %d of %d random ones, and in the Namespaces of validationtest.Declarations %d declared-hostnames rows and %d of %d random ones accepted by the CRD, in %v",
		tablePairs, tableUpdates, randomPairs, nPairs, declarationUpdates, len(pairs)-tablePairs-worstPairs-randomPairs-declarationUpdates, nPairs/3,
		time.Since(storeStart).Round(time.Millisecond))

	p, err := policy.Generate(policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	installStart := time.Now()
	for _, pair := range p.Pairs() {
		if err := c.Client.Create(ctx, pair.Policy); err != nil {
			t.Fatal(err)
		}
	}
	created := time.Since(installStart)
	for _, pair := range p.Pairs() {
		if err := c.Client.Create(ctx, pair.Binding); err != nil {
			t.Fatal(err)
		}
	}
	waitForPolicy(t, c, client)
	t.Logf("policies created in %v (kube-apiserver compiles them to validate them), enforced %v after the create", created.Round(time.Millisecond), time.Since(installStart).Round(time.Millisecond))

	type outcome struct {
		policyDenied, schemaDenied, allowed, mismatch int
		// byValueRule: requests the policy denied, by each
		// ListenerValueRule whose error the message holds
		byValueRule map[string]int
	}
	var mu sync.Mutex
	out := outcome{byValueRule: map[string]int{}}
	work := make(chan int)
	var wg sync.WaitGroup
	sendStart := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				var ls *gwv1.ListenerSet
				var stored *unstructured.Unstructured
				var res result
				name := ""
				var in *validationtest.Declaration
				if i < len(cases) {
					in = caseIn[i]
					ns, cl := namespace, client
					if in != nil {
						ns, cl = in.Namespace, declClients[in.Namespace]
					}
					ls = cases[i].DeepCopy()
					ls.TypeMeta = metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"}
					ls.Namespace, ls.Name, ls.GenerateName = ns, fmt.Sprintf("case-%d", i), ""
					res, name = send(ctx, cl, ls, nil), names[i]
				} else {
					p := pairs[i-len(cases)]
					ls, stored, in = p.new, p.stored, p.in
					cl := client
					if in != nil {
						cl = declClients[in.Namespace]
					}
					res, name = send(ctx, cl, ls, stored), "update of "+ls.Namespace+"/"+ls.Name
				}
				mu.Lock()
				switch {
				case res.err != nil:
					t.Errorf("%s: %v", name, res.err)
				case res.schema:
					out.schemaDenied++
				case res.allowed:
					out.allowed++
				default:
					out.policyDenied++
				}
				for _, r := range validation.ListenerValueRules() {
					if !res.allowed && !res.schema && strings.Contains(res.message, r.Detail) {
						out.byValueRule[r.Name]++
					}
				}
				if want, ok := admits[name]; ok && res.err == nil && (res.schema || res.allowed != want) {
					t.Errorf("%s: kube-apiserver allowed=%v (by the CRD's schema %v), the row wants %v: %s", name, res.allowed, res.schema, want, res.message)
				}
				if msg := judgeIn(in, ls, stored, res); msg != "" {
					out.mismatch++
					t.Errorf("%s: %s", name, msg)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range len(cases) + len(pairs) {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(sendStart)
	total := len(cases) + len(pairs)
	t.Logf("%d dry-run requests (%d creates, %d updates, %d of them with a ratcheted error) in %v (%.0f/s, 8 clients): %d admitted, %d denied by the policy, %d denied by the CRD's schema first, %d differences",
		total, len(cases), len(pairs), ratcheted.Load(), elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), out.allowed, out.policyDenied, out.schemaDenied, out.mismatch)
	// each rule of one value (validation.ListenerValueRule) met: the
	// generator takes its examples
	for _, r := range validation.ListenerValueRules() {
		t.Logf("denied by the ListenerValueRule %s: %d requests", r.Name, out.byValueRule[r.Name])
		if out.byValueRule[r.Name] == 0 {
			t.Errorf("no request met the ListenerValueRule %s: the fuzz generator does not take its examples", r.Name)
		}
	}
	if out.policyDenied == 0 || out.allowed == 0 {
		t.Errorf("the cases reach neither verdict of the policy: %+v", out)
	}
	worstObjects(t, ctx, client)
}

// clientIn is a client of ListenerSets in namespace ns, its rate limits
// raised for thousands of requests.
func clientIn(t *testing.T, c *localcluster.Cluster, ns string) dynamic.ResourceInterface {
	cfg := *c.Config
	cfg.QPS, cfg.Burst = 1000, 1000
	dyn, err := dynamic.NewForConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(gvr).Namespace(ns)
}

// createDeclarations creates the Namespaces of validationtest.Declarations,
// each with its declaration, and checks that kube-apiserver stored it as
// given; it returns a client of ListenerSets in each.
func createDeclarations(t *testing.T, c *localcluster.Cluster) map[string]dynamic.ResourceInterface {
	ctx := context.Background()
	clients := map[string]dynamic.ResourceInterface{}
	for _, d := range validationtest.Declarations() {
		ns := &corev1.Namespace{ObjectMeta: d.Object().ObjectMeta}
		if err := c.Client.Create(ctx, ns); err != nil {
			t.Fatalf("Namespace %s: %v", d.Namespace, err)
		}
		var got corev1.Namespace
		if err := c.Client.Get(ctx, crclient.ObjectKey{Name: d.Namespace}, &got); err != nil {
			t.Fatal(err)
		}
		value, declared := got.Annotations[validation.DefaultAllowedHostnamesAnnotation]
		if declared != d.Declared || value != d.Value {
			t.Fatalf("Namespace %s: stored with the declaration %v %.80q, want %v %.80q", d.Namespace, declared, value, d.Declared, d.Value)
		}
		clients[d.Namespace] = clientIn(t, c, d.Namespace)
	}
	return clients
}

// startCluster starts kube-apiserver with the CRD set and the namespaces,
// and returns it with a client of ListenerSets in the first namespace, its
// rate limits raised for thousands of requests.
func startCluster(t *testing.T, root string, set localcluster.CRDSet, namespaces ...string) (*localcluster.Cluster, dynamic.ResourceInterface) {
	ctx := context.Background()
	start := time.Now()
	c, err := localcluster.Start(ctx, localcluster.Options{Root: root, Progress: os.Stderr, CRDs: set})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	t.Logf("control plane up in %v", time.Since(start).Round(100*time.Millisecond))
	for _, ns := range namespaces {
		if err := c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	return c, clientIn(t, c, namespaces[0])
}

// worstObjects: the costliest object for the policy that kube-apiserver
// takes (a request body holds 3 MiB; validation's worst objects are among
// the cases) is decided by the policy, not failed by its CEL budget: with
// option values as long as fit the body, denied with the policy's entries.
func worstObjects(t *testing.T, ctx context.Context, client dynamic.ResourceInterface) {
	const maxBody = 3 << 20
	w := policytest.Worst{ValueLen: 4096, RefNameLen: 63, Selector: 8}
	var worst *gwv1.ListenerSet
	var data []byte
	for ; w.ValueLen > 0; w.ValueLen -= 64 {
		worst = policytest.WorstListenerSet(w)
		if data, _ = json.Marshal(worst); len(data) < maxBody-64<<10 {
			break
		}
	}
	worst.Namespace = namespace
	start := time.Now()
	res := send(ctx, client, worst, nil)
	elapsed := time.Since(start)
	switch {
	case res.err != nil:
		t.Errorf("the worst object: %v", res.err)
	case res.allowed || res.schema:
		t.Errorf("the worst object: want the policy's denial, got %+v", res)
	case !strings.Contains(res.message, "denied request: spec."):
		t.Errorf("the worst object: the policy did not decide: %s", res.message)
	default:
		entries, _ := policytest.Entries(res.message)
		t.Logf("the worst object (%d bytes, option values of %d bytes): denied with %d entries shown in %v", len(data), w.ValueLen, len(entries), elapsed.Round(time.Millisecond))
	}
}

type result struct {
	allowed bool
	// schema: denied by the CRD (schema, CEL rules) before the policy ran
	schema  bool
	message string
	err     error
}

// send sends ls as a server-side dry-run create, or (stored set) update.
func send(ctx context.Context, client dynamic.ResourceInterface, ls *gwv1.ListenerSet, stored *unstructured.Unstructured) result {
	var err error
	if stored == nil {
		_, err = create(ctx, client, ls, true)
	} else {
		var obj *unstructured.Unstructured
		if obj, err = unstructuredOf(ls); err == nil {
			_, err = client.Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		}
	}
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return result{allowed: true}
	case errors.As(err, &status) && apierrors.IsInvalid(err):
		msg := status.Status().Message
		return result{schema: !deniedByPolicies(msg), message: msg}
	default:
		return result{err: err}
	}
}

// deniedByPolicies says whether kube-apiserver's message msg is a denial by
// one of the generated policies (policy.Generate's default names): the
// rules' or the declarations'.
func deniedByPolicies(msg string) bool {
	for _, name := range []string{policy.DefaultPolicyName, policy.DeclarationsPrefix + policy.DefaultPolicyName} {
		if strings.Contains(msg, localcluster.PolicyDenialPrefix+"'"+name+"'") {
			return true
		}
	}
	return false
}

func create(ctx context.Context, client dynamic.ResourceInterface, ls *gwv1.ListenerSet, dryRun bool) (*unstructured.Unstructured, error) {
	obj, err := unstructuredOf(ls)
	if err != nil {
		return nil, err
	}
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return client.Create(ctx, obj, opts)
}

func unstructuredOf(ls *gwv1.ListenerSet) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(ls)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// judge compares one answer with validation.Validate on the object as sent
// (Validate defaults it as kube-apiserver's CRD does); "" when they agree.
//
// On update, the stored object is the one kube-apiserver returned when it
// stored it (defaulted by the CRD), which is what admission compares with.
func judge(ls *gwv1.ListenerSet, stored *unstructured.Unstructured, res result) string {
	return judgeIn(nil, ls, stored, res)
}

// judgeIn is judge in the Namespace d (its declaration judged as
// validation's declared-hostnames rule judges it); nil: without a
// Cluster.
func judgeIn(d *validationtest.Declaration, ls *gwv1.ListenerSet, stored *unstructured.Unstructured, res result) string {
	if res.err != nil {
		return ""
	}
	data, _ := json.Marshal(ls)
	var sent gwv1.ListenerSet
	_ = json.Unmarshal(data, &sent)
	var old *gwv1.ListenerSet
	if stored != nil {
		data, _ := json.Marshal(stored.Object)
		old = &gwv1.ListenerSet{}
		_ = json.Unmarshal(data, old)
	}
	opts := validation.Options{}
	if d != nil {
		opts.Cluster = d.Cluster()
	}
	errs, warnings := validation.Validate(&sent, old, opts)
	for _, w := range warnings {
		if w.Kind == validation.KindRatcheted {
			ratcheted.Add(1)
			break
		}
	}
	switch {
	case res.schema:
		if len(errs) == 0 {
			return "the CRD denies what validation admits (not the policy's business): " + res.message
		}
		return ""
	case res.allowed != (len(errs) == 0):
		return fmt.Sprintf("kube-apiserver allowed=%v, validation errors %v, message %q", res.allowed, errs, res.message)
	case res.allowed:
		return ""
	}
	entries, truncated := policytest.Entries(res.message)
	got, want := policytest.Paths(entries), policytest.ErrorPaths(errs)
	if truncated || policytest.Cut(errs) {
		if p := policytest.NotCovered(got, errs); p != "" {
			return fmt.Sprintf("the policy reports %s, validation does not: %v", p, errs)
		}
		return ""
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("paths differ:\npolicy:     %q\nvalidation: %q", got, want)
	}
	return ""
}

// probeDeclaredNamespace is where waitForPolicy probes the declarations'
// policy: it declares a hostname no probe has.
const probeDeclaredNamespace = "policy-probe-declared"

// waitForPolicy waits until kube-apiserver enforces both policies (it loads
// policies from an informer): the rules' deny an address as a hostname in
// the first namespace (client's), the declarations' a hostname outside the
// declaration of a Namespace it creates.
func waitForPolicy(t *testing.T, c *localcluster.Cluster, client dynamic.ResourceInterface) {
	probe := func(ns, hostname string) *gwv1.ListenerSet {
		return &gwv1.ListenerSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"},
			ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
			Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"}, Listeners: []gwv1.ListenerEntry{{
				Name: "web", Port: 80, Protocol: "HTTP", Hostname: new(gwv1.Hostname(hostname)),
			}}},
		}
	}
	declared := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probeDeclaredNamespace,
		Annotations: map[string]string{validation.DefaultAllowedHostnamesAnnotation: "declared.example"}}}
	if err := c.Client.Create(context.Background(), declared); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, p := range []struct {
		client dynamic.ResourceInterface
		ls     *gwv1.ListenerSet
		name   string
	}{
		{client, probe(namespace, "10.0.0.1"), policy.DefaultPolicyName},
		{clientIn(t, c, probeDeclaredNamespace), probe(probeDeclaredNamespace, "probe.example.com"), policy.DeclarationsPrefix + policy.DefaultPolicyName},
	} {
		deadline := time.Now().Add(time.Minute)
		for {
			res := send(context.Background(), p.client, p.ls, nil)
			if !res.allowed && strings.Contains(res.message, localcluster.PolicyDenialPrefix+"'"+p.name+"'") && res.err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the policy %s is not enforced after a minute: %+v", p.name, res)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
