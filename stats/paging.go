package stats

import "slices"

// PerPageValues are the page sizes a list takes (per_page), and DefaultPerPage the one it uses
// when none is asked.
var PerPageValues = []int{10, 25, 50, 100}

const DefaultPerPage = 50

// MaxPage is the highest page number a list takes, in the API and in the pages alike.
const MaxPage = 1_000_000_000

// ValidPage tells whether n may be a page number: 1 to MaxPage.
func ValidPage(n int) bool { return n >= 1 && n <= MaxPage }

// ValidPerPage tells whether n is one of PerPageValues.
func ValidPerPage(n int) bool { return slices.Contains(PerPageValues, n) }

// Paging is one page of a list: its number, from 1, and its size. A page past the end is
// valid and empty.
type Paging struct {
	Number, Size int
}

// Offset is how many items come before the page.
func (p Paging) Offset() int { return (p.Number - 1) * p.Size }

// LastPage is the number of the last page of total items; 1 when there are none.
func (p Paging) LastPage(total int64) int {
	return max(1, int((total+int64(p.Size)-1)/int64(p.Size)))
}

// Shown is the positions, from 1, of the first and last of total items on the page; 0 and 0
// when the page has none.
func (p Paging) Shown(total int64) (first, last int64) {
	first = int64(p.Offset()) + 1
	if first > total {
		return 0, 0
	}
	return first, min(int64(p.Offset()+p.Size), total)
}

// Prev is the number of the page to go back to (the last page, from past the end); ok is
// false on the first page.
func (p Paging) Prev(total int64) (n int, ok bool) {
	if p.Number <= 1 {
		return 0, false
	}
	return min(p.Number-1, p.LastPage(total)), true
}

// Next is the number of the page after this one; ok is false from the last page on.
func (p Paging) Next(total int64) (n int, ok bool) {
	if p.Number >= p.LastPage(total) {
		return 0, false
	}
	return p.Number + 1, true
}
