package crdcheck

// The create half of the custom resource strategy kube-apiserver serves a
// CRD's objects with, following
// k8s.io/apiextensions-apiserver@v0.37.2 pkg/registry/customresource
// (strategy.go: NewStrategy, PrepareForCreate, Validate, WarningsOnCreate,
// hasBlockingErr; validator.go: Validate, ValidateTypeMeta,
// validateObjectMetaDeclaratively, getObjectMeta, ValidateScaleSpec,
// ValidateScaleStatus, validateKubeFinalizerName), built from the same
// public validators it calls. It is copied rather than imported because
// that package also holds the CRD's REST storage: importing it links the
// apiserver's generic registry and the etcd client into the one product
// binary, which `listenerset-webhook serve` also is (serve had grown from
// 30 MB idle RSS to 65 MB, the chart requests 64Mi, and the binary from
// 49 MB to 110 MB). Without it the binary has no etcd package (grpc stays:
// CRD validation, apiextensions/validation, links it too). Only what a
// create needs is here: no update, status update, field selectors or reset
// fields.

import (
	"context"
	"fmt"
	"math"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/operation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	apimachineryvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// createStrategy is customResourceStrategy for a create: a
// rest.RESTCreateStrategy for one version of one CRD.
type createStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator

	namespaceScoped  bool
	kind             schema.GroupVersionKind
	schemaValidator  apiextensionsvalidation.SchemaValidator
	structuralSchema *structuralschema.Structural
	celValidator     *cel.Validator
	// hasStatus: the CRD has a status subresource, so a create cannot set
	// status.
	hasStatus bool
	// scale is the CRD's scale subresource, nil when it has none (the
	// ListenerSet CRD has none; a --crd may).
	scale *apiextensions.CustomResourceSubresourceScale
}

var _ rest.RESTCreateStrategy = createStrategy{}

// newCreateStrategy is NewStrategy: the CEL programs are compiled here,
// once, with kube-apiserver's per-call cost limit.
func newCreateStrategy(namespaceScoped bool, kind schema.GroupVersionKind, schemaValidator apiextensionsvalidation.SchemaValidator, structural *structuralschema.Structural, hasStatus bool, scale *apiextensions.CustomResourceSubresourceScale) createStrategy {
	return createStrategy{
		ObjectTyper:      unstructuredscheme.NewUnstructuredObjectTyper(),
		NameGenerator:    names.SimpleNameGenerator,
		namespaceScoped:  namespaceScoped,
		kind:             kind,
		schemaValidator:  schemaValidator,
		structuralSchema: structural,
		celValidator:     cel.NewValidator(structural, true, celconfig.PerCallLimit),
		hasStatus:        hasStatus,
		scale:            scale,
	}
}

func (s createStrategy) NamespaceScoped() bool { return s.namespaceScoped }

// PrepareForCreate drops status when the CRD has a status subresource and
// sets generation 1.
func (s createStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	if s.hasStatus {
		delete(obj.(*unstructured.Unstructured).UnstructuredContent(), "status")
	}
	accessor, _ := meta.Accessor(obj)
	accessor.SetGeneration(1)
}

// Canonicalize does nothing, as upstream.
func (createStrategy) Canonicalize(runtime.Object) {}

// Validate is customResourceStrategy.Validate: type and object metadata,
// the OpenAPI schema, the scale subresource's paths, embedded objects, list
// types, then the CEL rules unless an earlier error blocks them.
func (s createStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return field.ErrorList{field.Invalid(field.NewPath(""), u, fmt.Sprintf("has type %T. Must be a pointer to an Unstructured type", obj))}
	}

	var errs field.ErrorList
	errs = append(errs, s.validateResource(ctx, u)...)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, s.structuralSchema, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.structuralSchema, u.Object)...)
	if s.celValidator != nil {
		if has, err := hasBlockingErr(errs); has {
			errs = append(errs, err)
		} else {
			err, _ := s.celValidator.Validate(ctx, nil, s.structuralSchema, u.Object, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, err...)
		}
	}
	return errs
}

// validateResource is customResourceValidator.Validate.
func (s createStrategy) validateResource(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	if errs := s.validateTypeMeta(u); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	errs = append(errs, s.validateObjectMeta(ctx, u)...)
	errs = append(errs, apiextensionsvalidation.ValidateCustomResource(nil, u.UnstructuredContent(), s.schemaValidator)...)
	errs = append(errs, s.validateScaleSpec(u)...)
	errs = append(errs, s.validateScaleStatus(u)...)
	return errs
}

