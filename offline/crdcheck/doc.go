// Package crdcheck applies the ListenerSet CustomResourceDefinition to an
// object offline, as kube-apiserver applies it to a create request, with
// the library kube-apiserver serves custom resources with
// (k8s.io/apiextensions-apiserver) rather than a copy of its rules:
//
//  1. Decode: the JSON is read into an unstructured object; fields the CRD's
//     structural schema does not know, in metadata too, are pruned and
//     reported (kube-apiserver's strict field validation, what kubectl asks
//     for by default), nulls without a default are dropped, metadata is
//     coerced, and the schema's defaults are applied (DecodeCreate).
//  2. Validate: what the generic registry does before storing a create
//     (rest.BeforeCreate without the server's bookkeeping): the custom
//     resource strategy's PrepareForCreate (status is dropped), a name for a
//     generateName, then rest.ValidateCreate with that strategy (its create
//     half, in strategy.go, built from the same validators; the upstream
//     package would link the apiserver's storage into the binary), which runs
//     the OpenAPI schema, embedded-object and list-type checks and the
//     x-kubernetes-validations CEL rules (with kube-apiserver's per-call and
//     per-request cost limits), and then object metadata (name or
//     generateName, the name a DNS-1123 subdomain, namespace, labels,
//     annotations, ...), and its warnings (finalizer names).
//
// A Checker holds one CRD version, compiled once: structural schema, schema
// validator and CEL programs are built by New and reused for every object.
// Default is the ListenerSet CRD of the gateway-api module the product is
// built with (v1.6.3, standard channel), embedded from crds/ (a test keeps
// it byte-equal to the module's file); Load reads a cluster's own CRD files
// instead, checked first for what serving ListenerSets needs of it (its name
// and a structural schema; validateNames says why not more).
//
// What the webhooks then do (mutation, the webhook's verdict) is not here:
// the offline package calls this, then defaults and validation.
package crdcheck
