package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// sequencesEnv sets how many sequences TestSequences runs in each mode,
// seedsEnv which (comma-separated seeds, instead).
const (
	sequencesEnv = "E2E_SEQUENCES"
	seedsEnv     = "E2E_SEQUENCE_SEEDS"
)

// seqRouteSeeds are seeds kept for their HTTPRoute steps, which reach the
// route verdicts of seqRouteReach in both modes (the first seeds do not:
// most of their routes claim nothing, their sets gone or another
// implementation's): 104 a route created outside its declaration (LS319)
// and a ListenerSet write told of the claims it gives an attached route
// (LS319, LS320), 310 a route created with a name another owner's route
// holds (LS320) and one updated outside its declaration (LS319), 356 an
// update's new claim held by another owner (LS320).
var seqRouteSeeds = []uint64{104, 310, 356}

// seqRouteReach are the writes the kept seeds must reach in each mode (the
// model's Stats).
var seqRouteReach = []string{"route: a create, LS319", "route: a create, LS320", "route, LS319", "route, LS320",
	"arriving: the Gateway is missing, LS319", "arriving: the Gateway is missing, LS320"}

// TestSequences runs validationtest's sequences with HTTPRoutes
// (GenerateSequenceWithRoutes, the ones validation's TestSequences runs by
// the thousand in process) through kube-apiserver and the webhook, its
// HTTPRoute entry registered as the chart registers it, with
// --cluster-checks and Airlock's scope, first with --first-claim=warn, then
// deny: the requests as kubectl sends them (server-side apply with field
// manager "kubectl", of a ListenerSet or an HTTPRoute, label with
// "kubectl-label", a merge patch of spec.parentRef with "kubectl-patch"),
// so creationTimestamp and managedFields are kube-apiserver's own. The
// webhook's answer to each write (stored or refused, its errors and
// warnings, a route's per spec.hostnames[i]) is held to
// validationtest.Model, the stored ListenerSets and HTTPRoutes to its
// invariants after every step (Invariants, RouteInvariants), and the audit
// (validation.Judge with AsStored on the stored objects) to it after each
// sequence.
//
// Two things make the real cluster the model's: a barrier after each step
// waits until the webhook's view has the write (a probe the view answers
// only once it has a marker of the same kind written after it: the watch of
// each kind delivers in order), and a write whose time the rules read (a
// ListenerSet or HTTPRoute write, a Gateway created) waits for a second of
// its own, as the model's steps have (kube-apiserver's times are seconds).
// In each mode the seeds of validationtest.SeedsFile, seqRouteSeeds, then 1
// to 2, 12 to 20 s a sequence, in make test-all (not a quick test: make test
// runs the in-process sequences); E2E_SEQUENCES sets another number of
// random ones, E2E_SEQUENCE_SEEDS=229,59 which seeds alone; what the writes
// reached, and each sequence's wall time, is logged.
func TestSequences(t *testing.T) {
	requireCluster(t)
	n := 2
	if v := os.Getenv(sequencesEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("%s: %v", sequencesEnv, err)
		}
	}
	seeds, err := validationtest.RegressionSeeds(filepath.Join(root, validationtest.SeedsFile))
	if err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, seqRouteSeeds...)
	for seed := range uint64(n) {
		seeds = append(seeds, seed+1)
	}
	if v := os.Getenv(seedsEnv); v != "" {
		seeds = nil
		for _, f := range strings.Split(v, ",") {
			seed, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", seedsEnv, err)
			}
			seeds = append(seeds, seed)
		}
	}
	c := newSeqCluster(t)
	c.fixtures()
	t.Cleanup(c.cleanup)
	scope := []gwv1.GatewayController{validation.AirlockControllerName}
	restartWebhook(t, webhookSettings{enabled: true, scope: scope})
	for _, mode := range []validation.ClaimMode{validation.ClaimWarn, validation.ClaimDeny} {
		t.Run(string(mode), func(t *testing.T) {
			if mode != validation.ClaimWarn {
				switchWebhook(t, webhookSettings{enabled: true, scope: scope, firstClaim: mode})
			}
			c.t = t
			stats := map[string]int{}
			for _, seed := range seeds {
				c.run(seed, mode, stats)
			}
			for _, k := range slices.Sorted(maps.Keys(stats)) {
				t.Logf("%4d %s", stats[k], k)
			}
			for _, k := range seqRouteReach {
				if stats[k] == 0 && os.Getenv(seedsEnv) == "" {
					t.Errorf("no write reached %q: pick seqRouteSeeds anew (validation's TestSequences logs what each seed reaches with SEQUENCE_SEED)", k)
				}
			}
		})
	}
}

