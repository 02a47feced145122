package contracts

import (
	"context"
	"math/big"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// BenchmarkMetagraphGetter times one eth_call of a Metagraph (0x802) getter against the
// simulated backend's head, the call chain.Client.Metagraph makes ~12 times per uid.
func BenchmarkMetagraphGetter(b *testing.B) {
	admin, err := crypto.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	alloc := Genesis(addrOf(admin))
	alloc[addrOf(admin)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))}
	backend := simulated.NewBackend(alloc, simulated.WithBlockGasLimit(60_000_000))
	b.Cleanup(func() { _ = backend.Close() })
	client := backend.Client()
	state, err := NewSubtensorState(StateAddress, client)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	send := func(tx *types.Transaction, err error) {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
		backend.Commit()
		r, err := client.TransactionReceipt(ctx, tx.Hash())
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			b.Fatalf("tx %s: %v", tx.Hash(), err)
		}
	}
	opts, err := bind.NewKeyedTransactorWithChainID(admin, simChainID)
	if err != nil {
		b.Fatal(err)
	}
	const netuid = 1
	send(state.CreateSubnet(opts, netuid, addrOf(admin), 100))
	for i := range 4 {
		send(state.RegisterNeuron(opts, netuid, [32]byte{byte(i + 1)}, [32]byte{0xcc, byte(i)}, uint64(1000*i), i == 0))
	}
	send(state.SetAxon(opts, netuid, 3, 1, big.NewInt(0x7f000001), 8091, 4, 4))

	mg, err := ABI(NameMetagraph)
	if err != nil {
		b.Fatal(err)
	}
	for _, method := range []string{"getStake", "getAxon"} {
		b.Run(method, func(b *testing.B) {
			data, err := mg.Pack(method, uint16(netuid), uint16(3))
			if err != nil {
				b.Fatal(err)
			}
			msg := ethereum.CallMsg{To: &MetagraphAddress, Data: data}
			for b.Loop() {
				if _, err := client.CallContract(ctx, msg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
