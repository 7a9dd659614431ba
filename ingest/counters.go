package ingest

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// ErrFull: the counters hold as many distinct keys as they may; the endpoint answers 503 rather
// than accept an event it could not keep.
var ErrFull = errors.New("ingest: counter buffer is full")

// Key is one daily counter. The day is a number (days since 1970-01-01) rather than a
// time.Time: the key is hashed on every hit, and a small integer hashes faster.
type Key struct {
	WebsiteID int64
	Name      stats.Name
	Day       int32
	Value     string
}

// dayNumber turns midnight UTC of a calendar day into its Key.Day.
func dayNumber(t time.Time) int32 { return int32(t.Unix() / 86400) }

// dayString is a Key.Day as the value of the pageview and visitor statistics (stats.DayValue).
// The last one made is kept: all hits of a day share it instead of formatting their own.
func dayString(day int32) string {
	if last := lastDay.Load(); last != nil && last.day == day {
		return last.text
	}
	d := &formattedDay{day: day, text: stats.DayValue(dayDate(day))}
	lastDay.Store(d)
	return d.text
}

type formattedDay struct {
	day  int32
	text string
}

var lastDay atomic.Pointer[formattedDay]

// dayDate turns a Key.Day back into midnight UTC of its calendar day.
func dayDate(day int32) time.Time { return time.Unix(int64(day)*86400, 0).UTC() }

// Counters aggregate hits in memory between flushes. The hit path only takes a short lock and
// increments map entries; the flusher swaps the whole map out.
type Counters struct {
	mu      sync.Mutex
	counts  map[Key]int64
	held    int // distinct keys taken by the flusher and not yet written
	maxKeys int
	// soon is signalled when the map passes half its bound, so the flusher writes early.
	soon chan struct{}
}

// NewCounters bounds the distinct keys held in memory, live and awaiting a write together.
func NewCounters(maxKeys int) *Counters {
	return &Counters{counts: make(map[Key]int64, 1024), maxKeys: maxKeys, soon: make(chan struct{}, 1)}
}

// Add counts one hit's keys, all or none. Only keys not yet in memory count against the
// bound, so a full buffer still takes hits that repeat known counters.
func (c *Counters) Add(keys []Key) error {
	c.mu.Lock()
	// Counting the new keys costs a map operation a key; it is needed only near the bound.
	if used := len(c.counts) + c.held; used+len(keys) > c.maxKeys && used+c.fresh(keys) > c.maxKeys {
		c.mu.Unlock()
		return ErrFull
	}
	for _, k := range keys {
		c.counts[k]++
	}
	n := len(c.counts)
	c.mu.Unlock()
	c.flushSoon(n)
	return nil
}

// fresh is how many of the keys are not in the live map; c.mu is held.
func (c *Counters) fresh(keys []Key) int {
	n := 0
	for _, k := range keys {
		if _, ok := c.counts[k]; !ok {
			n++
		}
	}
	return n
}

// flushSoon wakes the flusher once the live map holds n keys, past half the bound.
func (c *Counters) flushSoon(n int) {
	if n > c.maxKeys/2 {
		select {
		case c.soon <- struct{}{}:
		default:
		}
	}
}

// take swaps the live map out; its keys stay counted against the bound until release.
func (c *Counters) take() map[Key]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	taken := c.counts
	c.counts = make(map[Key]int64, len(taken))
	c.held += len(taken)
	return taken
}

// release frees the bound of a batch that is now written.
func (c *Counters) release(n int) {
	c.mu.Lock()
	c.held -= n
	c.mu.Unlock()
}

// Full tells whether the buffer may refuse the next hit: it has no room left for the counters
// of one more visit.
func (c *Counters) Full() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.counts)+c.held+maxKeysPerHit > c.maxKeys
}

// Size is the number of distinct keys in memory, live and held.
func (c *Counters) Size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.counts) + c.held
}