var (
	seqSetsGVR     = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"}
	seqGatewaysGVR = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "gateways"}
	seqClassesGVR  = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "gatewayclasses"}
	seqNsGVR       = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	seqRoutesGVR   = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "httproutes"}
)

// The probes' namespaces: seqProbe holds the marker set, route and
// Gateways, seqProbeCheck the dry runs that ask the view about them,
// seqProbeDecl the marker declaration and the dry runs that ask about it;
// seqProbeKey is a Gateway that never exists, whose sets claim by its key;
// seqProbeRoutes is the set in seqProbe on it, with a listener without a
// hostname, that the marker HTTPRoute attaches to.
const (
	seqProbe       = "seq-probe"
	seqProbeCheck  = "seq-probe-check"
	seqProbeDecl   = "seq-probe-decl"
	seqProbeKey    = seqProbe + "/none"
	seqProbeRoutes = "routes"
)

type seqCluster struct {
	t        *testing.T
	dyn      dynamic.Interface
	warnings *warningCollector
	// lastTimed is the second of the last write whose time the rules read.
	lastTimed time.Time
	probe     int
}

// warningCollector keeps the warnings of the responses (HTTP Warning
// headers, code 299).
type warningCollector struct {
	mu   sync.Mutex
	list []string
}

func (w *warningCollector) HandleWarningHeader(code int, _ string, text string) {
	if code == 299 {
		w.mu.Lock()
		w.list = append(w.list, text)
		w.mu.Unlock()
	}
}

func (w *warningCollector) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

func newSeqCluster(t *testing.T) *seqCluster {
	cfg := rest.CopyConfig(cluster.Config)
	w := &warningCollector{}
	cfg.WarningHandler = w
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &seqCluster{t: t, dyn: dyn, warnings: w}
}

func seqCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// fixtures: the namespaces, the two GatewayClasses, the probes'
// declaration.
func (c *seqCluster) fixtures() {
	for _, ns := range append([]string{"infra", seqProbe, seqProbeCheck, seqProbeDecl}, validationtest.SeqTenants...) {
		c.applyObject(seqNsGVR, "", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
	}
	for _, gc := range validationtest.SeqClasses() {
		c.applyObject(seqClassesGVR, "", map[string]any{"apiVersion": gwv1.GroupVersion.String(), "kind": "GatewayClass",
			"metadata": map[string]any{"name": gc.Name}, "spec": map[string]any{"controllerName": string(gc.Spec.ControllerName)}})
	}
	c.declare(seqProbeDecl, c.probeName("n", c.probe))
	c.applyObject(seqSetsGVR, seqProbe, c.manifest(validationtest.Step{Namespace: seqProbe, Name: seqProbeRoutes,
		Manifest: validationtest.Manifest{Parent: seqProbeKey, Rev: 1, Listeners: []validationtest.SeqListener{{Name: "l1"}}}}).Object)
}

func (c *seqCluster) applyObject(gvr schema.GroupVersionResource, ns string, obj map[string]any) *unstructured.Unstructured {
	c.t.Helper()
	ctx, cancel := seqCtx()
	defer cancel()
	u := &unstructured.Unstructured{Object: obj}
	out, err := c.dyn.Resource(gvr).Namespace(ns).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "e2e", Force: true})
	if err != nil {
		c.t.Fatalf("applying %s %s/%s: %v", gvr.Resource, ns, u.GetName(), err)
	}
	return out
}

