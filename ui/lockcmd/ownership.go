package lockcmd

import "time"

// Ownership is the register of this process's locks that the dashboard's lock commands keep up to date
// (internal/app's, which the monitor reads): it is how the monitor knows which locks are ours.
type Ownership interface {
	// Acquired records token as our lock on resource, acquired at at with ttl.
	Acquired(resource, token string, at time.Time, ttl time.Duration)
	// Valid records until as the end of the validity we hold our lock on resource with (acquired or
	// extended), if resource is still recorded with token: our token gone after it is an expiry, not a loss.
	Valid(resource, token string, until time.Time)
	// Ended removes that record, if resource is still recorded with token.
	Ended(resource, token string)
	// Deleting records that we are force-deleting tokens of resource, a lock not ours.
	Deleting(resource string, tokens ...string)
}
