package repository

import "time"

// SplitRange and Segment expose splitRange to the external tests.
type Segment struct {
	Table    string
	From, To time.Time
}

func SplitRange(from, to time.Time) []Segment {
	var out []Segment
	for _, s := range splitRange(from, to) {
		out = append(out, Segment{Table: s.table, From: s.from, To: s.to})
	}
	return out
}

var WithSessionSettings = withSessionSettings
