package monitor

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// The lock shapes and client families live in package lockshape; these are their names in monitor's public API.

// SetMember is one member of a sorted-set lock and its score, as read (lockshape.SetMember).
type SetMember = lockshape.SetMember

// KeyConvention is how one client names a resource's key (lockshape.KeyConvention).
type KeyConvention = lockshape.KeyConvention

// KeyConventions are the known clients' key conventions (lockshape.KeyConventions).
var KeyConventions = lockshape.KeyConventions

// KeyFormat returns the function that names a resource's key as the convention spec does (lockshape.KeyFormat).
func KeyFormat(spec string) (func(resource string) string, error) { return lockshape.KeyFormat(spec) }

// KeyFormatNames are the names KeyFormat takes, "plain" first.
func KeyFormatNames() []string { return lockshape.KeyFormatNames() }

// ValueTime reads v, a lock's value, as a Unix time near at (lockshape.ValueTime).
func ValueTime(v string, at time.Time) (time.Time, bool) { return lockshape.ValueTime(v, at) }
