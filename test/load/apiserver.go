package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// apiState is what kube-apiserver calls on a ListenerSet write.
type apiState struct {
	Name string `json:"name"`
	// mutate and validate name the server each webhook points at ("" when
	// the webhook is not called).
	mutate, validate string
	// policy: the generated ValidatingAdmissionPolicy is bound (policy.go).
	policy   bool
	register func(c *apiCluster) error
}

type apiStateResult struct {
	Name    string  `json:"name"`
	Creates int     `json:"creates"`
	MeanMs  float64 `json:"meanMs"`
	P50Ms   float64 `json:"p50Ms"`
	P99Ms   float64 `json:"p99Ms"`
	samples []time.Duration
}

type apiResult struct {
	CreatesPerState int              `json:"createsPerState"`
	Rounds          int              `json:"rounds"`
	States          []apiStateResult `json:"states"`
	// OursMutateCallsWithMatchConditions counts the calls that reached our
	// mutating webhook while it was registered with matchConditions: the
	// CRD defaults every field, so it should be none.
	OursMutateCallsWithMatchConditions float64 `json:"oursMutateCallsWithMatchConditions"`
	StartSeconds                       float64 `json:"controlPlaneStartSeconds"`
	// PolicyCost is what the policy's CEL costs inside kube-apiserver
	// (policy.go), from its admission metrics.
	PolicyCost *policyCost `json:"policyCost,omitempty"`
}

type apiCluster struct {
	*localcluster.Cluster
	client        client.Client
	servers       map[string]*server
	ca            []byte
	namespace     string
	probeSequence int
	policy        *apiPolicy // policy.go
}

// apiserverFigure times sequential creates of the typical ListenerSet
// through a real kube-apiserver in seven states, alternating in rounds: no
// webhooks, the floor registered as both webhooks, ours as both, ours with
// the mutating webhook's matchConditions (as installed), the floor as the
// validating webhook only (the least any validating webhook costs), the
// generated ValidatingAdmissionPolicy alone (the chart's admission.mode
// policy), and the policy with ours as webhooks failing open, with the
// cluster-aware checks on (admission.mode both). Then it measures the
// policy's CEL inside kube-apiserver (policyCostFigure).
func apiserverFigure(ctx context.Context, root, oursBin, floorBin, outDir string, perState, rounds int) (*apiResult, error) {
	say("API server figure: starting etcd and kube-apiserver (hack/k8s-binaries.sh builds them the first time, ~11 min)")
	t0 := time.Now()
	lc, err := localcluster.Start(ctx, localcluster.Options{Root: root, Progress: os.Stderr})
	if err != nil {
		return nil, err
	}
	defer lc.Stop()
	res := &apiResult{CreatesPerState: perState, Rounds: rounds, StartSeconds: time.Since(t0).Seconds()}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := gwv1.Install(scheme); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(lc.Config)
	cfg.QPS = -1 // no client-side rate limit: sequential creates must not wait for tokens
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	c := &apiCluster{Cluster: lc, client: cl, servers: map[string]*server{}, namespace: "load"}
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
		return nil, err
	}

	cert, err := localcluster.NewServingCert(filepath.Join(outDir, "apiserver-certs"), "127.0.0.1", "localhost")
	if err != nil {
		return nil, err
	}
	c.ca = cert.CAPEM
	for name, bin := range map[string]string{"ours": oursBin, "floor": floorBin} {
		args := []string{}
		if name == "ours" {
			args = append([]string{"serve"}, testproc.ServeFlags()...)
		}
		s, err := startServer(ctx, name, bin, args, cert.Dir, filepath.Join(outDir, "apiserver-"+name+".log"))
		if err != nil {
			return nil, err
		}
		defer s.stop()
		c.servers[name] = s
	}
	// Ours as admission.mode both runs it: the cluster-aware checks on, with
	// the cluster's informers (the chart's default there: no Secrets).
	cc, err := startServer(ctx, oursClusterChecks, oursBin, append(append([]string{"serve"}, testproc.ServeFlags()...), "--scope=class", "--cluster-checks", "--kubeconfig="+lc.KubeconfigPath),
		cert.Dir, filepath.Join(outDir, "apiserver-"+oursClusterChecks+".log"))
	if err != nil {
		return nil, err
	}
	defer cc.stop()
	c.servers[oursClusterChecks] = cc
	if err := c.createPolicy(ctx); err != nil {
		return nil, err
	}

	states := []apiState{
		{Name: "no webhooks", register: func(c *apiCluster) error { return c.unregister(ctx) }},
		{Name: "floor", mutate: "floor", validate: "floor", register: func(c *apiCluster) error { return c.register(ctx, "floor", false) }},
		{Name: "ours", mutate: "ours", validate: "ours", register: func(c *apiCluster) error { return c.register(ctx, "ours", false) }},
		{Name: "ours+matchConditions", validate: "ours", register: func(c *apiCluster) error { return c.register(ctx, "ours", true) }},
		// What ours+matchConditions costs at best: one decode-and-allow call.
		{Name: "floor, validating only", validate: "floor", register: func(c *apiCluster) error { return c.registerValidatingOnly(ctx, "floor") }},
		{Name: statePolicyOnly, policy: true, register: func(c *apiCluster) error { return c.unregister(ctx) }},
		{Name: statePolicyAndWebhook, policy: true, validate: oursClusterChecks, register: func(c *apiCluster) error {
			return c.registerIgnore(ctx, oursClusterChecks)
		}},
	}
	results := make([]apiStateResult, len(states))
	for i, s := range states {
		results[i].Name = s.Name
	}
	perRound := max(perState/rounds, 1)
	for round := -1; round < rounds; round++ { // round -1 warms everything up and is not counted
		for k := range states {
			i := (k + max(round, 0)) % len(states) // rotate the order, so no state always follows another
			s := states[i]
			if err := s.register(c); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			if err := c.bindPolicy(ctx, s.policy); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			if err := c.waitFor(ctx, s); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			n := perRound
			if round < 0 {
				n = 10
			}
			mBefore, _, _ := c.servers["ours"].calls()
			for j := range n {
				ls := fixtures.TwoListeners()
				ls.Namespace = c.namespace
				ls.Name = fmt.Sprintf("s%d-r%d-%d", i, round+1, j)
				t := time.Now()
				if err := c.client.Create(ctx, ls); err != nil {
					return nil, fmt.Errorf("%s: create %s: %w", s.Name, ls.Name, err)
				}
				if round >= 0 {
					results[i].samples = append(results[i].samples, time.Since(t))
				}
			}
			if s.Name == "ours+matchConditions" && round >= 0 {
				mAfter, _, _ := c.servers["ours"].calls()
				res.OursMutateCallsWithMatchConditions += mAfter - mBefore
			}
		}
		if round >= 0 {
			say("API server figure: round %d of %d done", round+1, rounds)
		}
	}
	for i := range results {
		r := &results[i]
		slices.Sort(r.samples)
		r.Creates = len(r.samples)
		var sum time.Duration
		for _, d := range r.samples {
			sum += d
		}
		r.MeanMs = ms(sum / time.Duration(max(len(r.samples), 1)))
		r.P50Ms, r.P99Ms = ms(percentile(r.samples, 50)), ms(percentile(r.samples, 99))
	}
	res.States = results
	if res.PolicyCost, err = policyCostFigure(ctx, c); err != nil {
		return nil, fmt.Errorf("the policy's CEL cost: %w", err)
	}
	return res, nil
}

