package kit

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestFitCutsAndPadsToExactWidth(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 4, "abc…"},
		{"abc", 3, "abc"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
		{"漢字漢字", 5, "漢字…"},
		{"‽a\\x1b", 4, "‽a\\…"},
	}
	for _, tc := range tests {
		got := Fit(tc.in, tc.w)
		if got != tc.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
		if tc.w > 0 && ansi.StringWidth(got) != tc.w {
			t.Errorf("fit(%q, %d) is %d cells wide", tc.in, tc.w, ansi.StringWidth(got))
		}
	}
	if got := FitLeft("7", 3); got != "  7" {
		t.Errorf("fitLeft(7, 3) = %q, want right-aligned", got)
	}
}

func TestLatencyAndCountFormats(t *testing.T) {
	if got := Latency(420 * time.Microsecond); got != "0.42ms" {
		t.Errorf("latency(420µs) = %q, want 0.42ms", got)
	}
	if got := Thousands(100000); got != "100,000" {
		t.Errorf("thousands(100000) = %q", got)
	}
}

func TestWindowKeepsTheCursorVisible(t *testing.T) {
	tests := []struct {
		name                                 string
		cursor, offset, height, total, wants int
	}{
		{"everything fits", 5, 3, 10, 8, 0},
		{"cursor below the window scrolls down just enough", 12, 0, 10, 100, 3},
		{"cursor above the window scrolls up to it", 2, 5, 10, 100, 2},
		{"cursor inside does not scroll", 7, 5, 10, 100, 5},
		{"never past the last page", 99, 95, 10, 100, 90},
		{"cursor past the end is clamped", 500, 0, 10, 100, 90},
		{"no room", 5, 0, 0, 100, 0},
	}
	for _, tc := range tests {
		if got := Window(tc.cursor, tc.offset, tc.height, tc.total); got != tc.wants {
			t.Errorf("%s: window(%d, %d, %d, %d) = %d, want %d", tc.name, tc.cursor, tc.offset, tc.height, tc.total,
				got, tc.wants)
		}
	}
}

func TestBarCells(t *testing.T) {
	tests := []struct {
		f             float64
		w             int
		filled, empty int
	}{{0, 10, 0, 10}, {1, 10, 10, 0}, {0.5, 10, 5, 5}, {0.01, 10, 1, 9}, {2, 10, 10, 0}, {-1, 10, 0, 10}, {0.5, 0, 0, 0}}
	for _, tc := range tests {
		if f, e := BarCells(tc.f, tc.w); f != tc.filled || e != tc.empty {
			t.Errorf("barCells(%v, %d) = %d, %d; want %d, %d", tc.f, tc.w, f, e, tc.filled, tc.empty)
		}
	}
}

// TestFitAddrKeepsThePort: an address too long for its column gives up its scheme, then the middle of its host,
// never its port (a rediss master at 127.0.0.1:8123 read "rediss://127.0.0.1:81…" at every width).
func TestFitAddrKeepsThePort(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"10.0.0.1:6379", 22, "10.0.0.1:6379         "},
		{"rediss://127.0.0.1:8123", 23, "rediss://127.0.0.1:8123"},
		{"rediss://127.0.0.1:8123", 22, "tls:127.0.0.1:8123    "},
		{"redis://127.0.0.1:8123", 20, "127.0.0.1:8123      "},
		{"rediss://alice@cache-eu-west-1.example.com:6380", 22, "tls:cache-…le.com:6380"},
		{"redis-primary-eu-west-1.internal.example.com:6379", 22, "redis-pr…mple.com:6379"},
		{"[2001:db8::1]:6379", 12, "[20…:1]:6379"},
	}
	for _, tt := range tests {
		got := FitAddr(tt.in, tt.w)
		if got != tt.want {
			t.Errorf("fitAddr(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
		if w := ansi.StringWidth(got); w != tt.w {
			t.Errorf("fitAddr(%q, %d) is %d cells", tt.in, tt.w, w)
		}
	}
}
