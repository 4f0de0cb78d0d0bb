package listing

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// FromManifests reads and judges paths as validate does (offline/read,
// offline/judge: the CRD applied, the webhook's defaults and verdict), so
// that the two commands cannot disagree on a set: one validate finds
// invalid is Invalid here. A set that does not decode into the Go type has
// no listeners to show and is left out (validate reports it).
func FromManifests(paths []string, stdin io.Reader, added validation.AddedNames) (*Input, []read.InputError) {
	v := judge.Run(read.Paths(paths, stdin), judge.Options{AddedNames: added})
	o := v.Objects
	in := &Input{Objects: &validation.Objects{Gateways: o.Gateways, Namespaces: o.Namespaces, Grants: o.Grants,
		Secrets: o.Secrets, Sets: []*gwv1.ListenerSet{}}}
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

// RBACRules are all FromCluster needs: list on Gateways, ListenerSets and
// Namespaces (no get, no watch, nothing else).
func RBACRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{gwv1.GroupName}, Resources: []string{"gateways", "listenersets"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list"}},
	}
}

// FromCluster lists, read-only, what the merged lists need: every Gateway,
// every ListenerSet and every Namespace's metadata (its labels, for
// allowedListeners selectors). Nothing is watched, written or cached.
func FromCluster(ctx context.Context, cfg *rest.Config, added validation.AddedNames) (*Input, error) {
	// gateway-api's own scheme knows the typed kinds; Namespaces come as
	// metadata only, which needs none.
	c, err := client.New(cfg, client.Options{Scheme: gwscheme.Scheme})
	if err != nil {
		return nil, err
	}
	var gateways gwv1.GatewayList
	if err := c.List(ctx, &gateways); err != nil {
		return nil, fmt.Errorf("listing Gateways: %w", err)
	}
	var sets gwv1.ListenerSetList
	if err := c.List(ctx, &sets); err != nil {
		return nil, fmt.Errorf("listing ListenerSets: %w", err)
	}
	namespaces := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NamespaceList"}}
	if err := c.List(ctx, namespaces); err != nil {
		return nil, fmt.Errorf("listing Namespaces: %w", err)
	}
	o := &validation.Objects{
		Gateways:   make([]*gwv1.Gateway, 0, len(gateways.Items)),
		Sets:       make([]*gwv1.ListenerSet, 0, len(sets.Items)),
		Namespaces: make([]*metav1.PartialObjectMetadata, 0, len(namespaces.Items)),
	}
	for i := range gateways.Items {
		o.Gateways = append(o.Gateways, &gateways.Items[i])
	}
	for i := range sets.Items {
		o.Sets = append(o.Sets, &sets.Items[i])
	}
	for i := range namespaces.Items {
		o.Namespaces = append(o.Namespaces, &namespaces.Items[i])
	}
	return judgedByOwnRules(o, added), nil
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
