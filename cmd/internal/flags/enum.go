package flags

import (
	"errors"
	"slices"

	"github.com/airlock/listenerset-webhook/findings"
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

// Set implements flag.Value: one of the Choices, or the error
// findings.MustBe words.
func (e *Enum[T]) Set(s string) error {
	var zero T
	if !slices.Contains(zero.Choices(), T(s)) {
		return errors.New(findings.MustBe(zero.Choices()))
	}
	*e.p = T(s)
	return nil
}

// Type implements pflag.Value.
func (e *Enum[T]) Type() string { return e.typ }
