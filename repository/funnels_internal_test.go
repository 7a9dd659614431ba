package repository

import (
	"fmt"
	"slices"
	"testing"
)

// TestOneWordInTextOrder: a funnel's mask table lists its texts in order whatever the map's,
// so that the same funnel is the same statement and the column store's kept counts serve it.
func TestOneWordInTextOrder(t *testing.T) {
	bits := map[string]int64{}
	for i := range 50 {
		bits[fmt.Sprintf("/page-%02d", i)] = int64(i % 3)
	}
	for range 5 {
		m := oneWord(bits)
		if !slices.IsSorted(m.Texts) || len(m.Texts) != len(bits) {
			t.Fatalf("texts out of order: %v", m.Texts)
		}
		for i, text := range m.Texts {
			if m.Words[0][i] != bits[text] {
				t.Errorf("%s: bits %d, want %d", text, m.Words[0][i], bits[text])
			}
		}
	}
}