// declare sets (or, value "", removes) ns's declaration.
func (c *seqCluster) declare(ns, value string) {
	c.t.Helper()
	var v any
	if value != "" {
		v = value
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{validation.DefaultAllowedHostnamesAnnotation: v}}})
	ctx, cancel := seqCtx()
	defer cancel()
	if _, err := c.dyn.Resource(seqNsGVR).Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		c.t.Fatalf("declaring %q on %s: %v", value, ns, err)
	}
}

// reset brings the cluster to NewSim's state: no sets of the tenants,
// the initial Gateways (created anew), the initial declarations.
func (c *seqCluster) reset() {
	ctx, cancel := seqCtx()
	defer cancel()
	for _, ns := range validationtest.SeqTenants {
		for _, gvr := range []schema.GroupVersionResource{seqRoutesGVR, seqSetsGVR} {
			if err := c.dyn.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				c.t.Fatal(err)
			}
		}
		c.declare(ns, validationtest.SeqInitialDeclarations[ns])
	}
	for _, key := range validationtest.SeqGatewayKeys {
		c.deleteGateway(key)
		if class := validationtest.SeqInitialClasses[key]; class != "" {
			c.createGateway(key, class)
		}
	}
	c.barrier(validationtest.OpDelete)
	c.barrier(validationtest.OpDeleteRoute)
	c.barrier(validationtest.OpCreateGateway)
	c.barrier(validationtest.OpDeclare)
	c.warnings.take()
}

func (c *seqCluster) cleanup() {
	ctx, cancel := seqCtx()
	defer cancel()
	for _, ns := range append([]string{seqProbe, seqProbeCheck, seqProbeDecl}, validationtest.SeqTenants...) {
		_ = c.dyn.Resource(seqRoutesGVR).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = c.dyn.Resource(seqSetsGVR).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		c.declare(ns, "")
	}
	for _, key := range validationtest.SeqGatewayKeys {
		c.deleteGateway(key)
	}
	_ = c.dyn.Resource(seqGatewaysGVR).Namespace(seqProbe).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
}

func (c *seqCluster) deleteGateway(key string) (found bool) {
	ns, name, _ := strings.Cut(key, "/")
	ctx, cancel := seqCtx()
	defer cancel()
	err := c.dyn.Resource(seqGatewaysGVR).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		c.t.Fatalf("deleting Gateway %s: %v", key, err)
	}
	return err == nil
}

func (c *seqCluster) createGateway(key, class string) (created bool) {
	gw := validationtest.SeqGateway(key, class, time.Time{})
	gw.APIVersion, gw.Kind = gwv1.GroupVersion.String(), "Gateway"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(gw)
	if err != nil {
		c.t.Fatal(err)
	}
	delete(obj["metadata"].(map[string]any), "creationTimestamp")
	ctx, cancel := seqCtx()
	defer cancel()
	_, err = c.dyn.Resource(seqGatewaysGVR).Namespace(gw.Namespace).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		c.t.Fatalf("creating Gateway %s: %v", key, err)
	}
	return err == nil
}

