package kit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestSanitizeEscapesWhatATerminalWouldObey(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"plain ASCII is unchanged", "orders:42", "orders:42"},
		{"printable Unicode is unchanged", "заказ:7 — ok", "заказ:7 — ok"},
		{"ESC sequence", "evil\x1b[31mred", Mark + `evil\x1b[31mred`},
		{"newline and carriage return", "a\nb\rc\td", Mark + `a\nb\rc\td`},
		{"DEL", "a\x7fb", Mark + `a\x7fb`},
		{"C1 control as UTF-8", "a\u009bb", Mark + `a\u009bb`},
		{"invalid UTF-8 bytes", "a\xff\xfeb", Mark + `a\xff\xfeb`},
		{"a lone C1 byte is invalid UTF-8", "a\x9bb", Mark + `a\x9bb`},
		{"bidi override", "abc\u202edcba", Mark + `abc\u202edcba`},
		{"bidi isolate", "x\u2067y\u2069", Mark + `x\u2067y\u2069`},
		{"zero-width space", "lock\u200b", Mark + `lock\u200b`},
		{"zero-width joiner", "a\u200db", Mark + `a\u200db`},
		{"byte order mark", "\ufefflock", Mark + `\ufefflock`},
		{"soft hyphen", "lo\u00adck", Mark + `lo\u00adck`},
		{"Hangul filler is invisible", "a\u3164b", Mark + `a\u3164b`},
		{"variation selector", "a\ufe0fb", Mark + `a\ufe0fb`},
		{"no-break space looks like a space", "a\u00a0b", Mark + `a\u00a0b`},
		{"line separator", "a\u2028b", Mark + `a\u2028b`},
		{"tag character", "a\U000e0041b", Mark + `a\U000e0041b`},
		{"leading combining mark", "\u0301a", Mark + `\u0301a`},
		{"combining mark after a letter is kept", "e\u0301", "e\u0301"},
		{"backslash cannot forge an escape", `lock\u200b`, Mark + `lock\\u200b`},
		{"the mark glyph cannot forge a mark", Mark + "lock", Mark + `\u203dlock`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.raw, 100); got != tc.want {
				t.Errorf("sanitize(%q) = %q, want %q", tc.raw, got, tc.want)
			}
		})
	}
}

func TestSanitizeCapsWidthAndMarksCuts(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		limit int
		want  string
	}{
		{"fits exactly with room for the mark", strings.Repeat("a", 9), 10, strings.Repeat("a", 9)},
		{"one cell too many is cut and marked", strings.Repeat("a", 10), 10, Mark + strings.Repeat("a", 8) + "…"},
		{"escapes count towards the cap", strings.Repeat("\x1b", 5), 10, Mark + `\x1b\x1b…`},
		{"wide characters count twice", strings.Repeat("漢", 6), 10, Mark + "漢漢漢漢…"},
		{"an escape is never cut in half", "ab\x1bcdef", 6, Mark + "ab…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Sanitize(tc.raw, tc.limit)
			if got != tc.want {
				t.Errorf("sanitize(%q, %d) = %q, want %q", tc.raw, tc.limit, got, tc.want)
			}
			if w := ansi.StringWidth(got); w > tc.limit {
				t.Errorf("sanitize(%q, %d) is %d cells wide", tc.raw, tc.limit, w)
			}
		})
	}
}

func TestSanitizeLookAlikesStayDistinct(t *testing.T) {
	names := []string{"lock", "lock\u200b", `lock\u200b`, "lock\u202e", Mark + "lock", "lock\x00", "lock\\x00",
		"lock\xff", `lock\xff`, "lock\u00a0", "lock "}
	seen := map[string]string{}
	for _, raw := range names {
		got := Sanitize(raw, NameCap)
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q both show as %q", prev, raw, got)
		}
		seen[got] = raw
	}
}

func TestSanitizeOutputIsAlwaysSafe(t *testing.T) {
	// Every byte value, alone and around text, and every rune of a few dangerous ranges.
	var inputs []string
	for b := 0; b < 256; b++ {
		inputs = append(inputs, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	for r := rune(0x80); r < 0x3000; r++ {
		inputs = append(inputs, "a"+string(r))
	}
	for _, in := range inputs {
		got := Sanitize(in, 40)
		if !utf8.ValidString(got) {
			t.Fatalf("sanitize(%q) = %q is not valid UTF-8", in, got)
		}
		for i, r := range got {
			if r == '\\' || r == markRune && i == 0 {
				continue
			}
			if needsEscape(r, false) {
				t.Fatalf("sanitize(%q) = %q still holds %U", in, got, r)
			}
		}
		if ansi.Strip(got) != got {
			t.Fatalf("sanitize(%q) = %q holds an escape sequence", in, got)
		}
	}
}

func BenchmarkSanitizePlain(b *testing.B) {
	for b.Loop() {
		Sanitize("billing:invoice:000042", NameCap)
	}
}
