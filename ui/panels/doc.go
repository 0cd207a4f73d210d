// Package panels holds the dashboard's panels and what they open in full: the masters, the locks (with their
// filter field, heat, sparkline and incident report), our locks, the detail and the event log panels, and the
// drill-down views of a lock (holders, timeline, contention, who holds it) or a master. The root lays them out
// and routes to them; they read the program context (kit.Shared) and talk through kit's messages.
package panels
