package ttlcache

import (
	"testing"
	"time"
)

// TestCache: a value is kept for ttl and not a moment more; a value that would take the
// weight past max empties the cache first; replacing a value counts its new weight only.
func TestCache(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := New[string](time.Minute, 3, func(v []int) int { return len(v) })
	c.Put("a", []int{1, 2}, start)
	if v, ok := c.Get("a", start.Add(59*time.Second)); !ok || len(v) != 2 {
		t.Fatalf("within the minute: %v %v", v, ok)
	}
	if _, ok := c.Get("a", start.Add(time.Minute)); ok {
		t.Error("kept past its ttl")
	}
	c.Put("a", []int{1}, start) // replaces: weight 1, not 3
	c.Put("b", []int{1, 2}, start)
	if _, ok := c.Get("a", start); !ok {
		t.Error("a replaced value still weighed its old weight")
	}
	c.Put("c", []int{1}, start) // 1+2+1 > 3: emptied, then c
	if _, ok := c.Get("a", start); ok {
		t.Error("past its weight the cache kept a")
	}
	if _, ok := c.Get("c", start); !ok {
		t.Error("the value put after emptying is lost")
	}
	c.Clear()
	if _, ok := c.Get("c", start); ok {
		t.Error("cleared, the cache kept c")
	}
	c.Put("x", []int{1, 2}, start)
	c.Put("y", []int{1}, start) // 2+1 = 3: both kept when Clear reset the weight
	if _, ok := c.Get("x", start); !ok {
		t.Error("after Clear, the weight of the values cleared still counted")
	}
}

// TestFullCacheDropsExpiredFirst: a cache that a value would take past its weight makes room
// with the expired values and keeps the fresh ones; it empties itself only when that is not
// enough.
func TestFullCacheDropsExpiredFirst(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := New[string](time.Minute, 3, func(v []int) int { return len(v) })
	c.Put("old", []int{1, 2}, start)
	c.Put("fresh", []int{1}, start.Add(30*time.Second))
	later := start.Add(time.Minute) // old expired, fresh not
	c.Put("new", []int{1, 2}, later)
	if _, ok := c.Get("fresh", later); !ok {
		t.Error("a fresh value was dropped though the expired one made room")
	}
	if _, ok := c.Get("new", later); !ok {
		t.Error("the value put is not kept")
	}
	c.Put("big", []int{1, 2, 3}, later) // 1+2+3 > 3, nothing expired: emptied
	if _, ok := c.Get("fresh", later); ok {
		t.Error("with nothing expired, a full cache kept its values past its weight")
	}
	if _, ok := c.Get("big", later); !ok {
		t.Error("the value put after emptying is lost")
	}
}
