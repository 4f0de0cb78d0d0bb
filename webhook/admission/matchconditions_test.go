package admission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiadmission "k8s.io/apiserver/pkg/admission"
	apiservercel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiserverwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/randfill"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// matcher compiles MutatingMatchConditions the way kube-apiserver does for a
// mutating webhook (k8s.io/apiserver's accessor, condition compiler and
// matcher, failurePolicy Fail).
func matcher(t *testing.T) matchconditions.Matcher {
	t.Helper()
	hook := &admissionregistrationv1.MutatingWebhook{
		Name:            "mutate.listenersets.microgateway.airlock.com",
		FailurePolicy:   ptr.To(admissionregistrationv1.Fail),
		MatchConditions: admission.MutatingMatchConditions(),
	}
	compiler := apiservercel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	return apiserverwebhook.NewMutatingWebhookAccessor("uid", "listenerset-webhook", hook).GetCompiledMatcher(compiler)
}

// matches evaluates the conditions on the JSON object as kube-apiserver
// would on a CREATE (it passes custom resources as unstructured objects).
func matches(t *testing.T, m matchconditions.Matcher, objJSON []byte) bool {
	t.Helper()
	obj := &unstructured.Unstructured{}
	require.NoError(t, obj.UnmarshalJSON(objJSON))
	gvk := schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "ListenerSet"}
	gvr := schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"}
	attrs := apiadmission.NewAttributesRecord(obj, nil, gvk, obj.GetNamespace(), obj.GetName(), gvr, "",
		apiadmission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "test"})
	res := m.Match(context.Background(), &apiadmission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: apiadmission.NewLazyObject(obj)}, nil, nil)
	require.NoError(t, res.Error, "evaluating the match condition on %s", objJSON)
	return res.Matches
}

// changedByDefaulter reports whether defaults.ListenerSet changes the object
// that the webhook would decode from objJSON.
func changedByDefaulter(t *testing.T, objJSON []byte) bool {
	t.Helper()
	var ls gwv1.ListenerSet
	require.NoError(t, json.Unmarshal(objJSON, &ls))
	before := ls.DeepCopy()
	defaults.ListenerSet(&ls)
	return !equality.Semantic.DeepEqual(before, &ls)
}

func lsJSON(t *testing.T, ls *gwv1.ListenerSet) []byte {
	t.Helper()
	ls = ls.DeepCopy()
	ls.APIVersion, ls.Kind = gwv1.GroupVersion.String(), "ListenerSet"
	b, err := json.Marshal(ls)
	require.NoError(t, err)
	return b
}

// richListenerSet is defaulted and has every kind of defaulted field,
// several times: kinds, certificateRefs, TLS and plain listeners.
func richListenerSet() *gwv1.ListenerSet {
	ls := fixtures.SixtyFour()
	ls.Spec.Listeners = ls.Spec.Listeners[:3]
	ls.Spec.Listeners[0].TLS.CertificateRefs = append(ls.Spec.Listeners[0].TLS.CertificateRefs, gwv1.SecretObjectReference{Name: "second"})
	ls.Spec.Listeners[1].AllowedRoutes.Kinds = append(ls.Spec.Listeners[1].AllowedRoutes.Kinds, gwv1.RouteGroupKind{Kind: "GRPCRoute"})
	ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "plain", Port: 80, Protocol: gwv1.HTTPProtocolType})
	return fixtures.Defaulted(ls)
}

