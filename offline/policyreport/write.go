package policyreport

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// ErrNoCRD: the cluster does not serve the PolicyReport API; nothing was
// written.
var ErrNoCRD = fmt.Errorf("the cluster does not serve %s %s/%s (its CRD policyreports.%s is not installed)", Kind, Group, Version, Group)

// Written says what Write did.
type Written struct {
	// Applied and Deleted count the reports applied and the stale ones
	// deleted.
	Applied, Deleted int
	// Largest is the size in bytes of the largest report applied.
	Largest int
}

// pageSize is the Limit of each list of the reports (the audit's own).
const pageSize = 500

// Write applies reports server-side and deletes the reports it manages in
// the namespaces reports have none for: every namespace, or only namespace
// when it is set (the audit of one namespace owns that one alone).
// ErrNoCRD when the API is not served.
func Write(ctx context.Context, cfg *rest.Config, reports []*Report, namespace string) (Written, error) {
	var w Written
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return w, err
	}
	if served, err := Served(dc); err != nil {
		return w, err
	} else if !served {
		return w, ErrNoCRD
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return w, err
	}
	keep := make(map[string]bool, len(reports))
	force := true
	for _, r := range reports {
		data, err := json.Marshal(r)
		if err != nil {
			return w, err
		}
		if _, err := dyn.Resource(GVR).Namespace(r.Metadata.Namespace).Patch(ctx, r.Metadata.Name, types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: ManagedBy, Force: &force}); err != nil {
			return w, fmt.Errorf("applying %s %s/%s: %w", Kind, r.Metadata.Namespace, r.Metadata.Name, err)
		}
		keep[r.Metadata.Namespace] = true
		w.Applied++
		w.Largest = max(w.Largest, len(data))
	}
	cont := ""
	for {
		l, err := dyn.Resource(GVR).Namespace(namespace).List(ctx, metav1.ListOptions{
			LabelSelector: ManagedByLabel + "=" + ManagedBy, Limit: pageSize, Continue: cont})
		if err != nil {
			return w, fmt.Errorf("listing %s: %w", Resource, err)
		}
		for _, item := range l.Items {
			if item.GetName() != ReportName || keep[item.GetNamespace()] {
				continue
			}
			err := dyn.Resource(GVR).Namespace(item.GetNamespace()).Delete(ctx, item.GetName(), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return w, fmt.Errorf("deleting the stale %s %s/%s: %w", Kind, item.GetNamespace(), item.GetName(), err)
			}
			w.Deleted++
		}
		if cont = l.GetContinue(); cont == "" {
			return w, nil
		}
	}
}

// Served says whether the cluster serves the PolicyReport resource.
func Served(dc discovery.DiscoveryInterface) (bool, error) {
	l, err := dc.ServerResourcesForGroupVersion(Group + "/" + Version)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovering %s/%s: %w", Group, Version, err)
	}
	for _, r := range l.APIResources {
		if r.Name == Resource {
			return true, nil
		}
	}
	return false, nil
}
