package reading

import "time"

// Config is what the reads of a master need of the monitor's configuration (monitor.Config, whose fields
// document them), with its defaults applied.
type Config struct {
	Pattern     string        // SCAN MATCH pattern
	ScanCount   int           // SCAN COUNT of one discovery step
	ScanBudget  float64       // share of one master core discovery may use
	MaxKeys     int           // distinct lock keys tracked
	MaxValueLen int           // tokens longer than this are cut (longvalues.go)
	Interval    time.Duration // poll interval: what "current" means for reads of one key
	Writes      bool          // the program also writes: check the ACL allows that too
}

// DefaultPattern is the SCAN MATCH pattern of discovery when none is given: every key, lock-shaped ones
// listed (lockshape).
const DefaultPattern = "*"

// NoTTL is KeyReading.PTTL for a key that never expires.
const NoTTL time.Duration = -1
