package findings

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// hostileRunes are characters JSON or a terminal treats specially, and
// characters of every UTF-8 length: the alphabet of the random texts.
var hostileRunes = []string{
	"a", "/", ".", "[", "]", " ", `"`, `\`, "<", ">", "&", // JSON escapes, path syntax
	"\n", "\t", "\r", "\b", "\f", "\x00", "\x1b", "\x7f", // C0 and DEL
	"\u0085", "\u009b", // C1 (CSI)
	"\u2028", "\u2029", "\u202e", "\u2066", "\u200b", "\ufeff", // separators, bidi, format
	"é", "漢", "😀", "\U000e0001", // two, three, four bytes
	"\xff", "\xc3", "\xe6\xbc", // invalid UTF-8, cut sequences
}

// randomText is n pieces of hostileRunes.
func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(hostileRunes[rng.IntN(len(hostileRunes))])
	}
	return b.String()
}

// jsonMarshalLen is what JSONLen must count: encoding/json's own output,
// without the quotes.
func jsonMarshalLen(t *testing.T, s string) int {
	data, err := json.Marshal(s)
	require.NoError(t, err)
	return len(data) - 2
}

// JSONLen counts exactly what encoding/json writes, on every character
// class it escapes.
func TestJSONLenIsEncodingJSONs(t *testing.T) {
	for _, r := range hostileRunes {
		assert.Equal(t, jsonMarshalLen(t, r), JSONLen(r), "%q", r)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 2000 {
		s := randomText(rng, rng.IntN(40))
		assert.Equal(t, jsonMarshalLen(t, s), JSONLen(s), "%q", s)
	}
}

// Cut: what encoding/json writes of the result is within the share; the
// result is the text's beginning, cut at a whole character, and the tail
// saying how long the text was; a text within its share is unchanged, and
// a cut text is not cut again.
func TestCutMeasuresEncodedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for range 3000 {
		s := randomText(rng, rng.IntN(300))
		max := 40 + rng.IntN(300)
		got := Cut(s, max, CutPathSuffix)
		require.LessOrEqual(t, jsonMarshalLen(t, got), max, "%q cut to %d: %q", s, max, got)
		if JSONLen(s) <= max {
			assert.Equal(t, s, got)
			continue
		}
		tail := fmt.Sprintf(CutPathSuffix, len(s))
		require.True(t, strings.HasSuffix(got, tail), "%q", got)
		kept := strings.TrimSuffix(got, tail)
		assert.True(t, strings.HasPrefix(s, kept))
		// the next character did not fit: no shorter cut than needed
		if rest := s[len(kept):]; rest != "" {
			_, size := utf8.DecodeRuneInString(rest)
			assert.Greater(t, JSONLen(kept+rest[:size])+len(tail), max, "%q cut short", s)
		}
		assert.Equal(t, got, Cut(got, max, CutPathSuffix), "cut again")
	}
}

// Escape leaves nothing a terminal interprets nor kube-apiserver's warning
// header refuses, as net.NewWarningHeader itself checks; CutEscaped cuts
// between escapes, never inside one, within its runes.
func TestEscapeMakesWarningHeaders(t *testing.T) {
	assert.Equal(t, `a\tb\x1b[31m\u0085\u2028\u202e\xffé漢`, Escape("a\tb\x1b[31m\u0085\u2028\u202e\xffé漢"))
	rng := rand.New(rand.NewPCG(5, 5))
	for range 3000 {
		s := randomText(rng, rng.IntN(300))
		e := Escape(s)
		require.True(t, utf8.ValidString(e))
		_, err := utilnet.NewWarningHeader(299, "-", e)
		require.NoError(t, err, "%q", e)
		max := 40 + rng.IntN(300)
		got := CutEscaped(s, max, CutSuffix)
		require.LessOrEqual(t, utf8.RuneCountInString(got), max)
		if utf8.RuneCountInString(e) <= max {
			assert.Equal(t, e, got)
			continue
		}
		tail := fmt.Sprintf(CutSuffix, len(s))
		kept := strings.TrimSuffix(got, tail)
		require.NotEqual(t, got, kept, "ends with the tail")
		assert.True(t, strings.HasPrefix(e, kept))
		// kept is the escape of a beginning of s: no escape is cut
		found := false
		for i := 0; i <= len(s) && !found; i++ {
			found = Escape(s[:i]) == kept
		}
		assert.True(t, found, "%q: %q cuts inside an escape", s, kept)
		assert.Equal(t, got, CutEscaped(got, max, CutSuffix), "cut again")
	}
}
