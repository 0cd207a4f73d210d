package reading

import "testing"

// TestRedissonChannelNamesAsRedissonDoes: the key in braces, unless it has a hash tag of its own.
func TestRedissonChannelNamesAsRedissonDoes(t *testing.T) {
	for key, want := range map[string]string{
		"orders":        "redisson_lock__channel:{orders}",
		"{user:1}:lock": "redisson_lock__channel:{user:1}:lock",
	} {
		if got := redissonChannel(key); got != want {
			t.Errorf("redissonChannel(%q) = %q, want %q", key, got, want)
		}
	}
}
