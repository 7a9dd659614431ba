package handlers

import (
	"net/url"
	"strconv"

	"github.com/analytics-service/analytics/gen"
)

const defaultPerPage = 50

// page is the validated page request of a list.
type page struct {
	number, size int
}

func newPage(number *int, size *int) page {
	p := page{number: 1, size: defaultPerPage}
	if number != nil {
		p.number = *number
	}
	if size != nil {
		p.size = *size
	}
	return p
}

func (p page) offset() int { return (p.number - 1) * p.size }

// envelope builds the list meta and links. Links repeat the request's own query with only
// `page` changed, so every filter and sort survives paging.
func (p page) envelope(u *url.URL, total int64) (gen.ListMeta, gen.ListLinks) {
	lastPage := int((total + int64(p.size) - 1) / int64(p.size))
	if lastPage < 1 {
		lastPage = 1
	}
	meta := gen.ListMeta{CurrentPage: p.number, PerPage: p.size, Total: total, LastPage: lastPage}
	if first := int64(p.offset()) + 1; first <= total {
		to := min(int64(p.offset()+p.size), total)
		from, last := int(first), int(to)
		meta.From, meta.To = &from, &last
	}
	link := func(n int) string {
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		l := *u
		l.RawQuery = q.Encode()
		return l.String()
	}
	links := gen.ListLinks{First: link(1), Last: link(lastPage)}
	if p.number > 1 {
		prev := link(min(p.number-1, lastPage))
		links.Prev = &prev
	}
	if p.number < lastPage {
		next := link(p.number + 1)
		links.Next = &next
	}
	return meta, links
}
