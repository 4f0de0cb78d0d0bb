package findings

import (
	"strconv"
	"strings"
)

// MustBe words the refusal of a value outside values, the one wording of
// every setting with a fixed list (the commands' enum flags, the
// webhook's and validation's option checks): `must be "a" or "b"`, with
// more than two `must be one of "a", "b" or "c"`.
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