// run runs seed's sequence in mode.
func (c *seqCluster) run(seed uint64, mode validation.ClaimMode, stats map[string]int) {
	start := time.Now()
	c.reset()
	model := validationtest.NewModel(mode)
	var trace, bad []string
	routeSteps := 0
	for i, step := range validationtest.GenerateSequenceWithRoutes(seed) {
		if step.Op == validationtest.OpApplyRoute || step.Op == validationtest.OpDeleteRoute {
			routeSteps++
		}
		x := model.Expect(step)
		out := c.do(step)
		trace = append(trace, fmt.Sprintf("%2d %s%s", i+1, step, validationtest.Describe(out)))
		for _, b := range slices.Concat(model.Check(x, out), model.Invariants(c.sets()), model.RouteInvariants(c.routes())) {
			bad = append(bad, fmt.Sprintf("step %d: %s", i+1, b))
		}
		if len(bad) > 0 {
			break
		}
	}
	if len(bad) == 0 {
		objects := c.objects()
		bad = model.Audit(objects, func(ls *gwv1.ListenerSet, o *validation.Objects) validationtest.Verdict {
			r := validation.Judge(ls, nil, validation.Options{Cluster: o, Classes: o, Routes: o, AsStored: true, Tenancy: validation.Tenancy{FirstClaim: mode},
				Scope: validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}})
			return validationtest.VerdictOf(r.Errors.List(), r.Warnings.List())
		})
	}
	for k, v := range model.Stats {
		stats[k] += v
	}
	c.t.Logf("seed %d: %d steps, %d of HTTPRoutes, in %s", seed, len(trace), routeSteps, time.Since(start).Round(100*time.Millisecond))
	if len(bad) > 0 {
		c.t.Errorf("seed %d, first claim %s, through kube-apiserver (SEQUENCE_SEED=%d go test -run TestSequences ./validation runs it in process):\n%s\n%s",
			seed, mode, seed, strings.Join(trace, "\n"), strings.Join(bad, "\n"))
	}
}

// timed waits until the clock is a second past the last timed write (the
// caller marks its own after it): the rules read these times at the
// second.
func (c *seqCluster) timed() {
	if d := time.Until(c.lastTimed.Add(time.Second)); d > 0 {
		time.Sleep(d)
	}
}

// do sends step and waits until the webhook's view has what it changed.
func (c *seqCluster) do(step validationtest.Step) validationtest.Outcome {
	c.t.Helper()
	out := validationtest.Outcome{Step: step}
	ctx, cancel := seqCtx()
	defer cancel()
	gvr := seqSetsGVR
	if step.Op == validationtest.OpApplyRoute || step.Op == validationtest.OpDeleteRoute {
		gvr = seqRoutesGVR
	}
	res := c.dyn.Resource(gvr).Namespace(step.Namespace)
	switch step.Op {
	case validationtest.OpDelete, validationtest.OpDeleteRoute:
		err := res.Delete(ctx, step.Name, metav1.DeleteOptions{})
		if out.Skipped = apierrors.IsNotFound(err); err != nil && !out.Skipped {
			c.t.Fatalf("%s: %v", step, err)
		}
	case validationtest.OpDeleteGateway:
		out.Skipped = !c.deleteGateway(step.Gateway)
	case validationtest.OpCreateGateway:
		c.timed()
		out.Skipped = !c.createGateway(step.Gateway, step.Class)
		c.lastTimed = time.Now().Truncate(time.Second)
	case validationtest.OpDeclare:
		c.declare(step.Namespace, step.Value)
	default:
		old, err := res.Get(ctx, step.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			if step.Op != validationtest.OpApply && step.Op != validationtest.OpApplyRoute {
				out.Skipped = true
				return out
			}
			old = nil
		case err != nil:
			c.t.Fatalf("%s: %v", step, err)
		}
		c.timed()
		c.warnings.take()
		var stored *unstructured.Unstructured
		switch step.Op {
		case validationtest.OpApply:
			stored, err = res.Apply(ctx, step.Name, c.manifest(step), metav1.ApplyOptions{FieldManager: "kubectl", Force: true})
		case validationtest.OpApplyRoute:
			stored, err = res.Apply(ctx, step.Name, routeManifest(step), metav1.ApplyOptions{FieldManager: "kubectl", Force: true})
		case validationtest.OpLabel:
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{validationtest.SeqTagLabel: step.Value}}})
			stored, err = res.Patch(ctx, step.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-label"})
		case validationtest.OpPatchParent:
			ref := validationtest.SeqParentRef(step.Gateway)
			patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"parentRef": map[string]any{"name": ref.Name, "namespace": *ref.Namespace}}})
			stored, err = res.Patch(ctx, step.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-patch"})
		}
		c.lastTimed = time.Now().Truncate(time.Second)
		out.Verdict = c.verdict(step, err)
		if err != nil {
			stored = nil // refused: nothing changed
		}
		if out.RouteWrite = step.Op == validationtest.OpApplyRoute; out.RouteWrite {
			out.OldRoute, out.NewRoute = typed[gwv1.HTTPRoute](c.t, old), typed[gwv1.HTTPRoute](c.t, stored)
		} else {
			out.Write = true
			out.Old, out.New = typed[gwv1.ListenerSet](c.t, old), typed[gwv1.ListenerSet](c.t, stored)
		}
		if err != nil {
			return out
		}
		if out.NoOp = old != nil && old.GetResourceVersion() == stored.GetResourceVersion(); out.NoOp {
			return out
		}
	}
	if !out.Skipped {
		c.barrier(step.Op)
	}
	return out
}

