package validator

import (
	"net/http"
	"net/http/pprof"
)

// servePprof mounts Go's profiling handlers on mux. They go on the API listener only, so
// they sit behind its token and host guard: a profile shows the process's memory and code.
// A CPU profile or trace may outlast the listener's write timeout: net/http/pprof extends
// the deadline by ?seconds= itself.
func servePprof(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	// GET only, like the rest of the listener: Go's profiles carry their symbols, so
	// go tool pprof never needs to post to symbol.
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
}
