package devnet

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// relay is the devnet's public endpoint: a TCP relay in front of the
// go-ethereum node's HTTP/websocket server. The node cannot stop its RPC
// server without stopping the chain, so the relay is what StopServer and
// StartServer switch off and on: clients see exactly what a node going away
// looks like (refused dials, dropped websockets), while the chain state and
// block production carry on behind it.
type relay struct {
	target string

	mu    sync.Mutex
	addr  string // fixed after the first start, so a restart reuses the port
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func newRelay(listen, target string) *relay {
	return &relay{addr: listen, target: target, conns: map[net.Conn]struct{}{}}
}

// start listens on the relay address. Calling it while running is a no-op.
func (r *relay) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return fmt.Errorf("devnet listen %s: %w", r.addr, err)
	}
	r.ln = ln
	r.addr = ln.Addr().String()
	r.wg.Add(1)
	go r.accept(ln)
	return nil
}

// stop closes the listener and every relayed connection, and waits until
// all relay goroutines have ended.
func (r *relay) stop() {
	r.mu.Lock()
	if r.ln == nil {
		r.mu.Unlock()
		return
	}
	r.ln.Close()
	r.ln = nil
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *relay) address() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr
}

func (r *relay) running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ln != nil
}

func (r *relay) accept(ln net.Listener) {
	defer r.wg.Done()
	for {
		client, err := ln.Accept()
		if err != nil {
			return // listener closed by stop
		}
		upstream, err := net.Dial("tcp", r.target)
		if err != nil {
			client.Close()
			continue
		}
		if !r.track(client, upstream) {
			return
		}
		r.wg.Add(2)
		go r.pipe(client, upstream)
		go r.pipe(upstream, client)
	}
}

// track registers a connection pair, refusing it if stop already ran.
func (r *relay) track(conns ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		r.conns[c] = struct{}{}
	}
	return true
}

func (r *relay) pipe(dst, src net.Conn) {
	defer r.wg.Done()
	// Copy errors are expected: a reset or closed peer is how a relayed
	// connection normally ends.
	_, _ = io.Copy(dst, src)
	// Closing both ends makes the opposite pipe finish too.
	dst.Close()
	src.Close()
	r.mu.Lock()
	delete(r.conns, dst)
	delete(r.conns, src)
	r.mu.Unlock()
}
