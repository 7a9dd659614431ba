// Package ratelimit limits how fast each client may go, in a fixed amount of memory and without
// keeping who the client is: a client (an address, an API key) is known only by a keyed hash
// whose key is made at random when the process starts and never leaves its memory. Nothing is
// written to disk or to the logs.
package ratelimit

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dchest/siphash"
	"github.com/prometheus/client_golang/prometheus"
)

// Limiter is one token bucket per client: rate tokens a second, at most burst saved up, one
// token per request. The buckets live in a fixed table of sets of a few slots; a new client
// takes an empty slot of its set, or one whose bucket is full again (it holds nothing a fresh
// bucket would not), or else the least recently used, which forgets that client's debt (counted
// in the evictions metric: a table too small for the traffic shows there).
type Limiter struct {
	rate  float64 // tokens a second
	burst float64
	start time.Time
	now   func() time.Time
	clientKeys

	shards [shards]shard

	limited   atomic.Uint64
	evictions atomic.Uint64
	clients   atomic.Int64
}

const (
	shards      = 64 // locks, so that concurrent requests rarely wait for each other
	ways        = 4  // slots a client may take
	setsPerLock = 256
	// Capacity is the number of clients a Limiter tracks at once: 65,536 slots of 24 bytes.
	Capacity = shards * setsPerLock * ways
)

type shard struct {
	mu   sync.Mutex
	sets [setsPerLock][ways]slot
	_    [64]byte // keeps two shards' locks off one cache line
}

type slot struct {
	key    uint64  // 0: empty
	tokens float64 // as of last
	last   int64   // nanoseconds since start
}

// New makes a limiter of rate requests a second per client with bursts of burst; now nil means
// time.Now. rate must be > 0 and burst >= 1.
func New(rate float64, burst int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rate: rate, burst: float64(max(burst, 1)), now: now, start: now(), clientKeys: newClientKeys()}
}

// clientKeys names clients by a keyed hash whose key is made at random when the limit is
// made and never leaves memory.
type clientKeys struct{ k0, k1 uint64 }

func newClientKeys() clientKeys {
	var key [16]byte
	if _, err := rand.Read(key[:]); err != nil {
		panic("ratelimit: no randomness: " + err.Error()) // crypto/rand does not fail on Linux
	}
	return clientKeys{k0: binary.LittleEndian.Uint64(key[:8]), k1: binary.LittleEndian.Uint64(key[8:])}
}

// AddrKey is the client an address stands for: an IPv4 address, or the /64 network of an IPv6
// address (one subscriber's or one office's; a host that may use any address of its /64 must
// not get a bucket per address). The invalid address is one client.
func (c clientKeys) AddrKey(a netip.Addr) uint64 {
	var b [9]byte
	a = a.Unmap()
	switch {
	case a.Is4():
		b[0] = 4
		v4 := a.As4()
		copy(b[1:], v4[:])
	case a.Is6():
		b[0] = 6
		v6 := a.As16()
		copy(b[1:], v6[:8])
	}
	return c.hash(b[:])
}

// StringKey is the client a token (an API key) stands for.
func (c clientKeys) StringKey(s string) uint64 { return c.hash([]byte(s)) }

func (c clientKeys) hash(b []byte) uint64 {
	h := siphash.Hash(c.k0, c.k1, b)
	if h == 0 {
		h = 1 // 0 marks an empty slot
	}
	return h
}

// Allow takes a token from the client's bucket. When there is none it says how long until
// there is, and the request should be refused (counted as refused).
//
// A limit on guesses (passwords, keys) takes the token before the guess is checked, and gives
// it back with Refund when the guess was right: checking first and charging after the slow
// check lets every request of a parallel burst through.
func (l *Limiter) Allow(key uint64) (bool, time.Duration) {
	ok, wait := l.bucket(key, 1)
	if !ok {
		l.limited.Add(1)
	}
	return ok, wait
}

// Refund gives back the token of an allowed request that turned out to cost nothing (a right
// password). A client forgotten meanwhile has a full bucket already.
func (l *Limiter) Refund(key uint64) { l.bucket(key, -1) }

