package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// gitopsManager is the field manager the test applies the chart as, as Argo
// CD's server-side apply does (its manager is argocd-controller).
const gitopsManager = "argocd-controller"

// TestGitOpsServerSideApply applies the chart's render as a GitOps tool
// does, every object at once with server-side apply, in the
// self-bootstrapped mode (cert-manager's controller and cainjector cannot
// be run here); the webhook, run with the Deployment's args as its
// ServiceAccount, fills in what it fills in; then the same render applied
// again must change nothing (no drift to ignore), and what others own is
// listed. On the way it measures the first-sync window: how long after the
// webhook configurations are registered, with failurePolicy Fail, a
// ListenerSet write fails, and what it fails with.
func TestGitOpsServerSideApply(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	const (
		name   = "gitops"
		ns     = "lsw-gitops"
		appNS  = "lsw-gitops-apps"
		scopes = "gitops"
	)
	rel := &helmRelease{name: name, ns: ns, kubeconfig: c.KubeconfigPath}
	ensureNamespace(ctx, t, c.Client, ns)
	ensureLabelledNamespace(ctx, t, c.Client, appNS, map[string]string{"lsw-e2e": scopes})
	out, err := runHelm(ctx, t, "", templateArgs(name, ns, []string{"--kube-version", serverVersion(t, c),
		"--set", "certManager.enabled=false", "--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=" + scopes,
		"--set-json", `webhook.namespaceSelector.matchExpressions=[{"key":"` + bypassLabel + `","operator":"DoesNotExist"}]`})...)
	require.NoError(t, err)
	objs, err := decodeObjects(out)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, u := range objs {
			_ = c.Client.Delete(context.Background(), u.DeepCopy())
		}
	})

	// The first sync: every object at once (the webhook configurations
	// last, as helm orders them), and a client writing ListenerSets from
	// then on.
	for _, u := range objs {
		require.NoError(t, applyAs(ctx, c.Client, u.DeepCopy()),
			"%s/%s", u.GetKind(), u.GetName())
	}
	applied := time.Now()
	w := startWriter(c.Client, appNS)
	defer w.stop()
	dep := &appsv1.Deployment{}
	require.NoError(t, c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: rel.fullname()}, dep))
	pod := dep.Spec.Template.Spec
	r := newReplica(t, "r0", pod.Containers[0].Args, "--kubeconfig="+serviceAccountKubeconfig(t, c, ns, pod.ServiceAccountName))
	r.start(t)
	started := time.Now()
	r.waitReady(t, 90*time.Second)
	endpointSlice(ctx, t, c.Client, rel, r, hostIP(t))
	eventually(t, 60*time.Second, "a ListenerSet write succeeds", w.succeeded)
	first, kinds, failures, firstOK := w.window()
	t.Logf("first sync: webhooks registered (Fail) %s before the first admitted write; the webhook process took %s of it "+
		"from its start to an admitted write (a pod adds scheduling, the image and its readiness probe); "+
		"%d writes failed meanwhile, the first with %q; the errors, in order: %q",
		firstOK.Sub(applied).Round(10*time.Millisecond), firstOK.Sub(started).Round(10*time.Millisecond), failures, first, kinds)
	assert.Contains(t, first, "failed calling webhook", "writes fail while the webhook is registered and not serving")
	require.NoError(t, checkAdmission(ctx, c.Client, appNS, 0))

	// The same render again: what would change (a GitOps tool's drift), and
	// what others own.
	var drift, others []string
	for _, u := range objs {
		id := u.GetKind() + "/" + u.GetName()
		live := u.DeepCopy()
		require.NoError(t, c.Client.Get(ctx, client.ObjectKeyFromObject(u), live), id)
		dry := u.DeepCopy()
		require.NoError(t, applyAs(ctx, c.Client, dry, client.DryRunAll), id)
		for _, p := range diffPaths(stripMeta(live.Object), stripMeta(dry.Object), "") {
			drift = append(drift, id+" "+p)
		}
		for _, mf := range live.GetManagedFields() {
			if mf.Manager == gitopsManager || mf.FieldsV1 == nil {
				continue
			}
			var fields map[string]any
			require.NoError(t, json.Unmarshal(mf.FieldsV1.GetRawBytes(), &fields))
			for _, p := range fieldPaths(fields, "") {
				others = append(others, fmt.Sprintf("%s %s (%s, %s)", id, p, mf.Manager, mf.Operation))
			}
		}
	}
	sort.Strings(others)
	t.Logf("filled in by others (%d fields):\n  %s", len(others), strings.Join(others, "\n  "))
	assert.Empty(t, drift, "applying the same render again would change these fields")
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		assert.True(t, slices.ContainsFunc(others, func(s string) bool {
			return strings.HasPrefix(s, kind+"/"+rel.fullname()+" ") && strings.Contains(s, ".clientConfig.caBundle")
		}), "the webhook owns %s's caBundle: %v", kind, others)
	}
	assert.True(t, slices.ContainsFunc(others, func(s string) bool {
		return strings.HasPrefix(s, "Secret/"+rel.fullname()+"-ca .data")
	}), "the webhook owns its CA Secret's data: %v", others)

	// Applied for real: the webhook keeps answering, its caBundle stays.
	for _, u := range objs {
		require.NoError(t, applyAs(ctx, c.Client, u.DeepCopy()))
	}
	for i := range 5 {
		require.NoError(t, checkAdmission(ctx, c.Client, appNS, i), "after the second apply")
	}

	// The emergency bypass (docs/runbook.md): with the webhook down, writes
	// fail (failurePolicy Fail) until an administrator labels the
	// namespace; a sync of the same render does not undo the label.
	r.stop(t)
	err = c.Client.Create(ctx, listenerSet(appNS, "down", true), client.DryRunAll)
	require.Error(t, err, "the webhook is down and failurePolicy is Fail")
	assert.Contains(t, err.Error(), "failed calling webhook")
	setNamespaceLabel(ctx, t, c.Client, appNS, bypassLabel, "incident-1")
	for _, u := range objs {
		require.NoError(t, applyAs(ctx, c.Client, u.DeepCopy()))
	}
	eventually(t, 30*time.Second, "a write in the labelled namespace is admitted with the webhook down", func() error {
		return c.Client.Create(ctx, listenerSet(appNS, "bypassed", false), client.DryRunAll)
	})
	setNamespaceLabel(ctx, t, c.Client, appNS, bypassLabel, "")
	eventually(t, 30*time.Second, "without the label the write fails again", func() error {
		if err := c.Client.Create(ctx, listenerSet(appNS, "down", true), client.DryRunAll); err == nil {
			return errors.New("admitted")
		}
		return nil
	})
}

