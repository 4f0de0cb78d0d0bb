package crdcheck

import (
	"context"
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	sigsjson "sigs.k8s.io/json"
)

// DefaultNamespace is the namespace an object without one is created in:
// kubectl sends it to its context's namespace, "default" unless set.
const DefaultNamespace = metav1.NamespaceDefault

// Decoded is a create request's body as kube-apiserver's decoder for the
// CRD leaves it: pruned, coerced and defaulted.
type Decoded struct {
	// Object is what the admission webhooks and validation see.
	Object *unstructured.Unstructured
	// UnknownFields are the paths of the fields the schema does not know,
	// pruned from Object, e.g. spec.listeners[0].foo (kube-apiserver's
	// strict decoding error `unknown field "spec.listeners[0].foo"`).
	UnknownFields []string
	// DuplicateFields are the strict JSON decoder's errors for fields given
	// twice (sigs.k8s.io/json FieldErrors, e.g. `duplicate field
	// "spec.listeners[0].port"`); the last value is kept.
	DuplicateFields []error
}

// DecodeCreate decodes raw, one JSON object of the CRD's kind, as
// kube-apiserver decodes a create request for it (the crdHandler's
// schemaCoercingDecoder and unstructuredDefaulter): strict JSON (duplicate
// fields noticed), metadata read as ObjectMeta, unknown fields pruned with
// their paths recorded, nulls without a default dropped, then the schema's
// defaults applied. The field validation mode decides what the unknown
// and duplicate fields mean; that is the caller's. An error is what the
// server answers 400 Bad Request with: raw is not a JSON object, or its
// metadata does not decode.
func (c *Checker) DecodeCreate(raw []byte) (*Decoded, error) {
	obj := map[string]any{}
	// Into a map only duplicates are strict errors. The map is the one
	// Unstructured.UnmarshalJSON makes (case-sensitive, numbers int64 where
	// integral and float64 otherwise, the last of duplicates kept), so raw
	// is parsed once; that also wants a kind.
	strictErrs, err := sigsjson.UnmarshalStrict(raw, &obj, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GetKind() == "" {
		return nil, runtime.NewMissingKindErr(string(raw))
	}
	d := &Decoded{Object: u, DuplicateFields: strictErrs}
	unknown, err := c.coerce(u)
	if err != nil {
		return nil, err
	}
	d.UnknownFields = unknown
	structuraldefaulting.Default(u.Object, c.structural)
	return d, nil
}

// coerce is the crdHandler's unstructuredSchemaCoercer.apply for a request
// body (malformed metadata is an error, not dropped; unknown field paths
// returned).
func (c *Checker) coerce(u *unstructured.Unstructured) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	if kind != c.kind.Kind || apiVersion != c.kind.GroupVersion().String() {
		return nil, fmt.Errorf("%s %s is not a %s", apiVersion, kind, c.kind)
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, c.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, c.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, c.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// Default applies the schema's defaults to obj in place, as kube-apiserver
// does again to an object a mutating webhook has patched.
func (c *Checker) Default(obj *unstructured.Unstructured) {
	structuraldefaulting.Default(obj.Object, c.structural)
}

// ValidateCreate is what kube-apiserver's registry checks before it stores
// a create (rest.BeforeCreate): on a copy of obj, the strategy's
// PrepareForCreate (status is dropped when the CRD has a status
// subresource), the namespace of the request (DefaultNamespace when obj has
// none), a generated name for a generateName, the system fields, then
// rest.ValidateCreate: the CRD's schema, list types and CEL rules, then
// object metadata. The warnings are the strategy's (finalizer names), given
// only when the object is valid, as the server does.
func (c *Checker) ValidateCreate(ctx context.Context, obj *unstructured.Unstructured) (field.ErrorList, []string) {
	u := obj.DeepCopy()
	if c.strategy.NamespaceScoped() && u.GetNamespace() == "" {
		u.SetNamespace(DefaultNamespace)
	}
	if u.GetGenerateName() != "" && u.GetName() == "" {
		u.SetName(c.strategy.GenerateName(u.GetGenerateName()))
	}
	rest.FillObjectMetaSystemFields(u)
	c.strategy.PrepareForCreate(ctx, u)
	if errs := rest.ValidateCreate(ctx, u, c.strategy); len(errs) > 0 {
		return errs, nil
	}
	return nil, c.strategy.WarningsOnCreate(ctx, u)
}
