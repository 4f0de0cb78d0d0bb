package incluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// compareNamespacedName orders as the strings "namespace/name" do.
func TestCompareNamespacedName(t *testing.T) {
	names := [][2]string{{"a", "x"}, {"a-b", "y"}, {"a", "a"}, {"ab", "c"}, {"a.b", "z"}, {"b", "a"}, {"a", "x-1"}, {"", "q"}}
	for _, a := range names {
		for _, b := range names {
			want := strings.Compare(a[0]+"/"+a[1], b[0]+"/"+b[1])
			assert.Equal(t, want, CompareNamespacedName(a[0], a[1], b[0], b[1]), "%v %v", a, b)
		}
	}
}
