package untrusted

import "testing"

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain-name:42", "plain-name:42"},
		{"ünïcödé ключ", "ünïcödé ключ"},
		{"a\x1b[31mb", `a\x1b[31mb`},
		{"tab\there", `tab\there`},
		{"nl\n", `nl\n`},
		{"bin\x00\xff", `bin\x00\xff`},
		{`back\slash`, `back\\slash`},
		{"c1\u009b31m", `c1\u009b31m`},
		{"bidi\u202egnp.exe", `bidi\u202egnp.exe`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"\u0301combining first", `\u0301combining first`},
		{"e\u0301 combining after a letter", "e\u0301 combining after a letter"},
		{"variation\ufe0f", `variation\ufe0f`},
		{"tag\U000e0001", `tag\U000e0001`},
		{"", ""},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