// verdict is the webhook's answer: the warnings collected and, when the
// request was refused, the causes of its Invalid status.
func (c *seqCluster) verdict(step validationtest.Step, err error) validationtest.Verdict {
	var v validationtest.Verdict
	for _, w := range c.warnings.take() {
		path, msg, _ := strings.Cut(w, ": ")
		v.Warnings = append(v.Warnings, validationtest.Finding{Code: codeOf(path, msg), Path: path, Message: msg})
	}
	if err == nil {
		return v
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		c.t.Fatalf("%s: not a denial with causes: %v", step, err)
	}
	for _, cause := range status.Status().Details.Causes {
		msg := detailOf(cause.Message)
		v.Errors = append(v.Errors, validationtest.Finding{Code: codeOf(cause.Field, msg), Path: cause.Field, Message: msg})
	}
	return v
}

// detailOf is a cause's message without the error type that
// apierrors.NewInvalid puts before the detail ("Forbidden: "): the
// message as validationtest.VerdictOf has it in process.
func detailOf(msg string) string {
	for _, t := range []field.ErrorType{field.ErrorTypeForbidden, field.ErrorTypeRequired} {
		if d, ok := strings.CutPrefix(msg, t.String()+": "); ok {
			return d
		}
	}
	return msg
}

// givenTo are the fixed parts of validation.DetailGivenToRoute.
var givenTo = strings.Split(validation.DetailGivenToRoute, "%s")

// codeOf is the tenancy code of a finding at path as the webhook's
// response words it (validationtest.CodeOfMessage). A route claim's
// finding is worded as a listener's, its codes are the routes' (LS319,
// LS320): at an HTTPRoute's hostname (spec.hostnames), or a ListenerSet
// write's of the claim it gives an attached route (validation.DetailGivenToRoute).
func codeOf(path, msg string) findings.Code {
	code := validationtest.CodeOfMessage(msg)
	given := strings.HasPrefix(msg, givenTo[0]) && strings.Contains(msg, givenTo[2])
	if !given && !strings.HasPrefix(path, "spec.hostnames") {
		return code
	}
	switch code {
	case validation.CodeHostnameNotDeclared:
		return validation.CodeRouteHostnameNotDeclared
	case validation.CodeHostnameClaimed:
		return validation.CodeRouteHostnameClaimed
	}
	return code
}

