package redlock

import (
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// replyKind says which reply of a command is its success value. A grant is
// only ever what the master literally said: anything else (an error reply,
// no reply, a nil value, a closed connection, a timeout, a reply of another
// type) is not one.
type replyKind int

const (
	// replySet: SET NX PX grants on the status reply OK; a nil reply means the
	// key exists.
	replySet replyKind = iota
	// replyFencedSet: the fenced acquire script grants on a positive integer
	// (the counter); a nil reply means the key exists.
	replyFencedSet
	// replyScript: the compare-and-delete, compare-and-extend and raise scripts
	// answer 1 (done), 0 (no key) or -1 (another token or another type).
	replyScript
	// replyGet: GET of a lock's key is ours only when it returns the call's
	// token, whole; a nil reply means no key, another string or WRONGTYPE
	// another holder.
	replyGet
	// replyText: any bulk string answers (INFO); its value is read by the caller.
	replyText
)

// classify turns a master's reply into an outcome and, for any outcome but
// OK, gone and held-by-other, what the master said or why it said nothing.
// want is the token a replyGet call compares the value with.
func classify(r reply, kind replyKind, want string) (Outcome, error) {
	if r.err != nil {
		switch {
		case kind == replyGet && errors.Is(r.err, redis.Nil) && !r.replica:
			return OutcomeGone, nil
		case kind == replyGet && redis.HasErrorPrefix(r.err, "WRONGTYPE") && !r.replica:
			return OutcomeHeldByOther, nil // another client's lock of another shape
		case kind == replyGet && (errors.Is(r.err, redis.Nil) || isReply(r.err) && r.replica):
			return OutcomeReplica, errReplicaRole
		case kind != replyScript && errors.Is(r.err, redis.Nil):
			return OutcomeHeldByOther, nil
		case isReadOnly(r.err):
			return OutcomeReplica, r.err
		case isTimeout(r.err):
			return OutcomeTimeout, r.err
		}
		return OutcomeError, r.err
	}
	o := OutcomeError
	switch kind {
	case replySet:
		if r.val == "OK" {
			o = OutcomeOK
		}
	case replyFencedSet:
		if v, ok := r.val.(int64); ok && v > 0 {
			o = OutcomeOK
		}
	case replyScript:
		switch r.val {
		case int64(1):
			o = OutcomeOK
		case int64(0):
			o = OutcomeGone
		case int64(-1):
			o = OutcomeHeldByOther
		}
	case replyGet:
		switch v, ok := r.val.(string); {
		case ok && v == want:
			o = OutcomeOK
		case ok:
			o = OutcomeHeldByOther
		}
	case replyText:
		if _, ok := r.val.(string); ok {
			o = OutcomeOK
		}
	}
	switch {
	case o == OutcomeError:
		return o, &UnexpectedReplyError{Value: r.val}
	case kind == replyGet && r.replica:
		// What a replica holds is its primary's, whatever it is: it tells nothing of this master's lock.
		return OutcomeReplica, errReplicaRole
	case o == OutcomeOK && r.replica:
		// A writable replica (replica-read-only no) took the write: it counts for nothing, and its
		// primary overwrites it at the next resynchronisation.
		return OutcomeReplica, errReplicaRole
	}
	return o, nil
}

// UnexpectedReplyError is a reply that is neither the command's success
// value nor one of its documented refusals: a reply of another type, or a
// value no version of the command returns. It is never a grant.
type UnexpectedReplyError struct {
	Value any // as go-redis decoded it; nil when the master's reply carried no value
}

// Error names the reply.
func (e *UnexpectedReplyError) Error() string {
	if e.Value == nil {
		return "redlock: empty reply"
	}
	return fmt.Sprintf("redlock: unexpected reply %T %v", e.Value, e.Value)
}

// errReplicaRole is the outcome's error for a write a replica accepted.
var errReplicaRole = errors.New("redlock: the server is a replica (role:slave)")

// noReplyError is a command that got no reply from a pipeline that failed
// before reading it (go-redis leaves such a command with a nil value and a
// nil error). It deliberately does not unwrap to the pipeline's error, which
// may quote a reply to an earlier command: this one was not answered, and may
// or may not have reached the master.
type noReplyError struct{ cause error }

func (e *noReplyError) Error() string {
	if e.cause == nil {
		return "redlock: no reply"
	}
	return "redlock: no reply: " + e.cause.Error()
}

// isReadOnly reports whether err is a replica's refusal to write.
func isReadOnly(err error) bool {
	return redis.HasErrorPrefix(err, "READONLY")
}

// dropsConn reports whether go-redis closes a connection that got err as a
// reply (a replica's READONLY, a cluster's MOVED): the next command on it
// would get no reply, so the node sets up another.
func dropsConn(err error) bool {
	return isReadOnly(err) || redis.HasErrorPrefix(err, "MOVED")
}
