package lockshape

import (
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// TestClientsNamedByTheirTokensAndKeys: the clients issue 46 found unnamed are named from their token's and
// key's shapes, and the shapes they share with others are told apart.
func TestClientsNamedByTheirTokensAndKeys(t *testing.T) {
	uuid1 := "6a3c7e52cd3411efa1b20242ac120002" // uuid.uuid1().hex of 2024-11-04
	v1bytes, _ := hex.DecodeString(uuid1)
	for _, tc := range []struct {
		resource, token, want string
	}{
		{"jobs:nightly", uuid1, "redis-py Lock (or django-redis)"},
		{":1:jobs:nightly", uuid1, "django-redis"},
		{"site:3:report", uuid1, "django-redis"},
		{"jobs:nightly", "6a3c7e52-cd34-11ef-a1b2-0242ac120002", "UUID v1: redislock (npm)"},
		{"jobs:nightly:lock", base64.StdEncoding.EncodeToString(v1bytes), "node-redis-warlock"},
		{"laravel_database_laravel_cache:import", "Xq3v9LmP0aZt7RcW", "Laravel"},
		{"shop_database_shop_cache_:import", "Xq3v9LmP0aZt7RcW", "Laravel"},
		{"medusa_lock:order:8", "execute:3fa85f64-5717-4562-b3fc-2c963f66afa6", "Medusa"},
		{"medusa_lock:order:8", "*", "Medusa"},
		// Shapes shared with others stay theirs.
		{"jobs:nightly", "0123456789abcdef0123456789abcdef", "node-redlock or redlock-universal"}, // version digit 6, not 1
		{"jobs:nightly", "6a3c7e52cd3401efa1b20242ac120002", "node-redlock or redlock-universal"}, // a 1 at [12], a time of 1583
		{"jobs:nightly", base64.StdEncoding.EncodeToString(v1bytes), "redsync"},                   // warlock's needs its key
		{"import", "Xq3v9LmP0aZt7RcW", ""},
	} {
		if got, _ := FamilyHint(tc.resource, tc.token, false, ""); got != tc.want {
			t.Errorf("%s holding %q: named %q, want %q", tc.resource, tc.token, got, tc.want)
		}
	}
	// node-redlock's random 32-hex tokens are named redis-py's about once in 2,600 (version digit, variant and a
	// time from 2010 to 2100 by chance).
	rng := rand.New(rand.NewPCG(46, 1))
	named := 0
	for range 100000 {
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		if f, _ := FamilyHint("jobs:nightly", hex.EncodeToString(b), false, ""); f != "node-redlock or redlock-universal" {
			named++
		}
	}
	if named > 100 {
		t.Errorf("%d of 100,000 random node-redlock tokens named another client; want about 38", named)
	}
}
