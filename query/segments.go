package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Segments (docs/segments.md): a segment is a saved list of filters in this package's form.
// ["is", "segment", [ID, ...]] is replaced, while the query is read, by the segment's filters
// (all must hold; several ids: any of the segments), so a segment is no new condition of the
// engine: it compiles as the filters it holds, under the same bounds (its leaves count
// towards MaxFilters, its and/or/not towards MaxNesting).

// SegmentLookup returns the stored filters of a segment of the query's website that its
// caller may see, or ErrNoSegment.
type SegmentLookup func(id int64) ([]byte, error)

// ErrNoSegment: no such segment among those of the website that the caller sees (another
// website's, another user's personal one and an unknown id are not told apart).
var ErrNoSegment = errors.New("no such segment")

// MaxSegmentName is the longest name of a segment, in characters.
const MaxSegmentName = 80

func noSegments(int64) ([]byte, error) { return nil, ErrNoSegment }

// isSegment tells whether a leaf's dimension is "segment".
func isSegment(parts []json.RawMessage) bool {
	var name string
	return len(parts) >= 2 && json.Unmarshal(parts[1], &name) == nil && name == "segment"
}

// parseSegment expands ["is", "segment", [IDs]] into the segments' filters.
func (p *filterParser) parseSegment(op Op, parts []json.RawMessage, depth int) (Filter, error) {
	if p.segment == nil {
		return Filter{}, invalidf("filters: a segment cannot hold a segment filter")
	}
	if op != Is {
		return Filter{}, invalidf(`Invalid filter: segment takes the operator "is" only, not %s`, quote(string(op)))
	}
	if len(parts) != 3 {
		return Filter{}, invalidf(`filters: a segment filter is ["is", "segment", [ID]]`)
	}
	var ids []int64
	if err := json.Unmarshal(parts[2], &ids); err != nil || len(ids) == 0 || len(ids) > MaxFilterValues {
		return Filter{}, invalidf("filters: the values of a segment filter must be 1 to %d segment ids (integers)", MaxFilterValues)
	}
	// One segment is the And of its filters; several are an Or of those, one level deeper.
	inner := depth + 1
	if len(ids) > 1 {
		inner++
	}
	if inner > MaxNesting {
		return Filter{}, invalidf("filters: and, or and not may be nested at most %d deep (the limit of one query), a segment's filters counting one level", MaxNesting)
	}
	lookup := p.segment
	p.segment = nil // a segment's own filters hold no segment
	defer func() { p.segment = lookup }()
	var each []Filter
	for _, id := range ids {
		stored, err := lookup(id)
		if errors.Is(err, ErrNoSegment) {
			return Filter{}, invalidf("Invalid filters: segment %d does not exist or is not accessible", id)
		}
		if err != nil {
			return Filter{}, fmt.Errorf("query: segment %d: %w", id, err)
		}
		f, err := p.parseList(stored, inner)
		if err != nil {
			return Filter{}, err
		}
		each = append(each, f)
	}
	if len(each) == 1 {
		return each[0], nil
	}
	return Filter{Op: Or, Children: each}, nil
}

// spliced are a top-level filter as the query's filters: a segment of one id is its
// filters, each as if the query had them itself (so that a page filter among them counts
// only its pages' pageviews, as the query's own page filter does, which a filter inside an
// and does not); any other filter is itself.
func spliced(raw json.RawMessage, f Filter) []Filter {
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) == nil && isSegment(parts) && f.Op == And {
		return f.Children
	}
	return []Filter{f}
}

// parseList reads a list of filters that must all hold, at depth, as one And.
func (p *filterParser) parseList(raw []byte, depth int) (Filter, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return Filter{}, invalidf("filters: a segment's filters must be a non-empty list of filters")
	}
	f := Filter{Op: And}
	for _, c := range list {
		child, err := p.parseFilter(c, depth)
		if err != nil {
			return Filter{}, err
		}
		f.Children = append(f.Children, child)
	}
	return f, nil
}

// CheckSegment checks a segment before it is stored: a name of 1..MaxSegmentName characters
// and a non-empty list of filters that a query could hold, with room for the and that
// applying it adds (no segment filter among them). It returns the filters as compact JSON;
// a refusal is an *Invalid naming the field ("name" or "filters").
func CheckSegment(name string, filters []byte) ([]byte, *SegmentInvalid) {
	if n := utf8.RuneCountInString(name); n < 1 || n > MaxSegmentName {
		return nil, &SegmentInvalid{Field: "name", Message: "must be 1 to " + strconv.Itoa(MaxSegmentName) + " characters"}
	}
	if err := checkText("the name", name); err != nil {
		return nil, &SegmentInvalid{Field: "name", Message: "must not hold the character U+0000 (NUL)"}
	}
	p := filterParser{}
	f, err := p.parseList(filters, 1)
	var invalid *Invalid
	if errors.As(err, &invalid) {
		return nil, &SegmentInvalid{Field: "filters", Message: invalid.Message}
	}
	if err != nil {
		return nil, &SegmentInvalid{Field: "filters", Message: err.Error()}
	}
	if err := checkCost(f.Children); err != nil {
		errors.As(err, &invalid)
		return nil, &SegmentInvalid{Field: "filters", Message: invalid.Message}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, filters); err != nil {
		return nil, &SegmentInvalid{Field: "filters", Message: "must be a JSON list of filters"}
	}
	return out.Bytes(), nil
}

// SegmentInvalid is why a segment cannot be stored: the field and a message for it.
type SegmentInvalid struct {
	Field   string
	Message string
}
