package reading

import "testing"

// TestLongValuesAsTheScriptsReturnThem reads values as the read scripts and plain commands return them: a long
// one marked with its length and digest is its prefix with that mark, equal to another only when both are; one
// without a readable mark (plain commands read a byte more than the prefix) is not read.
func TestLongValuesAsTheScriptsReturnThem(t *testing.T) {
	const n = 8
	tests := []struct {
		name, reply string
		token       string
		unread      bool
	}{
		{"short", "abc", "abc", false},
		{"exactly the limit", "abcdefgh", "abcdefgh", false},
		{"long, digested", "abcdefgh0123456789abcdef:300", "abcdefgh…[300 bytes, sha1 0123456789abcdef]", false},
		{"long, too long to digest", "abcdefgh:2000000", "abcdefgh…[2000000 bytes]", false},
		{"a byte more, read with plain commands", "abcdefghi", "", true},
		{"a mark that says it is not longer", "abcdefgh0123:8", "", true},
		{"a digest that is not one", "abcdefghxyz:300", "", true},
	}
	for _, tt := range tests {
		k := keyReading("k", tt.reply, 1000, n)
		if unread := k.cut == cutUnread; unread != tt.unread || !tt.unread && k.Token() != tt.token {
			t.Errorf("%s: %q read as token %q unread %v, want %q unread %v", tt.name, tt.reply, k.Token(), unread, tt.token, tt.unread)
		}
	}
	if k := keyReading("k", "abcdefgh-:300", 1000, n); k.cut != cutSkipped {
		t.Errorf("a long value discovery did not digest: %+v, want it skipped", k)
	}
	a := keyReading("k", "abcdefgh0123456789abcdef:300", 1000, n)
	b := keyReading("k", "abcdefghfedcba9876543210:300", 1000, n)
	if a.Token() == b.Token() || a.Value != b.Value {
		t.Errorf("two long values alike in their first %d bytes: tokens %q and %q", n, a.Token(), b.Token())
	}
}
