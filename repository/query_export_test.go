package repository

// SetMaxRepeats sets how many visitor-days of several visits the query engine passes as a
// list (past it, it joins them), for the tests of both ways; it returns the way back.
func SetMaxRepeats(n int) (restore func()) {
	old := maxRepeats
	maxRepeats = n
	return func() { maxRepeats = old }
}
