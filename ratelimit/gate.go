package ratelimit

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Gate bounds how many requests of one client (an API key, a website) run at once: a request
// enters before its work starts, and is refused when its client has as many in flight as
// the gate allows; it leaves when it ends. Entering is counting, under one lock: a burst of
// parallel requests gets no more than the bound, however they interleave. The gate holds the
// clients with a request in flight, so its memory is that of the requests running.
type Gate struct {
	limit      int
	clientKeys // a token's client (StringKey) is a keyed hash of it
	mu         sync.Mutex
	busy       map[uint64]int

	inFlight atomic.Int64
	refused  atomic.Uint64
}

// NewGate makes a gate of at most limit requests in flight per client; limit must be >= 1.
func NewGate(limit int) *Gate {
	return &Gate{limit: max(limit, 1), busy: map[uint64]int{}, clientKeys: newClientKeys()}
}

// Limit is how many requests of one client may be in flight.
func (g *Gate) Limit() int { return g.limit }

// Enter lets a request of the client in, or refuses it (counted) when the client has Limit
// in flight. A request let in must Leave.
func (g *Gate) Enter(client uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy[client] >= g.limit {
		g.refused.Add(1)
		return false
	}
	g.busy[client]++
	g.inFlight.Add(1)
	return true
}

// Leave ends a request that Enter let in.
func (g *Gate) Leave(client uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := g.busy[client]; n > 1 {
		g.busy[client] = n - 1
	} else {
		delete(g.busy, client)
	}
	g.inFlight.Add(-1)
}

// Register exports the gate's figures, labelled limiter=name: requests refused (with the rate
// limits' refusals) and requests in flight.
func (g *Gate) Register(reg prometheus.Registerer, name string) {
	labels := prometheus.Labels{"limiter": name}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: refusedName, Help: refusedHelp, ConstLabels: labels},
			func() float64 { return float64(g.refused.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "analytics_requests_in_flight",
			Help: "Requests a gate on requests in flight has let in that have not ended yet.", ConstLabels: labels},
			func() float64 { return float64(g.inFlight.Load()) }),
	)
}
