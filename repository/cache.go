package repository

import (
	"sync"
	"time"
)

// ttlCache keeps values of what never changes once read (a closed day's pages, the goals'
// numbers of closed days) for ttl, and empties itself when a new value would take its weight
// past max: a value's weight is what weigh says it costs (its pages, or 1). Its zero value is
// not usable: newTTLCache makes one. Safe for concurrent use.
type ttlCache[K comparable, V any] struct {
	ttl   time.Duration
	max   int
	weigh func(V) int

	mu      sync.Mutex
	entries map[K]ttlEntry[V]
	weight  int // of every entry
}

type ttlEntry[V any] struct {
	value   V
	fetched time.Time
}

func newTTLCache[K comparable, V any](ttl time.Duration, max int, weigh func(V) int) *ttlCache[K, V] {
	return &ttlCache[K, V]{ttl: ttl, max: max, weigh: weigh, entries: map[K]ttlEntry[V]{}}
}

// get is the value of k when it was put less than ttl before now.
func (c *ttlCache[K, V]) get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || now.Sub(e.fetched) >= c.ttl {
		var zero V
		return zero, false
	}
	return e.value, true
}

// put keeps v under k, read at now.
func (c *ttlCache[K, V]) put(k K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.weigh(v)
	if old, ok := c.entries[k]; ok {
		c.weight -= c.weigh(old.value)
	}
	if c.weight+w > c.max {
		c.entries, c.weight = map[K]ttlEntry[V]{}, 0
	}
	c.entries[k] = ttlEntry[V]{value: v, fetched: now}
	c.weight += w
}
