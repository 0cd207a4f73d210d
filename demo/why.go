package demo

// Why each step of a story matters, shown with the step while a stepped run waits for the presenter. The
// first step's why is the story itself (Scenario.Description); the last, "over", is not announced: the run
// ends with it. So a story of n steps has n-2 whys here, for its steps 2 to n-1, in order.

// Whys that several stories share.
const (
	whyPartition = "A and B can form different majorities that share only master 3: whether both can hold " +
		"the lock is up to master 3."
	whyAOnThree = "A wins masters 1, 2, 3, a majority, so it rightly believes it holds the lock for its " +
		"validity time."
	whyNoPersistence = "A master without persistence keeps its keys only in memory: a crash loses them."
	whyBothHold      = "A's validity has not run out, so A writes too: two holders at once is the violation."
	whyFencing       = "A fencing token grows with every acquisition; the storage, not the client, refuses a " +
		"writer whose token is behind."
	whyEveryoneReaches = "Every client reaches every master: nothing in this story fails but A itself."
	whyAOnFive         = "A wins all five masters: in this story the masters are not what fails."
	whyFreeze          = "A process can stop at any moment (a GC, a page fault, a descheduled VM) and not " +
		"notice afterwards."
	whyExpires = "Keys expire on the masters' clocks whatever A is doing: the lock is free, and B rightly " +
		"takes it."
)

// stepWhys are the stories' whys, by scenario name, for their steps 2 to n-1.
var stepWhys = map[string][]string{
	"replication-race": {
		"Failing over to an asynchronous replica is how a single Redis lock is usually made highly " +
			"available, and what the Redlock page warns against.",
		"A primary answers before its replica has the write, so a crash in that window loses a key A was " +
			"told it holds.",
		"After the failover nothing remembers A's lock: its only copy died with master 3.",
		"The new primary sees no key, so it grants the lock again: two clients now believe they hold it.",
		whyBothHold,
	},
	"replication-race-redlock": {
		"Redlock asks every master and counts votes: the lock is held by whoever wins a majority, 3 of 5.",
		"A's key on five masters is five independent votes; no single master's fate decides the lock.",
		"The fault that broke the single primary: one master forgets A's key.",
		"One master forgetting costs A one vote: B can win only master 3, one of the three it needs.",
	},
	"crash-restart": {
		whyPartition, whyAOnThree, whyNoPersistence,
		"Back at once with no data, master 3 forgets it voted for A (the page's persistence section).",
		"Master 3 votes again, now for B: with masters 4 and 5 that is a second majority while A's stands.",
		whyBothHold,
	},
	"crash-delayed-restart": {
		whyPartition, whyAOnThree, whyNoPersistence,
		"With master 3 down B reaches only masters 4 and 5: two votes of five is no majority.",
		"The page's rule: a crashed master stays unavailable a bit longer than the max TTL, so every lock " +
			"it voted for expires first.",
		"A's lock has run out on its own: A stops believing it holds it, so a new holder is safe.",
		"Master 3 is back empty only once nothing it voted for can still be held: B is the one holder.",
	},
	"crash-restart-fenced": {
		whyFencing, whyPartition,
		"A's acquisition raises the fence counters of the masters it wins: 1, 2 and 3.",
		"Taking the lock twice puts the counters of masters 1, 2, 3 ahead of 4 and 5, which never see A.",
		"Without persistence a fence counter is as fragile as a lock key: master 3 loses both.",
		"Master 3 counts from 0 again, so the highest counter B can reach is behind A's.",
		"B wins a majority while A still holds the lock: the lock alone no longer keeps them apart.",
		"The store already took A's higher token, so it refuses B's writes: safe, but the new holder is stuck.",
		"A's token is the highest the store has seen, so A's write is accepted.",
		"Fencing is only as safe as its counters: they need the same persistence as the locks.",
	},
	"clock-jump": {
		whyPartition, whyAOnThree,
		"Redlock assumes the masters' clocks run at about the same rate; a jump breaks that and ends a TTL early.",
		"Master 3 has forgotten A's key, so it votes for B: a second majority while A's validity runs.",
		whyBothHold,
	},
	"clock-jump-small": {
		whyPartition, whyAOnThree,
		"Clients keep a drift allowance back from their validity, so that small clock errors cannot end a " +
			"key before its holder stops.",
		"Master 3 expires A's key a little early, but B needs its vote only once A's validity is over.",
		"A had stopped believing before B began: the allowance absorbed the jump.",
	},
	"gc-pause": {
		whyEveryoneReaches, whyAOnFive, whyFreeze, whyExpires,
		"A checked its lock before the pause and cannot tell that time passed: it writes while B holds the lock.",
	},
	"gc-pause-checked": {
		whyEveryoneReaches, whyAOnFive, whyFreeze,
		"Keys expire whatever A is doing; when A wakes it checks its validity before it writes, and finds " +
			"it over.",
	},
	"gc-pause-fenced": {
		whyFencing, whyEveryoneReaches,
		"A's lock carries a fencing token: the masters' counter after A's acquisition.",
		whyFreeze,
		"Keys expire whatever A is doing; B's acquisition draws a higher token than A's.",
		"The store has taken B's higher token, so it refuses A's stale one, whatever A believes.",
	},
}

// stepWhy is why step k of sc matters: the story for the first step, "" for a step it has no why for.
func stepWhy(sc Scenario, k int) string {
	if k == 1 {
		return sc.Description
	}
	if whys := stepWhys[sc.Name]; k >= 2 && k-2 < len(whys) {
		return whys[k-2]
	}
	return ""
}
