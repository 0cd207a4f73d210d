package testbed

import (
	"fmt"
	"sync"
)

// FencedStore is a storage that checks fencing tokens, as a storage protected
// by a fenced Redlock must: it accepts a write only when its token is at
// least the highest it has accepted, so that a holder whose lock expired
// while it was paused cannot overwrite a later holder's data. Equal tokens
// are accepted, so one holder may write several times. It keeps every write,
// accepted or refused, in order. It is safe for concurrent use; the zero
// value is an empty store.
type FencedStore struct {
	mu      sync.Mutex
	highest uint64
	value   string
	log     []StoreWrite
}

// StoreWrite is one write a FencedStore was asked for.
type StoreWrite struct {
	Seq      int    // position in the store's log, from 0
	Token    uint64 // the writer's fencing token
	Value    string
	Accepted bool
	Highest  uint64 // the highest token accepted before this write
}

// StaleTokenError is a write a FencedStore refused: its token is below one
// the store has accepted.
type StaleTokenError struct {
	Token   uint64 // the refused write's token
	Highest uint64 // the highest token accepted so far
}

// Error names both tokens.
func (e *StaleTokenError) Error() string {
	return fmt.Sprintf("fenced store: write with token %d refused: token %d was accepted already", e.Token, e.Highest)
}

// Write stores value if token is at least the highest token accepted so far;
// otherwise it returns a *StaleTokenError and leaves the value as it was.
func (s *FencedStore) Write(token uint64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := StoreWrite{Seq: len(s.log), Token: token, Value: value, Highest: s.highest, Accepted: token >= s.highest}
	s.log = append(s.log, w)
	if !w.Accepted {
		return &StaleTokenError{Token: token, Highest: s.highest}
	}
	s.highest, s.value = token, value
	return nil
}

// Value returns the last accepted value and its token.
func (s *FencedStore) Value() (string, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value, s.highest
}

// Log returns every write so far, in the order the store saw them.
func (s *FencedStore) Log() []StoreWrite {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]StoreWrite(nil), s.log...)
}
