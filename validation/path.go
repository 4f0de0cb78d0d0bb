package validation

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldPath is a field.Path that costs nothing until an error needs it. The
// rules take and extend it exactly like a *field.Path (fldPath.Child("tls"),
// .Index(i), .Key(k)), and hand fldPath.Path() to the field.* error
// constructors. Its small constructors are inlined and the rules never keep a
// path, so the compiler places every element on the stack: validating a valid
// object allocates no paths at all, where *field.Path allocated one per field
// visited (more than half of all allocations).
//
// A rule must therefore never store a *fieldPath or pass it to fmt or to an
// interface; it passes fldPath.Path() or fldPath.String() instead.
type fieldPath struct {
	parent *fieldPath
	name   string // the field's name, or the map key
	index  int
	kind   pathElem
}

type pathElem uint8

const (
	childElem pathElem = iota
	indexElem
	keyElem
)

// newPath is field.NewPath.
func newPath(name string) *fieldPath { return &fieldPath{name: name} }

// Child is field.Path.Child for one name.
func (p *fieldPath) Child(name string) *fieldPath {
	return &fieldPath{parent: p, name: name}
}

// Index is field.Path.Index.
func (p *fieldPath) Index(i int) *fieldPath {
	return &fieldPath{parent: p, index: i, kind: indexElem}
}

// Key is field.Path.Key.
func (p *fieldPath) Key(key string) *fieldPath {
	return &fieldPath{parent: p, name: key, kind: keyElem}
}

// Path builds the *field.Path, for an error. The names are copied: were the
// field.Path to share a string with a fieldPath, the compiler would have to
// assume that the fieldPath's parents outlive the call too, and move every
// path to the heap.
func (p *fieldPath) Path() *field.Path {
	name := strings.Clone(p.name)
	if p.parent == nil {
		return field.NewPath(name)
	}
	parent := p.parent.Path()
	switch p.kind {
	case indexElem:
		return parent.Index(p.index)
	case keyElem:
		return parent.Key(name)
	default:
		return parent.Child(name)
	}
}

// String is field.Path.String, e.g. "spec.listeners[0].tls".
func (p *fieldPath) String() string { return p.Path().String() }
