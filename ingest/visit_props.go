package ingest

import (
	"hash/maphash"

	"github.com/analytics-service/analytics/stats"
)

// visitPairs are the property pairs a visit kept, by hash: at most stats.MaxPairsPerVisit.
// A visit that carries none holds no more than a nil pointer.
type visitPairs []uint64

// pairSeed hashes the pairs of every visit (a collision keeps a pair that would have been
// dropped, one in 2^64).
var pairSeed = maphash.MakeSeed()

// keepPairs keeps of the hit's property pairs (h.props, filtered in place) those its visit
// kept before and, while it has room, new ones; it says how many it dropped. Called under the
// visit's shard lock, or before anyone else knows the visit.
func (vs *Visits) keepPairs(v *visit, h *visitHit) int {
	if len(h.props) == 0 {
		return 0
	}
	if v.pairs == nil {
		v.pairs = new(visitPairs)
	}
	kept := h.props[:0]
	for _, pair := range h.props {
		sum := maphash.String(pairSeed, pair)
		known := false
		for _, k := range *v.pairs {
			if k == sum {
				known = true
				break
			}
		}
		if !known {
			if len(*v.pairs) >= stats.MaxPairsPerVisit {
				continue
			}
			*v.pairs = append(*v.pairs, sum)
		}
		kept = append(kept, pair)
	}
	dropped := len(h.props) - len(kept)
	h.props = kept
	return dropped
}