// manifest is step's manifest as kubectl apply sends it.
func (c *seqCluster) manifest(step validationtest.Step) *unstructured.Unstructured {
	ref := validationtest.SeqParentRef(step.Manifest.Parent)
	var listeners []any
	for _, l := range validationtest.SeqListeners(step.Manifest.Listeners) {
		e := map[string]any{"name": string(l.Name), "port": int64(l.Port), "protocol": string(l.Protocol)}
		if l.Hostname != nil {
			e["hostname"] = string(*l.Hostname)
		}
		listeners = append(listeners, e)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gwv1.GroupVersion.String(), "kind": "ListenerSet",
		"metadata": map[string]any{"name": step.Name, "namespace": step.Namespace,
			"labels": map[string]any{validationtest.SeqRevLabel: strconv.Itoa(step.Manifest.Rev)}},
		"spec": map[string]any{"parentRef": map[string]any{"name": string(ref.Name), "namespace": string(*ref.Namespace)}, "listeners": listeners},
	}}
}

// routeManifest is step's HTTPRoute manifest as kubectl apply sends it:
// one parentRef, to the ListenerSet of step.Route (a listener of it, or
// all), and its hostnames.
func routeManifest(step validationtest.Step) *unstructured.Unstructured {
	ref := map[string]any{"group": gwv1.GroupName, "kind": "ListenerSet", "name": step.Route.Set}
	if step.Route.Section != "" {
		ref["sectionName"] = step.Route.Section
	}
	hostnames := []any{}
	for _, h := range step.Route.Hostnames {
		hostnames = append(hostnames, h)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gwv1.GroupVersion.String(), "kind": "HTTPRoute",
		"metadata": map[string]any{"name": step.Name, "namespace": step.Namespace},
		"spec":     map[string]any{"parentRefs": []any{ref}, "hostnames": hostnames},
	}}
}

// typed is u as a T, nil for nil.
func typed[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	if u == nil {
		return nil
	}
	var obj T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &obj); err != nil {
		t.Fatal(err)
	}
	return &obj
}

// sets are the tenants' stored ListenerSets.
func (c *seqCluster) sets() []*gwv1.ListenerSet { return stored[gwv1.ListenerSet](c, seqSetsGVR) }

// routes are the tenants' stored HTTPRoutes.
func (c *seqCluster) routes() []*gwv1.HTTPRoute { return stored[gwv1.HTTPRoute](c, seqRoutesGVR) }

// stored are the tenants' stored objects of gvr, as T.
func stored[T any](c *seqCluster, gvr schema.GroupVersionResource) []*T {
	c.t.Helper()
	ctx, cancel := seqCtx()
	defer cancel()
	var out []*T
	for _, ns := range validationtest.SeqTenants {
		list, err := c.dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		for i := range list.Items {
			out = append(out, typed[T](c.t, &list.Items[i]))
		}
	}
	return out
}

// objects are the stored sets, Gateways, classes and Namespaces of the
// sequences, as the audit reads them.
func (c *seqCluster) objects() *validation.Objects {
	c.t.Helper()
	ctx, cancel := seqCtx()
	defer cancel()
	o := &validation.Objects{Sets: c.sets(), Routes: c.routes(), Classes: validationtest.SeqClasses(), Gateways: []*gwv1.Gateway{}}
	for _, key := range validationtest.SeqGatewayKeys {
		ns, name, _ := strings.Cut(key, "/")
		u, err := c.dyn.Resource(seqGatewaysGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			c.t.Fatal(err)
		}
		var gw gwv1.Gateway
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &gw); err != nil {
			c.t.Fatal(err)
		}
		o.Gateways = append(o.Gateways, &gw)
	}
	for _, ns := range append([]string{"infra"}, validationtest.SeqTenants...) {
		u, err := c.dyn.Resource(seqNsGVR).Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		o.Namespaces = append(o.Namespaces, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: u.GetLabels(), Annotations: u.GetAnnotations()}})
	}
	return o
}

func (c *seqCluster) probeName(prefix string, n int) string {
	return fmt.Sprintf("%s%d.probe.example.com", prefix, n)
}

