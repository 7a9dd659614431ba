package column

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository/funnel"
	"github.com/analytics-service/analytics/repository/ttlcache"
)

// FunnelPart is a read of a funnel's numbers (docs/funnels.md) over a website's days that the
// file holds, of the visits its Part's filters keep: Pages and Names map a page and an event
// name to the steps whose goals they match, one bit a step (step i is bit i of word 0).
type FunnelPart struct {
	Part
	Steps        int
	Pages, Names MaskTable
	// Goals names the steps' goals whatever the range (their kinds, patterns and names), or
	// is "": an unfiltered exact part of named goals is counted by day (funnel_days.go).
	Goals string
}

// FunnelCounts are a funnel part's visitors (distinct a day, summed over the days) and, by
// step, how many of them reached it.
type FunnelCounts struct {
	Visitors int64
	Steps    []int64
	// DaysRead are the days this read counted from the file, not kept before (0 when every
	// count was kept): what a count ahead (repository's CountColumnFunnels) did.
	DaysRead int
}

// StartFunnel builds the part's statement and runs it beside the caller; wait returns its
// counts. A funnel's walk reads every visit of the part's days (a dashboard's unfiltered
// funnel panel is most of its time), and the counts of the same statement over the same
// copies of the days never change: an unfiltered part's are kept by day (funnel_days.go),
// a filtered one's for funnelTTL (s.funnels), as the goals' numbers of closed days are.
func (s *Store) StartFunnel(ctx context.Context, p FunnelPart) (wait func() (FunnelCounts, error)) {
	if p.byDay() {
		return s.startFunnelDays(ctx, p)
	}
	b := &partBuild{p: p.Part, s: s}
	sqlText, err := b.funnelStatement(ctx, p, false)
	if err != nil {
		return func() (FunnelCounts, error) { return FunnelCounts{}, err }
	}
	key := s.funnelKey(b, sqlText)
	if c, ok := s.funnels.Get(key, time.Now()); ok {
		return func() (FunnelCounts, error) { return c.clone(), nil }
	}
	return runBeside(ctx, b, sqlText, func(sqlText string) (FunnelCounts, error) {
		byDay, err := s.readFunnel(ctx, sqlText, b.args, p.Steps)
		if err != nil {
			return FunnelCounts{}, fmt.Errorf("column store: funnel: %w", err)
		}
		c := byDay[time.Time{}] // the sums of no day
		s.funnels.Put(key, c.clone(), time.Now())
		return c, nil
	})
}

// funnelTTL is how long a funnel part's counts are kept, funnelsKept how many at most.
const (
	funnelTTL   = 10 * time.Minute
	funnelsKept = 1_000
)

// ForgetKept empties what the store keeps for the next reads, the funnel counts and the
// selections (dropped once unused): a benchmark of a first view calls it first.
func (s *Store) ForgetKept() {
	s.funnels.Clear()
	s.drop(s.kept.retireAll())
}

func newFunnelCache() *ttlcache.Cache[string, FunnelCounts] {
	return ttlcache.New[string](funnelTTL, funnelsKept, func(FunnelCounts) int { return 1 })
}

// funnelKey names what a funnel statement's counts rest on: the statement, its arguments, its
// selections' and the copies of the part's days it reads (a day forgotten, dropped or copied
// again is another copy, so its counts are read again).
func (s *Store) funnelKey(b *partBuild, sqlText string) string {
	var k strings.Builder
	fmt.Fprintf(&k, "%s\x00%#v\x00%d", sqlText, b.args, b.p.WebsiteID)
	for _, sel := range b.sels {
		k.WriteString("\x00" + sel.key)
	}
	k.WriteString("\x00" + s.copiesOf(b.p))
	return k.String()
}

// copiesOf names the copies of the part's days that the file holds now, "-" a day it does not.
func (s *Store) copiesOf(p Part) string {
	var b strings.Builder
	s.mu.RLock()
	defer s.mu.RUnlock()
	for day := dayOf(p.From); !day.After(dayOf(p.To)); day = day.AddDate(0, 0, 1) {
		d, ok := s.held[p.WebsiteID][day]
		if !ok {
			b.WriteString(" -")
			continue
		}
		fmt.Fprintf(&b, " %d", d.copy)
	}
	return b.String()
}

func (c FunnelCounts) clone() FunnelCounts {
	c.Steps = slices.Clone(c.Steps)
	return c
}

// add adds more's counts to c's, of as many steps.
func (c *FunnelCounts) add(more FunnelCounts) {
	c.Visitors += more.Visitors
	for i, k := range more.Steps {
		c.Steps[i] += k
	}
}