// bypassLabel is the namespace label docs/runbook.md's emergency bypass
// excludes with webhook.namespaceSelector.
const bypassLabel = "listenerset-webhook.airlock.com/bypass"

// setNamespaceLabel sets a label of a namespace, or removes it ("").
func setNamespaceLabel(ctx context.Context, t *testing.T, c client.Client, ns, key, value string) {
	t.Helper()
	n := &corev1.Namespace{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: ns}, n))
	if value == "" {
		delete(n.Labels, key)
	} else {
		n.Labels[key] = value
	}
	require.NoError(t, c.Update(ctx, n))
}

// stripMeta drops what the server sets on every write.
func stripMeta(o map[string]any) map[string]any {
	o = (&unstructured.Unstructured{Object: o}).DeepCopy().Object
	if m, ok := o["metadata"].(map[string]any); ok {
		for _, k := range []string{"managedFields", "resourceVersion", "generation", "creationTimestamp", "uid"} {
			delete(m, k)
		}
	}
	return o
}

// diffPaths lists the paths where a and b differ.
func diffPaths(a, b any, path string) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []string
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			out = append(out, diffPaths(am[k], bm[k], path+"."+k)...)
		}
		sort.Strings(out)
		return out
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		var out []string
		for i := range al {
			out = append(out, diffPaths(al[i], bl[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("%s: %v -> %v", path, a, b)}
}

// fieldPaths flattens a managedFields entry's fieldsV1 into leaf paths.
func fieldPaths(fields map[string]any, path string) []string {
	var out []string
	for k, v := range fields {
		if k == "." {
			continue
		}
		p := path + "." + strings.TrimPrefix(strings.TrimPrefix(k, "f:"), "k:")
		sub, _ := v.(map[string]any)
		if len(sub) == 0 || (len(sub) == 1 && sub["."] != nil) {
			out = append(out, p)
			continue
		}
		out = append(out, fieldPaths(sub, p)...)
	}
	return out
}

// writer creates a valid ListenerSet (server-side dry-run) every 50 ms and
// records the first error and the first success.
type writer struct {
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	first    string
	kinds    []string // the distinct errors, in order, without the request's details
	failures int
	ok       time.Time
}

// errorKind is an admission error without what differs between requests
// (the object's name, the URL's query).
func errorKind(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "failed to call webhook: "); ok {
		msg = after
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

func startWriter(c client.Client, ns string) *writer {
	ctx, cancel := context.WithCancel(context.Background())
	w := &writer{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			err := c.Create(ctx, listenerSet(ns, fmt.Sprintf("first-sync-%d", i), true), client.DryRunAll)
			w.mu.Lock()
			switch {
			case err == nil && w.ok.IsZero():
				w.ok = time.Now()
			case err != nil && ctx.Err() == nil:
				w.failures++
				if w.first == "" {
					w.first = err.Error()
				}
				if k := errorKind(err); !slices.Contains(w.kinds, k) {
					w.kinds = append(w.kinds, k)
				}
			}
			w.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *writer) succeeded() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ok.IsZero() {
		return fmt.Errorf("no write admitted yet (%d failed)", w.failures)
	}
	return nil
}

func (w *writer) window() (first string, kinds []string, failures int, ok time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first, slices.Clone(w.kinds), w.failures, w.ok
}

func (w *writer) stop() {
	w.cancel()
	<-w.done
}

// applyAs applies u with server-side apply as the GitOps tool does (its
// field manager, forcing ownership), the server's answer read into u.
func applyAs(ctx context.Context, c client.Client, u *unstructured.Unstructured, opts ...client.ApplyOption) error {
	return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		append([]client.ApplyOption{client.FieldOwner(gitopsManager), client.ForceOwnership}, opts...)...)
}
