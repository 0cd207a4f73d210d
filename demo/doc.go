// Package demo runs Redlock on five embedded masters so that people can watch
// the algorithm work and break it on purpose.
//
// Start brings up five in-process masters (each with its own clock, reachable
// with redis-cli on Addrs) and a workload of simulated clients, each its own
// Redlock client with its own connections, contending for a few named
// resources. Every simulated client reports what it believes (I hold resource
// R with token T until U); a detector compares those beliefs and raises a
// Violation when two clients believe they hold the same resource at the same
// time, or when a client writes after its lock ran out while another held it.
//
// The presenter injects faults (crash and restart a master with its data lost,
// at once or after the delayed-restart rule's wait; pause it; slow it; cut it
// off from the clients; jump its clock or make it run fast; freeze a client as
// a long GC pause would) and runs scripted scenarios that replay the seeds'
// failure stories step by step, each with a safe variant: at the demo's pace,
// in slow motion, or one step at a time as a presenter tells it (RunMode), and
// ResetFaults brings every master back to normal between two stories.
//
// Everything that happens is reported as an Event on the Events channel.
// The package has no user interface of its own.
package demo
