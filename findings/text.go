package findings

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// How user text is written into an output: the one rule every piece of text
// a user chose (a map key in a path, a name, a value, a detail that quotes
// one) goes through before a report shows it. Text is measured as the
// output holds it, and cut, when longer than its share, at a whole
// character and before an escape, never inside one; what is cut ends with a
// tail that says so and how long the text was.
//
//   - JSON outputs (the webhook's 422, its causes, its log line, the offline
//     machine formats) hold text as encoding/json writes it: Cut measures
//     encoded bytes (JSONLen), and leaves the characters to the encoder, so
//     those outputs stay lossless up to the cut.
//   - Warnings and terminals show text to a person: Escape writes what a
//     terminal would interpret (control characters, line and paragraph
//     separators, bidirectional overrides, invalid UTF-8) as Go's %q does
//     (\t, \x1b, \u2028), which is also how an error shows its value, and
//     CutEscaped measures characters (runes) after escaping, as
//     kube-apiserver counts a warning. kube-apiserver drops, silently, a
//     warning with a control character or invalid UTF-8
//     (k8s.io/apimachinery/pkg/util/net NewWarningHeader).

// Tails of cut text: how long it was, in bytes.
const (
	// CutSuffix ends a value, detail or message cut to its share.
	CutSuffix = "... (%d bytes)"
	// CutPathSuffix ends a field path cut to MaxPathBytes: a path is cut
	// only when a map key in it is longer than any key the CRD names.
	CutPathSuffix = "... (path of %d bytes)"
)

// Shares of one error's text, in encoded JSON bytes.
const (
	// MaxPathBytes is the longest field path shown. The longest path the
	// rules give with keys the CRD accepts is under 400 bytes (an option
	// key of a 253-character prefix and a 63-character name).
	MaxPathBytes = 512
	// MaxDetailBytes is the longest detail shown.
	MaxDetailBytes = 1 << 10
)

// Cut returns s cut so that encoding/json writes it in at most max bytes
// (JSONLen), ending with the tail format (CutSuffix, CutPathSuffix) of s's
// length in bytes when it is cut. A cut text is not cut again by the same
// share. max must leave room for the tail.
func Cut(s string, max int, tail string) string {
	return fit(s, max, tail, false)
}

// CutEscaped is Escape(s) in at most max runes, cut as Cut cuts.
func CutEscaped(s string, max int, tail string) string {
	return fit(s, max, tail, true)
}

// Escape returns s with every character a terminal would interpret, or
// kube-apiserver refuses in a warning, written as Go's %q writes it: the
// characters strconv.IsPrint refuses (control, format, separators other
// than the space) as \t, \x1b, \u0085, \u202e, and each byte of invalid
// UTF-8 as \xff. Other text is unchanged.
func Escape(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		piece, size := escapedAt(s, i)
		b.WriteString(piece)
		i += size
	}
	return b.String()
}

// plain says s has nothing for Escape to do.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return plainSlow(s[i:])
		}
	}
	return true
}

func plainSlow(s string) bool {
	for _, r := range s {
		if !printable(r) {
			return false
		}
	}
	return true
}

// printable: r is shown as itself (utf8.RuneError here is invalid UTF-8,
// since a valid U+FFFD is printable and range yields it only so).
func printable(r rune) bool { return r == ' ' || r != utf8.RuneError && strconv.IsPrint(r) }

// escapedAt is the character at s[i] as Escape writes it, and its size in s.
func escapedAt(s string, i int) (string, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf(`\x%02x`, s[i]), 1
	case printable(r) || r == utf8.RuneError:
		return s[i : i+size], size
	default:
		q := strconv.QuoteRune(r)
		return q[1 : len(q)-1], size
	}
}

// fit is Cut (escape false) and CutEscaped (escape true): one pass measures
// s as the output holds it; only text over max takes a second pass, to the
// last whole character (escaped when escape) that leaves room for the tail.
func fit(s string, max int, tail string, escape bool) string {
	if !escape && len(s) <= max/6 {
		return s // even at six bytes a byte it fits
	}
	cost := func(i int) (string, int, int) {
		if escape {
			piece, size := escapedAt(s, i)
			return piece, size, utf8.RuneCountInString(piece)
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		return s[i : i+size], size, JSONLen(s[i : i+size])
	}
	n := 0
	for i := 0; i < len(s) && n <= max; {
		_, size, c := cost(i)
		n += c
		i += size
	}
	if n <= max {
		if escape {
			return Escape(s)
		}
		return s
	}
	t := fmt.Sprintf(tail, len(s))
	room := max - len(t) // the tail is ASCII: one byte, one rune, as JSON writes it
	var b strings.Builder
	for i, n := 0, 0; i < len(s); {
		piece, size, c := cost(i)
		if n+c > room {
			break
		}
		b.WriteString(piece)
		n += c
		i += size
	}
	b.WriteString(t)
	return b.String()
}

// JSONLen is the length of s as encoding/json writes it in a string,
// without the quotes: quotes, backslashes and \b \f \n \r \t take two
// bytes; other control characters, the HTML characters <, > and &, U+2028
// and U+2029 six (\u003c); each byte of invalid UTF-8 six (it becomes
// \ufffd); every other character its UTF-8 bytes.
func JSONLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
