package judge

import (
	"cmp"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// judgeSets gives each ListenerSet kube-apiserver's verdict on a create of
// it: the CRD and object metadata as the server applies them (asAPIServer),
// then the webhook's (validation.Judge) with the other objects of the input
// as its cluster. A kind the input holds none of is unknown, and its rules
// are skipped.
//
// The sets are judged in Gateway API's precedence order (creation time,
// then namespace/name), as a server would have admitted them one after the
// other, and only those found valid become rivals of the later ones: a set
// the server refuses, for its own rules, the CRD's or --strict's, is never
// stored. The results are in input order.
func (v *Verdict) judgeSets(sets []*read.Object, opts Options) {
	if len(sets) == 0 {
		return
	}
	checker, err := loadChecker(opts)
	if err != nil {
		v.Notes = append(v.Notes, Note{InputError: crdError(opts, err)})
		return
	}
	// The scope decides by the parent Gateway and its class, which the
	// sets judged do not change: the webhook's patch is applied to
	// Airlock's sets only, as the mutating webhook does.
	ours := func(ls *gwv1.ListenerSet) bool { return opts.Scope.Decide(ls, &v.Objects).Judge }
	views := apiserverViews(checker, sets, opts.UnknownFields, v.namespace, ours)
	if !opts.KeepCreationTimestamps {
		// kube-apiserver sets a create's creationTimestamp before the
		// validating webhooks see it; an update's is the stored one's
		// (storedRivals).
		created := opts.created()
		for _, view := range views {
			if view.ls != nil {
				view.ls.CreationTimestamp = created
			}
		}
	}
	v.Objects.Sets = []*gwv1.ListenerSet{}
	if opts.Cluster != nil {
		v.Objects.Sets = storedRivals(opts.Cluster.Sets, views)
	}
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return comparePrecedence(views[a].ls, views[b].ls) })
	v.Results, v.Sets = make([]Result, len(sets)), make([]*gwv1.ListenerSet, len(sets))
	for _, i := range order {
		res := v.judge(sets[i], views[i], opts)
		if res.Valid {
			v.Objects.Sets = append(v.Objects.Sets, views[i].ls)
		}
		res.locate()
		v.Results[i], v.Sets[i] = res, views[i].ls
	}
}

// apiserverViews is kube-apiserver's part for every set (the CRD's schema
// and CEL rules, some 2-3 ms a ListenerSet, most of the command's time). It
// depends on nothing but the object, so it runs on every core; the
// webhook's verdict depends on the sets admitted before and runs in order.
func apiserverViews(checker *crdcheck.Checker, sets []*read.Object, unknown UnknownFields, ns string, ours func(*gwv1.ListenerSet) bool) []apiserverView {
	if unknown == "" {
		unknown = UnknownFieldsError
	}
	views := make([]apiserverView, len(sets))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, o := range sets {
		g.Go(func() error {
			views[i] = asAPIServer(checker, o.Raw, unknown, ns, ours)
			o.Raw = nil // read once; the view is what is left of it
			return nil
		})
	}
	_ = g.Wait() // the workers return no error
	return views
}

// judge is the verdict on one set: kube-apiserver's view of it, then the
// webhook's with the sets admitted so far as rivals.
func (v *Verdict) judge(o *read.Object, view apiserverView, opts Options) Result {
	res := Result{Location: o.Location, Namespace: o.Namespace, Name: o.Name, pos: o.Pos}
	res.Warnings = append(slices.Clone(o.Warnings), view.warnings...)
	webhook := &findings.ErrorReport{}
	if view.ls != nil {
		o, old := webhookOptions(&v.Objects, opts), view.old
		if opts.ReplacementsAsStored && old != nil {
			o.AsStored, old = validation.SameGateway(view.ls, old), nil
		}
		r := validation.Judge(view.ls, old, o)
		res.Warnings = append(res.Warnings, validationWarnings(r.Warnings.List())...)
		webhook = &r.Errors
		res.Scope = notJudged(r.Scope)
	}
	res.Errors = merge(view, webhook)
	res.Warnings = limitWarnings(res.Warnings)
	res.Valid = len(res.Errors) == 0
	return res
}

// webhookOptions are the webhook's options for opts, with o as the
// cluster and as the scope's view.
func webhookOptions(o *validation.Objects, opts Options) validation.Options {
	return validation.Options{Cluster: o, Strict: opts.Strict, AddedNames: opts.AddedNames, Scope: opts.Scope, Classes: o, Routes: o, Tenancy: opts.Tenancy}
}

// notJudged is d's outcome when it left the set unjudged, else "".
func notJudged(d validation.Decision) validation.Outcome {
	if d.Judge {
		return ""
	}
	return d.Outcome
}

// comparePrecedence is validation.ComparePrecedence with the sets that do
// not decode (nil) last: they are invalid and no rival.
func comparePrecedence(a, b *gwv1.ListenerSet) int {
	if a == nil || b == nil {
		return cmp.Compare(boolInt(a == nil), boolInt(b == nil))
	}
	return validation.ComparePrecedence(a, b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
