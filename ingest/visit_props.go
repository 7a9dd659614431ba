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

// giveBackRow takes back what keepRow gave the row of the visit open under key for a hit that
// was then refused (a full buffer): the row did not get it, and must have room for the hits
// that follow. A visit that is no longer the row's (ended meanwhile) is left as it is.
func (vs *Visits) giveBackRow(key VisitorKey, ref rowRef, h *visitHit) {
	if h.kind == hitEngagement {
		return
	}
	id := visitID(key)
	s := vs.shard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.open[id]
	if !ok || vs.rowRef(v) != ref || v.rowHits == 0 || v.rowHits >= stats.MaxRowHits {
		return
	}
	v.rowHits--
	v.rowHitBytes -= uint32(h.rowBytes)
	if v.rowProps >= stats.MaxRowProps {
		return // it cut pairs since, and lists no more
	}
	for _, pair := range h.props {
		v.rowProps--
		v.rowPropBytes -= uint32(len(pair))
	}
}

// keepRow adds the hit to what v's row was given, within the row's bounds (stats.MaxRowHits
// and the others): its page or event while the row has room for it, then its property pairs
// (h.props, cut in place) while the row has room for them. It says whether the hit's own part
// was cut, and how many pairs were. Once a row has had to cut a hit, it takes no more hits,
// and once it has had to cut a pair, no more pairs: what it lists is the visit's beginning,
// without gaps (funnels read the order of its hits). Called under the visit's shard lock, or
// before anyone else knows the visit.
func (v *visit) keepRow(h *visitHit) (cut bool, propsCut int) {
	if h.kind == hitEngagement {
		return false, 0
	}
	if int(v.rowHits) >= stats.MaxRowHits || int(v.rowHitBytes)+h.rowBytes > stats.MaxRowHitBytes {
		v.rowHits = stats.MaxRowHits
		propsCut, h.props = len(h.props), nil
		return true, propsCut
	}
	v.rowHits++
	v.rowHitBytes += uint32(h.rowBytes)
	for i, pair := range h.props {
		if int(v.rowProps) >= stats.MaxRowProps || int(v.rowPropBytes)+len(pair) > stats.MaxRowPropBytes {
			v.rowProps = stats.MaxRowProps
			propsCut, h.props = len(h.props)-i, h.props[:i]
			return false, propsCut
		}
		v.rowProps++
		v.rowPropBytes += uint32(len(pair))
	}
	return false, 0
}