func (c *apiCluster) endpoint(server string) localcluster.WebhookEndpoint {
	return localcluster.WebhookEndpoint{
		BaseURL: c.servers[server].baseURL(), MutatePath: admission.MutatePath, ValidatePath: admission.ValidatePath, CABundle: c.ca,
	}
}

// register points both webhook configurations at server, as the local
// cluster registers them; without matchConditions unless asked.
func (c *apiCluster) register(ctx context.Context, server string, matchConditions bool) error {
	m, v := localcluster.WebhookConfigurations(c.endpoint(server))
	if !matchConditions {
		m.Webhooks[0].MatchConditions = nil
	}
	return c.put(ctx, m, v)
}

// put creates or updates objs.
func (c *apiCluster) put(ctx context.Context, objs ...client.Object) error {
	for _, obj := range objs {
		existing := obj.DeepCopyObject().(client.Object)
		err := c.client.Get(ctx, client.ObjectKeyFromObject(obj), existing)
		switch {
		case apierrors.IsNotFound(err):
			err = c.client.Create(ctx, obj)
		case err == nil:
			obj.SetResourceVersion(existing.GetResourceVersion())
			err = c.client.Update(ctx, obj)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// registerValidatingOnly points the validating configuration at server and
// removes the mutating one.
func (c *apiCluster) registerValidatingOnly(ctx context.Context, server string) error {
	if err := c.register(ctx, server, false); err != nil {
		return err
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: localcluster.MutatingConfigName}}
	if err := c.client.Delete(ctx, m); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

func (c *apiCluster) unregister(ctx context.Context) error {
	for _, obj := range []client.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: localcluster.MutatingConfigName}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: localcluster.ValidatingConfigName}},
	} {
		if err := c.client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// waitFor probes with server-side dry-run creates until kube-apiserver calls
// exactly the webhooks of s (it picks up configuration changes within a
// second or so), telling the servers apart by their request counters.
func (c *apiCluster) waitFor(ctx context.Context, s apiState) error {
	deadline := time.Now().Add(30 * time.Second)
	type count struct{ m, v float64 }
	read := func() (map[string]count, error) {
		out := map[string]count{}
		for name, srv := range c.servers {
			m, v, err := srv.calls()
			if err != nil {
				return nil, err
			}
			out[name] = count{m, v}
		}
		return out, nil
	}
	for {
		before, err := read()
		if err != nil {
			return err
		}
		c.probeSequence++
		probe := fixtures.TwoListeners()
		probe.Namespace, probe.Name = c.namespace, fmt.Sprintf("probe-%d", c.probeSequence)
		if err := c.client.Create(ctx, probe, client.DryRunAll); err != nil {
			return fmt.Errorf("dry-run probe: %w", err)
		}
		matched := false
		for settle := time.Now().Add(300 * time.Millisecond); ; {
			after, err := read()
			if err != nil {
				return err
			}
			matched = true
			for name := range c.servers {
				dm, dv := after[name].m-before[name].m, after[name].v-before[name].v
				if (dm > 0) != (s.mutate == name) || (dv > 0) != (s.validate == name) {
					matched = false
				}
			}
			if matched || time.Now().After(settle) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if matched {
			matched, err = c.policyMatches(ctx, s)
			if err != nil {
				return err
			}
		}
		if matched {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver does not call the webhooks of state %q after 30s", s.Name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
