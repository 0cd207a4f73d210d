package lockcmd

import (
	"testing"
	"time"
)

// TestParseTTLSaysItsLimitsInTheVocabularysWords: the acquire form's TTL limits read 24h and 1ms, as the
// rest of the program writes durations (vocab.ExactDuration), not Go's 24h0m0s.
func TestParseTTLSaysItsLimitsInTheVocabularysWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"48h", "the TTL must be at most 24h"},
		{"24h0m1s", "the TTL must be at most 24h"},
		{"500us", "the TTL must be at least 1ms"},
	} {
		if _, err := parseTTL(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("parseTTL(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	if d, err := parseTTL("24h"); err != nil || d != 24*time.Hour {
		t.Errorf("parseTTL(24h) = %v, %v; want 24h, the limit itself", d, err)
	}
}
