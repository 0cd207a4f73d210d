// Package textfmt writes counts for people, one way for the whole program: the monitor's warnings and the
// dashboard's titles say "1 master", "3 masters" and "100,000 keys" alike.
package textfmt

import "strconv"

// Thousands writes n with commas between groups of three digits: 100,000.
func Thousands[N ~int | ~int64](n N) string {
	if n < 0 {
		return "-" + Thousands(-int64(n))
	}
	s := strconv.FormatInt(int64(n), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Plural writes n and the noun, adding s when n is not 1: "1 poll", "2 polls", "0 polls".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
