package judge

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/reported"
	"github.com/airlock/listenerset-webhook/validation"
)

// Stored judges sets, ListenerSets a cluster stores, each as a create of it
// would be judged (no old object, so no error is ratcheted) but for the
// order of claims, which is when each set came to its Gateway
// (validation.Options.AsStored), by the
// webhook's rules with cluster as the view around them: validation.Judge.
// Every stored set is in cluster and is a rival of the others, valid or
// not, as in the webhook's live view; each keeps its creation time and
// with it its place in the merged listener list.
//
// kube-apiserver applied the CRD when the objects were written, so only
// opts.Strict, AddedNames, Scope and Reported apply (the scope by
// cluster's Gateways and GatewayClasses). The results are in the order of
// sets, without a file (Location is zero).
func Stored(cluster *validation.Objects, sets []*gwv1.ListenerSet, opts Options) *Verdict {
	v := &Verdict{Objects: *cluster, Results: make([]Result, len(sets)), Sets: sets}
	var status *statusCheck
	if opts.Reported {
		status = &statusCheck{cluster: cluster, added: opts.AddedNames, gateways: map[string]map[*gwv1.ListenerSet][]reported.Predicted{}}
	}
	for i, ls := range sets {
		o := webhookOptions(cluster, opts)
		o.AsStored = true
		r := validation.Judge(ls, nil, o)
		errs := FieldErrors(r.Errors.List())
		ws := validationWarnings(r.Warnings.List())
		if status != nil && r.Scope.Judge {
			ws = append(ws, status.warnings(ls)...)
		}
		v.Results[i] = Result{Namespace: ls.Namespace, Name: ls.Name, Valid: len(errs) == 0, Errors: errs,
			Warnings: limitWarnings(ws), Scope: notJudged(r.Scope)}
	}
	return v
}

// statusCheck compares stored sets' status with the merged list's
// prediction (reported.Predict, the listeners command's rows), each
// Gateway's list built once for all its sets.
type statusCheck struct {
	cluster *validation.Objects
	added   validation.AddedNames
	// gateways are the predictions of each Gateway's sets' listeners, by
	// GatewayKey and set, in spec order.
	gateways map[string]map[*gwv1.ListenerSet][]reported.Predicted
}

// warnings are ls's listeners whose status differs from the prediction, or
// reports nothing: a warning each, at the listener, LS017 or LS018. A set
// whose Gateway does not exist has no prediction (LS304 says so).
func (c *statusCheck) warnings(ls *gwv1.ListenerSet) []read.Warning {
	key, ok := validation.ParentKey(ls)
	if !ok {
		return nil
	}
	predicted, seen := c.gateways[key]
	if !seen {
		predicted = c.predict(key)
		c.gateways[key] = predicted
	}
	var out []read.Warning
	listeners := field.NewPath("spec", "listeners")
	for _, p := range predicted[ls] {
		r := reported.OfListenerSet(ls, p.Listener)
		d := reported.Compare(p.Prediction(), r)
		if d == nil {
			continue
		}
		w := read.Warning{Field: listeners.Index(p.Index).String(), Kind: KindStatusDiffers}
		what := "status differs from the prediction"
		if d.Kind == reported.NotReported {
			w.Kind, what = KindStatusNotReported, "status not reported"
		}
		detail := d.Detail
		if r.Message != "" {
			// The controller's own words say why, where it says anything.
			detail += ": " + r.Message
		}
		// A controller's text may hold anything a terminal interprets:
		// limitWarnings escapes it, as every warning's.
		w.Message = fmt.Sprintf("%s: listener %q %s: %s", w.Field, p.Listener, what, detail)
		out = append(out, w)
	}
	return out
}

// predict is the prediction for every listener of the sets of the Gateway
// whose GatewayKey is key (validation.ParentKey: the one decision of which
// Gateway a set belongs to), by set; nil when the Gateway does not exist.
// A set its own rules refuse (with the added names) is Invalid, as
// listeners shows it.
func (c *statusCheck) predict(key string) map[*gwv1.ListenerSet][]reported.Predicted {
	ns, name, _ := strings.Cut(key, "/")
	gw, _ := c.cluster.Gateway(ns, name)
	if gw == nil {
		return nil
	}
	sets, _ := c.cluster.ListenerSetsOf(gw.Namespace, gw.Name)
	refused := make(map[*gwv1.ListenerSet]bool, len(sets))
	for _, s := range sets {
		errs, _ := validation.Validate(s, nil, validation.Options{AddedNames: c.added})
		refused[s] = len(errs) > 0
	}
	out := make(map[*gwv1.ListenerSet][]reported.Predicted, len(sets))
	for _, p := range reported.Predict(gw, sets, func(s *gwv1.ListenerSet) bool { return refused[s] }, c.cluster, nil) {
		if p.Set != nil {
			out[p.Set] = append(out[p.Set], p)
		}
	}
	return out
}