// Limited tells, without taking a token, whether the client has none left, and for how long;
// a client found limited is counted as refused. Only for requests that are not guesses (a key
// that was right before): a guess must be charged first, with Allow.
func (l *Limiter) Limited(key uint64) (bool, time.Duration) {
	ok, wait := l.bucket(key, 0)
	if !ok {
		l.limited.Add(1)
	}
	return !ok, wait
}

// Charge takes a token from the client's bucket, if it has one: the cost of a request that
// was let through by Limited and failed.
func (l *Limiter) Charge(key uint64) { l.bucket(key, 1) }

// bucket refills the client's bucket and, when it holds a token, takes take tokens from it
// (-1 gives one back, up to the burst). It says whether there was a token, and if not how long
// until there is.
func (l *Limiter) bucket(key uint64, take float64) (bool, time.Duration) {
	now := int64(l.now().Sub(l.start))
	sh := &l.shards[key%shards]
	sh.mu.Lock()
	s := sh.find(&sh.sets[(key/shards)%setsPerLock], key, now, l)
	s.tokens = math.Min(l.burst, s.tokens+float64(now-s.last)*l.rate/1e9)
	s.last = now
	ok := s.tokens >= 1
	if ok || take < 0 {
		s.tokens = math.Min(l.burst, s.tokens-take)
	}
	tokens := s.tokens
	sh.mu.Unlock()
	if ok {
		return true, 0
	}
	return false, time.Duration((1 - tokens) / l.rate * 1e9)
}

// find returns the client's slot in its set, claiming one when it has none: an empty slot, or
// one whose bucket has refilled (forgetting it loses nothing), or else the least recently used.
func (sh *shard) find(set *[ways]slot, key uint64, now int64, l *Limiter) *slot {
	var empty, refilled *slot
	oldest := &set[0]
	for i := range set {
		s := &set[i]
		switch {
		case s.key == key:
			return s
		case s.key == 0:
			empty = s
		case s.tokens+float64(now-s.last)*l.rate/1e9 >= l.burst:
			refilled = s
		case s.last < oldest.last:
			oldest = s
		}
	}
	s := oldest
	switch {
	case empty != nil:
		s = empty
		l.clients.Add(1)
	case refilled != nil:
		s = refilled
	default:
		l.evictions.Add(1) // a client that still owed tokens is forgotten
	}
	*s = slot{key: key, tokens: l.burst, last: now}
	return s
}

// RetryAfter is a wait as the Retry-After header's whole seconds, at least 1.
func RetryAfter(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}

// The metric of refused requests, one series per limit (label limiter).
const (
	refusedName = "analytics_rate_limited_total"
	refusedHelp = "Requests refused (429) by a rate limit."
)

// Register exports the limiter's figures, labelled limiter=name: requests refused, clients
// tracked and evictions of clients that still owed tokens.
func (l *Limiter) Register(reg prometheus.Registerer, name string) {
	labels := prometheus.Labels{"limiter": name}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: refusedName, Help: refusedHelp, ConstLabels: labels},
			func() float64 { return float64(l.limited.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "analytics_rate_limit_clients",
			Help: "Clients a rate limiter tracks (its table holds at most " + strconv.Itoa(Capacity) + ").", ConstLabels: labels},
			func() float64 { return float64(l.clients.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "analytics_rate_limit_evictions_total",
			Help: "Clients a rate limiter forgot while they still owed tokens: its table is too small for the traffic.", ConstLabels: labels},
			func() float64 { return float64(l.evictions.Load()) }),
	)
}

// NewRefusals is the count of requests refused by a limit kept outside this package (in
// PostgreSQL, for every node), exported as the limiters' refusals are:
// analytics_rate_limited_total{limiter=name}. reg nil registers it nowhere.
func NewRefusals(reg prometheus.Registerer, name string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: refusedName, Help: refusedHelp,
		ConstLabels: prometheus.Labels{"limiter": name}})
	if reg != nil {
		reg.MustRegister(c)
	}
	return c
}
