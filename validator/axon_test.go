package validator

import (
	"net/netip"
	"strings"
	"testing"

	"arena/chain"
)

// TestAxonProblem: axon data comes from the chain, which any miner writes;
// the validator must not dial its own operator port, privileged ports,
// non-unicast addresses, or (in production) private networks.
func TestAxonProblem(t *testing.T) {
	axon := func(ip string, port uint16) chain.Axon {
		return chain.Axon{IP: netip.MustParseAddr(ip), Port: port, Block: 1, Version: 1}
	}
	tests := []struct {
		name    string
		axon    chain.Axon
		private bool
		want    string // substring of the reason; "" means dial it
	}{
		{"public ok", axon("203.0.113.7", 8091), false, ""},
		{"not served", chain.Axon{}, false, "not serving"},
		{"operator port", axon("127.0.0.1", 9100), true, "operator listener"},
		{"api port", axon("127.0.0.1", 9101), true, "operator listener"},
		{"operator port on public ip", axon("203.0.113.7", 9100), false, ""},
		{"low port", axon("203.0.113.7", 22), false, "below 1024"},
		{"unspecified", axon("0.0.0.0", 8091), true, "not serving"},
		{"multicast", axon("224.0.0.1", 8091), true, "not a unicast"},
		{"loopback in production", axon("127.0.0.1", 8091), false, "loopback or private"},
		{"private in production", axon("10.1.2.3", 8091), false, "loopback or private"},
		{"loopback on a devnet", axon("127.0.0.1", 8091), true, ""},
		{"v4-mapped loopback", axon("::ffff:127.0.0.1", 8091), false, "loopback or private"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Validator{opts: Options{OperatorListen: []string{"127.0.0.1:9100", "127.0.0.1:9101"}, AllowPrivateAxons: tt.private}}
			got := v.axonProblem(tt.axon)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("axonProblem(%v) = %q, want %q", tt.axon, got, tt.want)
			}
		})
	}
}
