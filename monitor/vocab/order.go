package vocab

import (
	"cmp"
	"strings"
)

// CompareNames orders names as people read them: a run of digits compares by its number's value, so that
// orders:lock:492 comes before orders:lock:4902 and lock:9 before lock:10, and the rest byte by byte. Names
// that differ only in leading zeros ("lock:07", "lock:7") are ordered byte by byte, so the order is total: it
// returns 0 only for equal names. Numbers of any length compare exactly.
func CompareNames(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ea, eb := digitsEnd(a, i), digitsEnd(b, j)
			na, nb := strings.TrimLeft(a[i:ea], "0"), strings.TrimLeft(b[j:eb], "0")
			if len(na) != len(nb) {
				return cmp.Compare(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			i, j = ea, eb
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(int(a[i]), int(b[j]))
		}
		i, j = i+1, j+1
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// isDigit reports whether c is an ASCII decimal digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsEnd is the end of the run of digits that begins at s[i].
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
