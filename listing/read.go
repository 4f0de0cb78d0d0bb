package listing

import (
	"context"
	"io"
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// FromManifests reads and judges paths as validate does (offline/read,
// offline/judge: the CRD applied, the webhook's defaults and verdict), so
// that the two commands cannot disagree on a set: one validate finds
// invalid is Invalid here. A set that does not decode into the Go type has
// no listeners to show and is left out (validate reports it).
//
// The judge applies tenancy's rules too (a set outside its Namespace's
// declaration is Invalid, as validate finds it), and the listing shows
// each listener's owner and claims by it.
func FromManifests(paths []string, stdin io.Reader, added validation.AddedNames, scope validation.Scope, tenancy validation.Tenancy) (*Input, []read.InputError) {
	v := judge.Run(read.Paths(paths, stdin), judge.Options{AddedNames: added, Scope: scope, Tenancy: tenancy, KeepCreationTimestamps: true})
	o := v.Objects
	in := &Input{Scope: scope, Tenancy: tenancy, Objects: &validation.Objects{Gateways: o.Gateways, Classes: o.Classes, Namespaces: o.Namespaces,
		Grants: o.Grants, Secrets: o.Secrets, Routes: o.Routes, Sets: []*gwv1.ListenerSet{}}}
	for i, ls := range v.Sets {
		if ls != nil {
			in.Objects.Sets = append(in.Objects.Sets, ls)
			in.Errors = append(in.Errors, v.Results[i].Errors)
		}
	}
	errs := []read.InputError{}
	for _, n := range v.Notes {
		if n.InputError != nil {
			errs = append(errs, *n.InputError)
		}
	}
	return in, errs
}

// RESTConfig loads a kubeconfig file, with context naming one of its
// contexts ("" for its current one). Without a file ("") it finds one as
// kubectl does ($KUBECONFIG, then ~/.kube/config), and in a Pod without
// either uses its service account.
func RESTConfig(kubeconfig, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		rules, &clientcmd.ConfigOverrides{CurrentContext: context},
	).ClientConfig()
}

// RBACRules are all FromCluster needs: list on Gateways, ListenerSets,
// HTTPRoutes (each listener's attached routes) and Namespaces, and with
// scoped (validation.Scope on, the command's default) on GatewayClasses
// (no get, no watch, nothing else).
func RBACRules(scoped bool) []rbacv1.PolicyRule {
	return live.KindRules(listKinds(scoped))
}

func listKinds(scoped bool) live.Kinds { return live.Kinds{GatewayClasses: scoped, HTTPRoutes: true} }

// FromCluster lists, read-only, what the merged lists need: every Gateway,
// every ListenerSet and every Namespace's metadata (its labels, for
// allowedListeners selectors), every GatewayClass when scope is on, through the audit's paginated reader
// (offline/live.List). Nothing is watched, written or cached. The objects
// keep their status: each listener's row shows what it reports
// (Input.Reported).
func FromCluster(ctx context.Context, cfg *rest.Config, added validation.AddedNames, scope validation.Scope) (*Input, error) {
	o, err := live.List(ctx, cfg, listKinds(scope.On()), 0)
	if err != nil {
		return nil, err
	}
	in := judgedByOwnRules(o, added)
	in.Scope, in.Reported = scope, true
	return in, nil
}

// judgedByOwnRules is the Input of stored sets: the webhook admitted each
// once, and its own rules (validation.Validate without a cluster) say
// whether it would now.
func judgedByOwnRules(o *validation.Objects, added validation.AddedNames) *Input {
	in := &Input{Objects: o}
	for _, ls := range o.Sets {
		errs, _ := validation.Validate(ls, nil, validation.Options{AddedNames: added})
		in.Errors = append(in.Errors, judge.FieldErrors(errs))
	}
	return in
}

// Contexts are the context names of the kubeconfig file at path, sorted,
// for shell completion of --context.
func Contexts(path string) ([]string, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, &clientcmd.ConfigOverrides{},
	).RawConfig()
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(cfg.Contexts)), nil
}
