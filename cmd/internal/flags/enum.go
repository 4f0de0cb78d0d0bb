package flags

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Choice is a string type whose values are a fixed list, the default
// first; its zero value ("") stands for the default.
type Choice[T any] interface {
	~string
	// Choices are the accepted values, the default first.
	Choices() []T
}

// Enum is a flag whose value is one of T's Choices (flag.Value and
// pflag.Value), set into *p. The zero Enum, and one whose *p is "", shows
// the default, so that package flag prints no default of its own.
type Enum[T Choice[T]] struct {
	p   *T
	typ string
}

// NewEnum is the flag that sets *p; typ names its value in pflag's help
// ("string", "mode").
func NewEnum[T Choice[T]](p *T, typ string) *Enum[T] { return &Enum[T]{p: p, typ: typ} }

// String implements flag.Value: the value set, else the default.
func (e *Enum[T]) String() string {
	if e == nil || e.p == nil || *e.p == "" {
		var zero T
		return string(zero.Choices()[0])
	}
	return string(*e.p)
}

// Set implements flag.Value: one of the Choices, or the error MustBe words.
func (e *Enum[T]) Set(s string) error {
	var zero T
	if !slices.Contains(zero.Choices(), T(s)) {
		return errors.New(MustBe(zero.Choices()))
	}
	*e.p = T(s)
	return nil
}

// Type implements pflag.Value.
func (e *Enum[T]) Type() string { return e.typ }

// MustBe is the error of a value outside values: `must be "a" or "b"`, or
// with more than two `must be one of "a", "b" or "c"`.
func MustBe[T ~string](values []T) string {
	if len(values) > 2 {
		return "must be one of " + OneOf(values)
	}
	return "must be " + OneOf(values)
}

// OneOf is `"a", "b" or "c"`.
func OneOf[T ~string](values []T) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(string(v))
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