func (s createStrategy) validateTypeMeta(u *unstructured.Unstructured) field.ErrorList {
	typeAccessor, err := meta.TypeAccessor(u)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("kind"), nil, err.Error())}
	}
	var errs field.ErrorList
	if typeAccessor.GetKind() != s.kind.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), typeAccessor.GetKind(), fmt.Sprintf("must be %v", s.kind.Kind)))
	}
	if typeAccessor.GetAPIVersion() != s.kind.Group+"/"+s.kind.Version {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), typeAccessor.GetAPIVersion(), fmt.Sprintf("must be %v", s.kind.Group+"/"+s.kind.Version)))
	}
	return errs
}

// validateObjectMeta is validateObjectMetaDeclaratively: the handwritten
// ObjectMeta rules plus the declarative ones, with the same feature gate
// (DeclarativeValidationBeta, read from the process's default gate as the
// server reads its own) deciding which declarative errors are enforced.
func (s createStrategy) validateObjectMeta(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	metadata, errs := getObjectMeta(u)
	if len(errs) > 0 {
		return errs
	}
	return metavalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, metadata, nil, s.namespaceScoped,
		metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"),
		utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))
}

func getObjectMeta(u *unstructured.Unstructured) (*metav1.ObjectMeta, field.ErrorList) {
	if u == nil || u.UnstructuredContent() == nil {
		return &metav1.ObjectMeta{}, nil
	}
	raw := u.UnstructuredContent()["metadata"]
	if raw == nil {
		return &metav1.ObjectMeta{}, nil
	}
	metadataMap, ok := raw.(map[string]interface{})
	if !ok {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
	}
	m := &metav1.ObjectMeta{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(metadataMap, m); err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
	}
	return m, nil
}

// validateScaleSpec and validateScaleStatus check the replicas (and label
// selector) paths of a scale subresource, for a --crd that has one.
func (s createStrategy) validateScaleSpec(u *unstructured.Unstructured) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	return validateReplicas(u, s.scale.SpecReplicasPath)
}

func (s createStrategy) validateScaleStatus(u *unstructured.Unstructured) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	errs := validateReplicas(u, s.scale.StatusReplicasPath)
	if s.scale.LabelSelectorPath != nil {
		p := strings.TrimPrefix(*s.scale.LabelSelectorPath, ".") // ignore leading period
		labelSelector, _, err := unstructured.NestedString(u.UnstructuredContent(), strings.Split(p, ".")...)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath(*s.scale.LabelSelectorPath), labelSelector, err.Error()))
		}
	}
	return errs
}

func validateReplicas(u *unstructured.Unstructured, path string) field.ErrorList {
	p := strings.TrimPrefix(path, ".") // ignore leading period
	replicas, _, err := unstructured.NestedInt64(u.UnstructuredContent(), strings.Split(p, ".")...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(path), replicas, err.Error())}
	case replicas < 0:
		return field.ErrorList{field.Invalid(field.NewPath(path), replicas, "should be a non-negative integer")}
	case replicas > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(path), replicas, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// hasBlockingErr: OpenAPI type, maxLength, maxItems, maxProperties,
// required and enum errors keep the CEL rules from running.
func hasBlockingErr(errs field.ErrorList) (bool, *field.Error) {
	for _, err := range errs {
		if err.Type == field.ErrorTypeNotSupported || err.Type == field.ErrorTypeRequired || err.Type == field.ErrorTypeTooLong || err.Type == field.ErrorTypeTooMany || err.Type == field.ErrorTypeTypeInvalid {
			return true, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return false, nil
}

// WarningsOnCreate warns about finalizer names, as generateWarningsFromObj.
func (createStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	fldPath := field.NewPath("metadata", "finalizers")
	var warnings []string
	for _, finalizer := range sets.List(sets.New(accessor.GetFinalizers()...)) {
		warnings = append(warnings, validateKubeFinalizerName(finalizer, fldPath)...)
	}
	return warnings
}

// standardFinalizers: metav1's two and core/v1's FinalizerKubernetes
// ("kubernetes", spelled out to keep k8s.io/api/core/v1 out of this file).
var standardFinalizers = sets.New(
	metav1.FinalizerOrphanDependents,
	metav1.FinalizerDeleteDependents,
	"kubernetes",
)

func validateKubeFinalizerName(name string, fldPath *field.Path) []string {
	var warnings []string
	for _, msg := range apimachineryvalidation.IsQualifiedName(name) {
		warnings = append(warnings, fmt.Sprintf("%s: %q: %s", fldPath.String(), name, msg))
	}
	if len(strings.Split(name, "/")) == 1 && !standardFinalizers.Has(name) {
		if strings.Contains(name, ".") {
			warnings = append(warnings, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", fldPath.String(), name))
		} else {
			warnings = append(warnings, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", fldPath.String(), name))
		}
	}
	return warnings
}