// barrier waits until the webhook's view has the write of a step of op:
// it writes a marker of the same kind after it, and asks, by dry runs the
// view answers from that kind, until the view has the marker.
func (c *seqCluster) barrier(op validationtest.Op) {
	c.t.Helper()
	c.probe++
	p := c.probe
	set := func(ns, parent string, hostnames ...string) validationtest.Step {
		step := validationtest.Step{Namespace: ns, Name: "check", Manifest: validationtest.Manifest{Parent: parent, Rev: 1}}
		for i, h := range hostnames {
			step.Manifest.Listeners = append(step.Manifest.Listeners, validationtest.SeqListener{Name: fmt.Sprintf("l%d", i+1), Hostname: h})
		}
		return step
	}
	var done func() bool
	switch op {
	case validationtest.OpDeclare:
		// the declaration n<p>: a set claiming n<p> and n<p-1> is refused
		// for the second alone
		c.declare(seqProbeDecl, c.probeName("n", p))
		done = func() bool {
			v := c.dryRun(set(seqProbeDecl, seqProbeKey, c.probeName("n", p), c.probeName("n", p-1)))
			return len(v.Errors) == 1 && v.Errors[0].Path == "spec.listeners[1].hostname"
		}
	case validationtest.OpCreateGateway, validationtest.OpDeleteGateway:
		// the Gateway g<p>, another implementation's: a set on it is
		// told nothing (not even that its Gateway is not found)
		key := fmt.Sprintf("%s/g%d", seqProbe, p)
		c.createGateway(key, validationtest.SeqOtherClass)
		c.deleteGateway(fmt.Sprintf("%s/g%d", seqProbe, p-1))
		done = func() bool {
			v := c.dryRun(set(seqProbeCheck, key, c.probeName("m", 0)))
			return len(v.Errors)+len(v.Warnings) == 0
		}
	case validationtest.OpApplyRoute, validationtest.OpDeleteRoute:
		// the marker route's hostname r<p>, through seqProbeRoutes'
		// listener without a hostname: another owner's set claiming it
		// is told a route holds it
		c.applyObject(seqRoutesGVR, seqProbe, routeManifest(validationtest.Step{Namespace: seqProbe, Name: "marker",
			Route: validationtest.RouteManifest{Set: seqProbeRoutes, Hostnames: []string{c.probeName("r", p)}}}).Object)
		held := fmt.Sprintf("%q is held by namespace %q (HTTPRoute %s/marker,", c.probeName("r", p), seqProbe, seqProbe)
		done = func() bool {
			v := c.dryRun(set(seqProbeCheck, seqProbeKey, c.probeName("r", p)))
			return slices.ContainsFunc(append(v.Errors, v.Warnings...), func(f validationtest.Finding) bool { return strings.Contains(f.Message, held) })
		}
	default:
		// the marker set's hostname m<p>: another owner's set claiming
		// it is told it is held (warned, or refused under deny)
		c.applyObject(seqSetsGVR, seqProbe, c.manifest(set(seqProbe, seqProbeKey, c.probeName("m", p))).Object)
		held := fmt.Sprintf("%q is held by", c.probeName("m", p))
		done = func() bool {
			v := c.dryRun(set(seqProbeCheck, seqProbeKey, c.probeName("m", p)))
			for _, f := range append(v.Errors, v.Warnings...) {
				if strings.Contains(f.Message, held) {
					return true
				}
			}
			return false
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			c.t.Fatalf("the webhook's view did not catch up with a %s within 15s", op)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dryRun applies step's manifest with dryRun=All: the webhook's verdict,
// nothing stored.
func (c *seqCluster) dryRun(step validationtest.Step) validationtest.Verdict {
	ctx, cancel := seqCtx()
	defer cancel()
	c.warnings.take()
	_, err := c.dyn.Resource(seqSetsGVR).Namespace(step.Namespace).Apply(ctx, step.Name, c.manifest(step),
		metav1.ApplyOptions{FieldManager: "e2e", Force: true, DryRun: []string{metav1.DryRunAll}})
	return c.verdict(step, err)
}
