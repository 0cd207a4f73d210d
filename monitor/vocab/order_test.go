package vocab

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCompareNamesOrdersNumbersByValue(t *testing.T) {
	want := []string{
		"",
		"lock",
		"lock:",
		"lock:0",
		"lock:00",
		"lock:01", // the same number: byte order
		"lock:1",
		"lock:2",
		"lock:9",
		"lock:10",
		"lock:10a",
		"lock:10b",
		"lock:11",
		"lock:99",
		"lock:100",
		"lock:9223372036854775808",  // 2^63: past int64
		"lock:18446744073709551615", // 2^64-1
		"lock:18446744073709551616", // past uint64
		"lock:100000000000000000000000000000",
		"lock:a",
		"orders:lock:9",
		"orders:lock:492",
		"orders:lock:4902",
		"orders:lock:4902:1",
		"orders:lock:4902:2",
		"orders:lock:4902:10",
		"orders:lock:4902a",
		"orders:lock:49020",
	}
	got := slices.Clone(want)
	rand.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
	slices.SortFunc(got, CompareNames)
	if !slices.Equal(got, want) {
		t.Fatalf("sorted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, a := range want {
		for j, b := range want {
			if c, want := CompareNames(a, b), cmp.Compare(i, j); c != want {
				t.Errorf("CompareNames(%q, %q) = %d, want %d", a, b, c, want)
			}
		}
	}
}