// TestNeedsDefaultsMirrorsTheDefaulter: kube-apiserver calls the mutating
// webhook exactly when the defaulter would change the object. Were the
// condition false for an object the defaulter changes, the object would be
// stored without its defaults; were it true for one it does not change, a
// call would be wasted.
func TestNeedsDefaultsMirrorsTheDefaulter(t *testing.T) {
	m := matcher(t)

	t.Run("defaulted objects are skipped", func(t *testing.T) {
		for name, ls := range map[string]*gwv1.ListenerSet{
			"rich": richListenerSet(), "two-listeners": fixtures.Defaulted(fixtures.TwoListeners()),
			"reference-example": fixtures.Defaulted(fixtures.ReferenceExample()), "sixty-four": fixtures.Defaulted(fixtures.SixtyFour()),
			"many-errors": fixtures.Defaulted(fixtures.ManyErrors()), "no-listeners": fixtures.Defaulted(&gwv1.ListenerSet{}),
		} {
			obj := lsJSON(t, ls)
			require.False(t, changedByDefaulter(t, obj), name)
			require.False(t, matches(t, m, obj), "%s: the condition calls the webhook for a defaulted object", name)
		}
	})

	// Each defaulted field of the rich object, unset alone.
	unsets := map[string]func(*gwv1.ListenerSet){
		"parentRef.group": func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Group = nil },
		"parentRef.kind":  func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Kind = nil },
	}
	for i, l := range richListenerSet().Spec.Listeners {
		unsets[fmt.Sprintf("listeners[%d].allowedRoutes", i)] = func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[i].AllowedRoutes = nil }
		unsets[fmt.Sprintf("listeners[%d].allowedRoutes.namespaces", i)] = func(ls *gwv1.ListenerSet) {
			ls.Spec.Listeners[i].AllowedRoutes.Namespaces = nil
		}
		unsets[fmt.Sprintf("listeners[%d].allowedRoutes.namespaces.from", i)] = func(ls *gwv1.ListenerSet) {
			ls.Spec.Listeners[i].AllowedRoutes.Namespaces.From = nil
		}
		for k := range l.AllowedRoutes.Kinds {
			unsets[fmt.Sprintf("listeners[%d].allowedRoutes.kinds[%d].group", i, k)] = func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[i].AllowedRoutes.Kinds[k].Group = nil
			}
		}
		if l.TLS == nil {
			continue
		}
		unsets[fmt.Sprintf("listeners[%d].tls.mode", i)] = func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[i].TLS.Mode = nil }
		for j := range l.TLS.CertificateRefs {
			unsets[fmt.Sprintf("listeners[%d].tls.certificateRefs[%d].group", i, j)] = func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[i].TLS.CertificateRefs[j].Group = nil
			}
			unsets[fmt.Sprintf("listeners[%d].tls.certificateRefs[%d].kind", i, j)] = func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[i].TLS.CertificateRefs[j].Kind = nil
			}
		}
	}
	t.Run("one unset defaulted field is enough", func(t *testing.T) {
		require.Len(t, unsets, 29) // parentRef 2, allowedRoutes 4×3, route kinds 4, TLS modes 3, certificateRefs 4×2
		for name, unset := range unsets {
			ls := richListenerSet()
			unset(ls)
			obj := lsJSON(t, ls)
			require.True(t, changedByDefaulter(t, obj), name)
			require.True(t, matches(t, m, obj), "%s unset: the condition skips the webhook, the object would be stored without its default", name)
		}
	})

	t.Run("as users write them", func(t *testing.T) {
		for _, raw := range []string{
			`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"x"}}`,
			`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"x"},"spec":{}}`,
			`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"x"},"spec":{"parentRef":{"name":"gw"}}}`,
		} {
			require.True(t, changedByDefaulter(t, []byte(raw)), raw)
			require.True(t, matches(t, m, []byte(raw)), raw)
		}
		for _, ls := range []*gwv1.ListenerSet{fixtures.TwoListeners(), fixtures.ReferenceExample(), fixtures.SixtyFour(), fixtures.ManyErrors()} {
			obj := lsJSON(t, ls)
			require.True(t, changedByDefaulter(t, obj), ls.Name)
			require.True(t, matches(t, m, obj), ls.Name)
		}
	})

	// Random objects, most of them half-defaulted: the two must agree on
	// every one, both ways.
	t.Run("random objects", func(t *testing.T) {
		called := 0
		for seed := range int64(3000) {
			ls := &gwv1.ListenerSet{}
			randfill.NewWithSeed(seed).NilChance(0.25).NumElements(0, 3).MaxDepth(12).Fill(&ls.Spec)
			if seed%3 == 0 { // many fully defaulted objects, then one field unset
				defaults.ListenerSet(ls)
			}
			obj := lsJSON(t, ls)
			changed := changedByDefaulter(t, obj)
			require.Equal(t, changed, matches(t, m, obj), "seed %d: defaulter changes it: %v; object %s", seed, changed, obj)
			if changed {
				called++
			}
		}
		t.Logf("%d of 3000 random objects need defaults", called)
		require.Greater(t, called, 500)
		require.Less(t, called, 2900)
	})
}
