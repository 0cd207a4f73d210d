package monitor

// markDuplicates sets DuplicateOf on every master whose run_id an earlier master already has: two addresses of
// one server, which must count once.
func markDuplicates(masters []MasterStatus) {
	byRunID := map[string]string{}
	for i := range masters {
		m := &masters[i]
		if m.RunID == "" {
			continue
		}
		if first, ok := byRunID[m.RunID]; ok {
			m.DuplicateOf = first
			continue
		}
		byRunID[m.RunID] = m.Addr
	}
}
