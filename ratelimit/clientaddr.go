package ratelimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr is the TCP peer, or, when the peer is a trusted proxy, the first address of
// X-Forwarded-For that is not a trusted proxy, walking from the right (the nearest hop) to the
// left. Walking from the right means a client cannot choose its address by sending its own
// X-Forwarded-For: what it wrote sits left of the first untrusted hop and is never read. The
// collector uses it for exclusions and geolocation, and both the collector and the API key
// their per-address limits by it.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peerPort, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := peerPort.Addr().Unmap()
	if !contains(trusted, addr) {
		return addr
	}
	chain := strings.Join(r.Header.Values("X-Forwarded-For"), ",")
	for chain != "" {
		hop := chain
		if i := strings.LastIndexByte(chain, ','); i >= 0 {
			hop, chain = chain[i+1:], chain[:i]
		} else {
			chain = ""
		}
		hop = strings.TrimSpace(hop)
		if hop == "" {
			continue
		}
		a, err := netip.ParseAddr(hop)
		if err != nil {
			return netip.Addr{} // garbage in the chain: the address is unknown
		}
		addr = a.Unmap()
		if !contains(trusted, addr) {
			return addr
		}
	}
	return addr // every hop is a trusted proxy: the left-most is the best we know
}

// FromTrustedProxy tells whether r's TCP peer is one of the trusted proxies (TRUSTED_PROXIES):
// only then are its X-Forwarded-For (ClientAddr), X-Forwarded-Proto and X-Forwarded-Host
// (web.Links) believed.
func FromTrustedProxy(r *http.Request, trusted []netip.Prefix) bool {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && contains(trusted, peer.Addr().Unmap())
}

func contains(prefixes []netip.Prefix, a netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
