// Package crdcheck applies the ListenerSet CustomResourceDefinition to an
// object offline as kube-apiserver applies it to a create request, with the
// library kube-apiserver serves custom resources with
// (k8s.io/apiextensions-apiserver) rather than a copy of its rules:
// DecodeCreate decodes, prunes (reporting unknown fields, as strict field
// validation does) and defaults; ValidateCreate runs what the registry runs
// before storing a create (the OpenAPI schema, the CEL rules with
// kube-apiserver's cost limits, object metadata).
//
// A Checker holds one CRD, compiled once: Default, the embedded v1.6.3
// standard CRD of the gateway-api module the product is built with, or Load,
// the cluster's own files. The webhook's defaults and verdict are not here:
// offline/judge calls this first. The user's view: docs/validate.md.
package crdcheck
