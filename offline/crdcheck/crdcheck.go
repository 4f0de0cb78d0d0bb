package crdcheck

import (
	"bytes"
	_ "embed" // the default CRD
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/read"
)

// Group, Kind and Version are what a Checker checks: the v1 ListenerSets of
// Gateway API.
const (
	Group   = "gateway.networking.k8s.io"
	Kind    = "ListenerSet"
	Version = "v1"
)

// EmbeddedFile is the embedded CRD's path in crds/: the file of the same
// name in config/crd/standard of sigs.k8s.io/gateway-api at the version in
// go.mod.
const EmbeddedFile = "gateway.networking.k8s.io_listenersets.yaml"

// EmbeddedSource is how Default's CRD is named in messages.
const EmbeddedSource = "embedded Gateway API v1.6.3 standard CRD"

//go:embed crds/gateway.networking.k8s.io_listenersets.yaml
var embedded []byte

// Checker applies one CRD's v1 ListenerSet schema. It is safe for
// concurrent use: nothing in it changes after New.
type Checker struct {
	// Source says where the CRD came from (a file, or EmbeddedSource).
	Source string
	// CRD is the CustomResourceDefinition as read, with the API's defaults.
	CRD *apiextensionsv1.CustomResourceDefinition

	kind       schema.GroupVersionKind
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
}

// Default returns a Checker for the embedded CRD. Each call compiles it
// anew (some 100ms); a run calls it once.
func Default() (*Checker, error) {
	crd, err := decodeCRD(embedded)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EmbeddedSource, err)
	}
	if crd == nil {
		return nil, fmt.Errorf("%s: no ListenerSet CRD", EmbeddedSource)
	}
	return New(crd, EmbeddedSource)
}

// Embedded is the embedded CRD file's content.
func Embedded() []byte { return bytes.Clone(embedded) }

// Load reads the ListenerSet CRD from paths: files, or directories whose
// *.yaml, *.yml and *.json files are read (not recursively, as
// `kubectl apply -f DIR`). Other documents (other CRDs, a
// ValidatingAdmissionPolicy, a kustomization) are passed over; exactly one
// ListenerSet CRD must be found.
func Load(paths []string) (*Checker, error) {
	var found *apiextensionsv1.CustomResourceDefinition
	var source string
	for _, p := range paths {
		files, err := crdFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			crd, err := decodeCRD(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if crd == nil {
				continue
			}
			if found != nil {
				return nil, fmt.Errorf("two ListenerSet CRDs: %s and %s", source, f)
			}
			found, source = crd, f
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no CustomResourceDefinition of %s %s in %s", Group, Kind, strings.Join(paths, ", "))
	}
	return New(found, source)
}

func crdFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	return files, nil
}

// decodeCRD returns the ListenerSet CRD among data's YAML documents, or nil.
func decodeCRD(data []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	var found *apiextensionsv1.CustomResourceDefinition
	for _, doc := range read.SplitYAML(data) {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Spec       struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
			} `json:"spec"`
		}
		// One YAML parse per document (a CRD is large): to JSON, then JSON
		// decodes for the head and the whole.
		raw, err := yaml.YAMLToJSONStrict(doc.Data)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, err
		}
		if head.APIVersion != apiextensionsv1.SchemeGroupVersion.String() || head.Kind != "CustomResourceDefinition" ||
			head.Spec.Group != Group || head.Spec.Names.Kind != Kind {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if strictErrs, err := sigsjson.UnmarshalStrict(raw, crd); err != nil || len(strictErrs) > 0 {
			return nil, fmt.Errorf("the %s CRD: %w", Kind, errors.Join(append(strictErrs, err)...))
		}
		if found != nil {
			return nil, errors.New("two ListenerSet CRDs in one file")
		}
		found = crd
	}
	return found, nil
}

// New compiles crd's v1 ListenerSet schema as kube-apiserver does when it
// starts serving the resource (crdHandler.getOrCreateServingInfoFor): the
// CRD's name checked (validateNames), its structural schema built and
// validated, its defaults pruned, and the strategy (schema validator and CEL
// programs) built once.
func New(crd *apiextensionsv1.CustomResourceDefinition, source string) (*Checker, error) {
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	// A CRD kube-apiserver would refuse is no CRD a cluster can have.
	if errs := validateNames(crd); len(errs) > 0 {
		return nil, fmt.Errorf("%s: the CRD is invalid: %w", source, errs.ToAggregate())
	}
	if !apihelpers.HasServedCRDVersion(crd, Version) {
		return nil, fmt.Errorf("%s: the CRD does not serve %s/%s", source, Group, Version)
	}
	if crd.Spec.PreserveUnknownFields {
		return nil, fmt.Errorf("%s: spec.preserveUnknownFields is true; not a structural CRD", source)
	}
	validation, err := apihelpers.GetSchemaForVersion(crd, Version)
	if err != nil || validation == nil || validation.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("%s: no schema for version %s: %v", source, Version, err)
	}
	internalValidation := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(validation, internalValidation, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	s, err := structuralschema.NewStructural(internalValidation.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if errs := structuralschema.ValidateStructural(field.NewPath("spec", "versions").Key(Version).Child("schema", "openAPIV3Schema"), s); len(errs) > 0 {
		return nil, fmt.Errorf("%s: the CRD is invalid: %w", source, errs.ToAggregate())
	}
	// As the server: it does not own s completely (defaults are shared).
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	schemaValidator, _, err := apiservervalidation.NewSchemaValidator(internalValidation.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, Version)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	// The status schema's validator is for status updates only: a create
	// drops status when the CRD has the subresource.
	hasStatus := subresources != nil && subresources.Status != nil
	var scaleSpec *apiextensions.CustomResourceSubresourceScale
	if subresources != nil && subresources.Scale != nil {
		scaleSpec = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: Version, Kind: crd.Spec.Names.Kind}
	strategy := newCreateStrategy(crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind, schemaValidator,
		s, hasStatus, scaleSpec)
	return &Checker{Source: source, CRD: crd, kind: kind, structural: s, strategy: strategy}, nil
}

// NamespaceScoped tells whether the CRD's objects live in namespaces.
func (c *Checker) NamespaceScoped() bool { return c.strategy.NamespaceScoped() }

// validateNames is the part of kube-apiserver's validation of a new CRD
// (apiextensions' ValidateCustomResourceDefinition) that serving ListenerSets
// depends on besides the structural schema, which New checks: the name. The
// full validation is not called: it links the apiserver's webhook, egress and
// tracing clients (grpc, OpenTelemetry) into this one binary, serve
// included; without it the binary is 62 MB instead of 108 MB and serve idles
// at 39 MB of RSS instead of 48 MB (the chart requests 64Mi). A cluster's
// CRD has passed the full check when it was created; a CEL rule that does
// not compile is still reported on each object, as kube-apiserver's
// validator reports it ("rule compile error").
func validateNames(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	if want := crd.Spec.Names.Plural + "." + crd.Spec.Group; crd.Name != want {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), crd.Name, `must be spec.names.plural+"."+spec.group`)}
	}
	return nil
}
