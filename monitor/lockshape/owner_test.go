package lockshape

import "testing"

func TestHolderKindOfMedusaValues(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"medusa_lock:order:8", "*", HolderAnyone},
		{"medusa_lock:order:8", "execute:3fa85f64-5717-4562-b3fc-2c963f66afa6", ""},
		{"medusa_lock:order:8", "worker-7", HolderOwner},
		{"medusa_lock:order:8", "execute:not-a-uuid", HolderOwner},
		{"orders:8", "*", ""},
		{"orders:8", "worker-7", ""},
	} {
		if got := HolderKindOf(tc.key, tc.value); got != tc.want {
			t.Errorf("HolderKindOf(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}
