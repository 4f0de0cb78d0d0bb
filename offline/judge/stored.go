package judge

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// Stored judges sets, ListenerSets a cluster stores, each as a create of it
// would be judged (no old object, so no error is ratcheted), by the
// webhook's rules with cluster as the view around them: validation.Judge.
// Every stored set is in cluster and is a rival of the others, valid or
// not, as in the webhook's live view; each keeps its creation time and
// with it its place in the merged listener list.
//
// kube-apiserver applied the CRD when the objects were written, so only
// opts.Strict, AddedNames and Scope apply (the scope by cluster's Gateways
// and GatewayClasses). The results are in the order of sets, without a
// file (Location is zero).
func Stored(cluster *validation.Objects, sets []*gwv1.ListenerSet, opts Options) *Verdict {
	v := &Verdict{Objects: *cluster, Results: make([]Result, len(sets)), Sets: sets}
	for i, ls := range sets {
		r := validation.Judge(ls, nil, webhookOptions(cluster, opts))
		errs := FieldErrors(r.Errors.List())
		v.Results[i] = Result{Namespace: ls.Namespace, Name: ls.Name, Valid: len(errs) == 0, Errors: errs,
			Warnings: limitWarnings(validationWarnings(r.Warnings.List())), Scope: notJudged(r.Scope)}
	}
	return v
}
