// Package whoholds names the process behind a lock. A token tells nobody which process holds a lock; the
// master knows which connection sent it. On request, for one lock, a sample runs MONITOR on one master for a
// few seconds at most (bounded in time and in lines read: MONITOR makes the master copy every command to the
// sampling connection), keeps the commands on the lock's key, and maps each connection that sent the holder's
// token (its SET, the extend and release scripts given it, Redisson's renewal) to what CLIENT LIST says of it:
// address, client name, library and version where the master keeps them (Redis 7.2 and later), age and idle
// time. Hints reads what a lock's values say of their holder without sampling (Redisson's instance and thread).
//
// Sample blocks for the sample's length and does I/O: call it from a goroutine (the dashboard's tea.Cmd). The
// attribution of commands to connections (attribute) and the parsing of MONITOR's and CLIENT LIST's lines are
// pure and tested without a server. Text from the master (client names, addresses) is made safe for a
// terminal once, where it is read (monitor/vocab/untrusted): a Report's and Client's strings are safe as they are.
//
// Whether a sample may run at all (read-only and production profiles ask for a confirmation) is the caller's
// policy; this package only refuses what the master's ACL refuses (DeniedError).
package whoholds
