package web

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxTrackedIPs bounds the limiter's memory under a flood from many
// addresses: past it, idle entries are dropped, and if none is idle the
// oldest half goes (those clients start again with a full burst, which
// errs towards serving).
const maxTrackedIPs = 50_000

// ipLimiter is a token bucket per client (clientKey).
type ipLimiter struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	clients map[string]*ipClient
}

type ipClient struct {
	lim  *rate.Limiter
	seen time.Time
}

func newIPLimiter(perSecond float64, burst int) *ipLimiter {
	return &ipLimiter{rate: rate.Limit(perSecond), burst: burst, clients: map[string]*ipClient{}}
}

// allow takes one token for ip, or says how long until one is free.
func (l *ipLimiter) allow(ip string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.clients[ip]
	if !ok {
		if len(l.clients) >= maxTrackedIPs {
			l.evict(now)
		}
		c = &ipClient{lim: rate.NewLimiter(l.rate, l.burst)}
		l.clients[ip] = c
	}
	c.seen = now
	r := c.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// evict drops clients whose bucket has refilled (they lose nothing), or
// else the least recently seen half.
func (l *ipLimiter) evict(now time.Time) {
	full := time.Duration(float64(l.burst) / float64(l.rate) * float64(time.Second))
	for ip, c := range l.clients {
		if now.Sub(c.seen) > full {
			delete(l.clients, ip)
		}
	}
	if len(l.clients) < maxTrackedIPs {
		return
	}
	var total time.Duration
	for _, c := range l.clients {
		total += now.Sub(c.seen) / time.Duration(len(l.clients))
	}
	for ip, c := range l.clients {
		if now.Sub(c.seen) >= total {
			delete(l.clients, ip)
		}
	}
}

// clientKey is the limiter's bucket for a connection's peer address: an
// IPv4 address on its own (an IPv4-mapped IPv6 address counts as the IPv4
// one), an IPv6 address by its /64. One subscriber or one server is
// routinely handed a whole /64, so per address it could make a fresh
// client of every request.
func clientKey(remoteAddr string) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return remoteAddr
	}
	addr = addr.Unmap()
	if addr.Is4() {
		return addr.String()
	}
	p, err := addr.WithZone("").Prefix(64)
	if err != nil {
		return remoteAddr
	}
	return p.String()
}

// limit answers 429 with Retry-After to a client over its rate (clientKey
// says which requests share a bucket). The address is the connection's
// peer: behind a reverse proxy, limit there instead.
func (c *Console) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := c.limiter.allow(clientKey(r.RemoteAddr), time.Now()); !ok {
			c.m.limited.Inc()
			// Not the page's cache policy: a shared cache must not hand
			// this client's refusal to everyone.
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			http.Error(w, "too many requests from your address; retry later", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}
