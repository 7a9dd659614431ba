package column

import (
	"strings"
	"testing"
	"time"
)

// insertVisit writes a visit of website 1 on day as a copy would, with its visitor, rkey (nil
// for a visitor-day of one visit), vid and pages, every other list empty and text "".
func insertVisit(t *testing.T, s *Store, day time.Time, visitor int, rkey any, vid int64, pages ...string) {
	t.Helper()
	var texts strings.Builder
	for range textColumns() {
		texts.WriteString(", ''")
	}
	_, err := s.db.Exec(`INSERT INTO visits VALUES (1, ?, 0, ?, 0, false, 0, ?, ?, ?, [], [], [], [], [], [], [], []`+texts.String()+`, ?)`,
		day, len(pages), rkey, visitor, pages, vid)
	if err != nil {
		t.Fatal(err)
	}
}
