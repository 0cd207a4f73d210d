package vocab

import "testing"

func TestThousandsGroupsDigitsByThree(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12000, "12,000"}, {100000, "100,000"},
		{1234567, "1,234,567"}, {-1234, "-1,234"},
	} {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if got := Thousands(int(tt.n)); got != tt.want {
			t.Errorf("Thousands(int(%d)) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestPluralAddsSExceptForOne(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "0 polls"}, {1, "1 poll"}, {2, "2 polls"}, {1000, "1000 polls"},
	} {
		if got := Plural(tt.n, "poll"); got != tt.want {
			t.Errorf("Plural(%d, poll) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
