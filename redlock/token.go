package redlock

import (
	"crypto/rand"
	"encoding/base64"
)

// newToken returns 20 random bytes from crypto/rand as unpadded URL-safe base64.
func newToken() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}
