package ingest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/analytics-service/analytics/stats"
)

// ErrNoSalt: this node has no salt for today (the database has not answered since the day
// began); collection answers 503 rather than invent a salt other nodes would not share.
var ErrNoSalt = errors.New("ingest: no salt for today")

// SaltSource is where the salts of the days are shared between nodes (repository.Repository).
type SaltSource interface {
	Salts(ctx context.Context, days []time.Time) (map[time.Time][]byte, error)
	ForgetSalts(ctx context.Context, before time.Time) error
}

// VisitorKey is the key of section 8: the first 16 bytes of HMAC-SHA-256 under the salt of a
// day of the website id, the client address and the user agent. It lives in memory and in
// visitor_days only, never in a log.
type VisitorKey [16]byte

// Salts holds the salts of yesterday, today and tomorrow, read from the database by the salt
// job (app/jobs.go); the hit path only reads them.
type Salts struct {
	source SaltSource
	days   atomic.Pointer[map[int32]*daySalt]
}

// daySalt computes keys under one day's salt; its hashers are pooled (an HMAC keeps its
// keyed state, so a pooled one costs no key schedule per hit).
type daySalt struct {
	pool sync.Pool
}

type keyHasher struct {
	mac hash.Hash
	buf [8 + 16]byte
	sum [sha256.Size]byte
}

// NewSalts makes an empty cache: no key can be computed until Refresh succeeds.
func NewSalts(source SaltSource) *Salts {
	s := &Salts{source: source}
	empty := map[int32]*daySalt{}
	s.days.Store(&empty)
	return s
}

// Refresh makes sure the salts of today and tomorrow exist (created a day ahead, so that every
// node has the next one before midnight), reads yesterday's (for visits that cross midnight),
// and deletes those whose next day has ended, with the day membership kept under them.
func (s *Salts) Refresh(ctx context.Context, today time.Time) error {
	yesterday, tomorrow := today.AddDate(0, 0, -1), today.AddDate(0, 0, 1)
	got, err := s.source.Salts(ctx, []time.Time{yesterday, today, tomorrow})
	if err != nil {
		return fmt.Errorf("salts.refresh: %w", err)
	}
	next := make(map[int32]*daySalt, len(got))
	current := *s.days.Load()
	for day, salt := range got {
		n := dayNumber(day)
		if old, ok := current[n]; ok {
			next[n] = old // same salt: keep its warm hashers
			continue
		}
		next[n] = newDaySalt(salt)
	}
	s.days.Store(&next)
	if err := s.source.ForgetSalts(ctx, yesterday); err != nil {
		return fmt.Errorf("salts.refresh: %w", err)
	}
	return nil
}

func newDaySalt(salt []byte) *daySalt {
	key := append([]byte(nil), salt...)
	d := &daySalt{}
	d.pool.New = func() any { return &keyHasher{mac: hmac.New(sha256.New, key)} }
	return d
}

// Key computes the visitor key of a hit on the day (a Key.Day); ok is false without that
// day's salt.
func (s *Salts) Key(day int32, websiteID int64, ip netip.Addr, userAgent string) (VisitorKey, bool) {
	d, ok := (*s.days.Load())[day]
	if !ok {
		return VisitorKey{}, false
	}
	h := d.pool.Get().(*keyHasher)
	h.mac.Reset()
	binary.BigEndian.PutUint64(h.buf[:8], uint64(websiteID))
	addr := ip.Unmap().As16()
	copy(h.buf[8:], addr[:])
	h.mac.Write(h.buf[:])
	h.mac.Write(stringBytes(userAgent))
	sum := h.mac.Sum(h.sum[:0])
	var key VisitorKey
	copy(key[:], sum)
	d.pool.Put(h)
	return key, true
}

// Has tells whether the salt of the day is known (today's: collection answers 503 without it).
func (s *Salts) Has(day time.Time) bool {
	_, ok := (*s.days.Load())[dayNumber(stats.Day(day))]
	return ok
}

// stringBytes is s as bytes without a copy, for a hash that only reads them.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