// readFunnel walks each distinct sequence of hits once (funnel.Furthest) and counts its
// visits of their own visitor-day, and for a visitor-day of several visits (rkey) the
// furthest of them; by the statement's days, the zero time for a statement of no day.
func (s *Store) readFunnel(ctx context.Context, sqlText string, args []any, steps int) (map[time.Time]FunnelCounts, error) {
	out := map[time.Time]FunnelCounts{}
	of := func(day time.Time) FunnelCounts {
		c, ok := out[day]
		if !ok {
			c = FunnelCounts{Steps: make([]int64, steps)}
		}
		return c
	}
	type visitorDay struct {
		day  time.Time
		rkey int64
	}
	repeated := map[visitorDay]int{}
	var bits []uint8
	err := s.scanEach(ctx, sqlText, args, func(rows *sql.Rows) error {
		var dayValue, seqValue, rkeysValue any
		var alone int64
		if err := rows.Scan(&dayValue, &seqValue, &alone, &rkeysValue); err != nil {
			return err
		}
		var day time.Time
		if t, ok := dayValue.(time.Time); ok {
			day = dayOf(t)
		}
		c := of(day)
		defer func() { out[day] = c }()
		seq, ok := seqValue.([]any)
		if !ok {
			c.Visitors = alone
			return nil
		}
		rkeys, _ := rkeysValue.([]any)
		bits = bits[:0]
		for _, h := range seq {
			bits = append(bits, uint8(h.(int64)&0xFF))
		}
		k := funnel.Furthest(bits, steps)
		for i := range k {
			c.Steps[i] += alone
		}
		for _, r := range rkeys {
			d := visitorDay{day, r.(int64)}
			repeated[d] = max(repeated[d], k)
		}
		return nil
	})
	for d, k := range repeated {
		c := of(d.day)
		for i := range k {
			c.Steps[i]++
		}
		out[d.day] = c
	}
	return out, err
}

// funnelStatement finds, for each visit that matches step 1, its hits that match some step
// (only those can move it on: funnel.Furthest), in order: each as its place among the visit's
// hits and its steps' bits in one number, page i (from 1) at i<<32, an event j (from 1) with p
// pages before it (evat) at p<<32 + j<<8, between page p and page p+1, the bits in the low 8
// (stats.MaxFunnelSteps is 8).
// The visits of one sequence are counted together: those of their own visitor-day, and the
// visitor-days (rkey) of the others. The row with no sequence is every visitor. byDay counts
// each day apart (a visitor-day lies within its day), else the first column is NULL.
func (b *partBuild) funnelStatement(ctx context.Context, p FunnelPart, byDay bool) (string, error) {
	where, err := b.where(ctx)
	if err != nil {
		return "", err
	}
	day, byDays, bySeq := "NULL::DATE", "", "seq"
	if byDay {
		day, byDays, bySeq = "d", " GROUP BY d", "d, seq"
	}
	var hits []string
	if len(p.Pages.Texts) > 0 {
		hits = append(hits, `SELECT r, d, rkey, (n::BIGINT << 32) | t.m0 AS o
			FROM (SELECT r, d, rkey, unnest(pages) AS x, generate_subscripts(pages, 1) AS n FROM m) AS h JOIN `+b.from(p.Pages)+` AS t ON t.text = h.x`)
	}
	if len(p.Names.Texts) > 0 {
		hits = append(hits, `SELECT r, d, rkey, (pb::BIGINT << 32) | (n::BIGINT << 8) | t.m0 AS o
			FROM (SELECT r, d, rkey, unnest(names) AS x, unnest(evat) AS pb, generate_subscripts(names, 1) AS n FROM m WHERE len(names) > 0) AS h
			JOIN `+b.from(p.Names)+` AS t ON t.text = h.x`)
	}
	out := `SELECT ` + day + `, NULL::BIGINT[], (count(*) FILTER (WHERE rkey IS NULL) + count(DISTINCT rkey))::BIGINT, NULL::BIGINT[] FROM m` + byDays
	// m is read three times: materialized, its lists cost more to keep than to read again.
	m := `m AS NOT MATERIALIZED (SELECT rowid AS r, day AS d, rkey, pages, names, evat FROM visits WHERE ` + where + `)`
	if len(hits) == 0 {
		return b.with(m) + out, nil
	}
	h := `h AS (` + hits[0]
	for _, more := range hits[1:] {
		h += ` UNION ALL ` + more
	}
	h += `)`
	// list_sort of the unordered list: an ordered aggregate (or a fold with a lambda) cost
	// twice the statement.
	v := `v AS (SELECT d, rkey, list_sort(list(o)) AS seq FROM h GROUP BY r, d, rkey HAVING bool_or(o & 1 = 1))`
	return b.with(m, h, v) + out + ` UNION ALL
		SELECT ` + day + `, seq, count(*) FILTER (WHERE rkey IS NULL), coalesce(list(rkey) FILTER (WHERE rkey IS NOT NULL), []) FROM v GROUP BY ` + bySeq, nil
}
