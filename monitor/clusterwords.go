package monitor

import "strings"

// ClusterName is the name under which the dashboard shows a Redis Cluster given by some of its nodes:
// "cluster " and the first node's name.
func ClusterName(first string) string { return "cluster " + strings.TrimSpace(first) }
