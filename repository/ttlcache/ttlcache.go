// Package ttlcache keeps values that never change once read (a closed day's pages, the goals'
// numbers of closed days) for a while, bounded by weight: one cache type for every such use.
package ttlcache

import (
	"sync"
	"time"
)

// Cache keeps values for ttl. When a new value would take its weight past max it drops the
// expired ones, and empties itself if that is not enough: a value's weight is what weigh
// says it costs (its pages, or 1). Its zero value is not
// usable: New makes one. Safe for concurrent use.
type Cache[K comparable, V any] struct {
	ttl   time.Duration
	max   int
	weigh func(V) int

	mu      sync.Mutex
	entries map[K]entry[V]
	weight  int // of every entry
}

type entry[V any] struct {
	value   V
	fetched time.Time
}

func New[K comparable, V any](ttl time.Duration, max int, weigh func(V) int) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, max: max, weigh: weigh, entries: map[K]entry[V]{}}
}

// Get is the value of k when it was put less than ttl before now.
func (c *Cache[K, V]) Get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || now.Sub(e.fetched) >= c.ttl {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Put keeps v under k, read at now.
func (c *Cache[K, V]) Put(k K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.weigh(v)
	if old, ok := c.entries[k]; ok {
		c.weight -= c.weigh(old.value)
	}
	if c.weight+w > c.max {
		c.dropExpired(now)
	}
	if c.weight+w > c.max {
		c.entries, c.weight = map[K]entry[V]{}, 0
	}
	c.entries[k] = entry[V]{value: v, fetched: now}
	c.weight += w
}

// dropExpired drops the entries put ttl or more before now: a full cache makes room with
// them before it empties itself, so that what is still fresh is kept.
func (c *Cache[K, V]) dropExpired(now time.Time) {
	for k, e := range c.entries {
		if now.Sub(e.fetched) >= c.ttl {
			c.weight -= c.weigh(e.value)
			delete(c.entries, k)
		}
	}
}

// Clear empties the cache.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.weight = map[K]entry[V]{}, 0
}
