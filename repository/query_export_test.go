package repository

// SetMaxRepeats sets how many visitor-days of several visits the query engine passes as a
// list (past it, it joins them), for the tests of both ways; it returns the way back.
func SetMaxRepeats(n int) (restore func()) {
	old := maxRepeats
	maxRepeats = n
	return func() { maxRepeats = old }
}

// SetGoalsListPath turns the goals list's statements for the event:goal dimension on or off
// (the union of one part a goal answers then), for the tests that compare both; it returns the
// way back.
func SetGoalsListPath(on bool) (restore func()) {
	old := goalsListPath
	goalsListPath = on
	return func() { goalsListPath = old }
}
