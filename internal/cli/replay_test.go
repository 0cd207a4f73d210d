package cli

import "testing"

func TestRecordMaxTakesSizesWithUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"256M", 256 << 20, true}, {"256MiB", 256 << 20, true}, {"1G", 1 << 30, true}, {"2048K", 2 << 20, true},
		{"1048576", 1 << 20, true}, {"500K", 0, false}, {"lots", 0, false}, {"-5M", 0, false}, {"", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
