package listing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/validation"
)

// Listing is the listeners command's result: the -o json document.
type Listing struct {
	Gateways []Gateway `json:"gateways"`
	// Unattached are the ListenerSets whose parentRef names no Gateway
	// there is.
	Unattached []Unattached `json:"unattached"`
	// InputErrors are the files or documents that could not be read.
	InputErrors []offline.InputError `json:"inputErrors"`
}

// Gateway is one Gateway's merged listener list.
type Gateway struct {
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Listeners []Listener `json:"listeners"`
}

// Listener is one row: a listener of the merged list and its state.
type Listener struct {
	// Precedence is the place in the merged list, from 1.
	Precedence int    `json:"precedence"`
	Source     Source `json:"source"`
	Name       string `json:"name"`
	Port       int32  `json:"port"`
	Protocol   string `json:"protocol"`
	// Hostname is null when the listener matches every hostname.
	Hostname *string `json:"hostname"`
	// State is Accepted, Conflicted, NotAllowed, Invalid or Unknown.
	State string `json:"state"`
	// Reason: see the package documentation; "" for Accepted.
	Reason string `json:"reason"`
	// Winner is the listener a Conflicted one loses to, else null.
	Winner *ListenerRef `json:"winner"`
	// Messages are the errors behind the state, as kubectl prints them.
	Messages []string `json:"messages"`
}

// Source is the object a listener comes from.
type Source struct {
	// Kind is Gateway or ListenerSet.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String is "Kind/namespace/name" ("Kind/name" without a namespace).
func (s Source) String() string {
	if s.Namespace == "" {
		return s.Kind + "/" + s.Name
	}
	return s.Kind + "/" + s.Namespace + "/" + s.Name
}

// ListenerRef names a listener by its object and name.
type ListenerRef struct {
	Source Source `json:"source"`
	Name   string `json:"name"`
}

// String is "Kind/namespace/name listener name", as the webhook's messages
// name a listener.
func (r ListenerRef) String() string { return r.Source.String() + " listener " + r.Name }

// Unattached is a ListenerSet that belongs to no Gateway there is.
type Unattached struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Reason    string `json:"reason"`
}

// Build lists the merged listeners of every Gateway of o (of only the Gateway
// "namespace/name" gateway, when set; found says whether it is there), with
// validation.MergedListeners: o's ListenerSets are judged by their own rules
// and o's Namespaces answer allowedListeners selectors.
func Build(o *validation.Objects, gateway string) (l *Listing, found bool) {
	l = &Listing{Gateways: []Gateway{}, Unattached: []Unattached{}, InputErrors: []offline.InputError{}}
	gateways := slices.Clone(o.Gateways)
	slices.SortFunc(gateways, func(a, b *gwv1.Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, gw := range gateways {
		if gateway != "" && validation.GatewayKey(gw.Namespace, gw.Name) != gateway {
			continue
		}
		found = true
		sets, _ := o.ListenerSetsOf(gw.Namespace, gw.Name)
		rows := validation.MergedListeners(gw, sets, validation.MergeOptions{Cluster: o, JudgeSets: true})
		g := Gateway{Namespace: gw.Namespace, Name: gw.Name, Listeners: make([]Listener, 0, len(rows))}
		for _, r := range rows {
			g.Listeners = append(g.Listeners, listenerOf(r))
		}
		l.Gateways = append(l.Gateways, g)
	}
	for _, ls := range o.Sets {
		u := Unattached{Namespace: ls.Namespace, Name: ls.Name}
		key, ok := validation.ParentKey(ls)
		switch {
		case gateway != "" && key != gateway:
			continue // another Gateway's, or (!ok) nobody's
		case !ok:
			u.Reason = "spec.parentRef names no Gateway"
		default:
			ns, name, _ := strings.Cut(key, "/")
			if gw, _ := o.Gateway(ns, name); gw != nil {
				continue
			}
			u.Reason = fmt.Sprintf("Gateway %s not found", key)
		}
		l.Unattached = append(l.Unattached, u)
	}
	return l, found
}

func listenerOf(r validation.MergedListener) Listener {
	l := Listener{
		Precedence: r.Precedence,
		Source:     sourceOf(r.Source),
		Name:       string(r.Listener),
		Port:       int32(r.Port),
		Protocol:   string(r.Protocol),
		State:      string(r.State),
		Reason:     r.Reason,
		Messages:   make([]string, 0, len(r.Errors)),
	}
	if r.Hostname != nil {
		h := string(*r.Hostname)
		l.Hostname = &h
	}
	if r.Winner != nil {
		l.Winner = &ListenerRef{Source: sourceOf(r.Winner.Source), Name: string(r.Winner.Listener)}
	}
	for _, e := range r.Errors {
		l.Messages = append(l.Messages, e.Error())
	}
	if r.State == validation.ListenerInvalid {
		// The field and the kind of error keep the column short; the
		// messages have the whole of every error.
		e := firstErrorOn(r.Errors, field.NewPath("spec", "listeners").Index(r.Index))
		l.Reason = e.Field + ": " + e.Type.String()
	}
	return l
}

// firstErrorOn is the first of errs on the listener at p, else the first.
func firstErrorOn(errs field.ErrorList, p *field.Path) *field.Error {
	prefix := p.String()
	for _, e := range errs {
		if e.Field == prefix || strings.HasPrefix(e.Field, prefix+".") {
			return e
		}
	}
	return errs[0]
}

func sourceOf(s validation.ListenerSource) Source {
	return Source{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}
