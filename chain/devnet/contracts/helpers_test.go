package contracts

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"math/big"
	"regexp"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"golang.org/x/crypto/blake2b"
)

var simChainID = big.NewInt(1337)

const txGas = 3_000_000

// env is a simulated chain with the devnet contracts in genesis and a few funded keys.
type env struct {
	backend *simulated.Backend
	client  simulated.Client
	state   *SubtensorState
	abis    map[string]abi.ABI

	admin     *ecdsa.PrivateKey // SubtensorState admin
	owner     *ecdsa.PrivateKey // subnet owner (not admin)
	validator *ecdsa.PrivateKey
	miner     *ecdsa.PrivateKey
	stranger  *ecdsa.PrivateKey // never registered
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{abis: map[string]abi.ABI{}}
	keys := []**ecdsa.PrivateKey{&e.admin, &e.owner, &e.validator, &e.miner, &e.stranger}
	for _, k := range keys {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		*k = key
	}
	alloc := Genesis(addrOf(e.admin))
	funds := new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))
	for _, k := range keys {
		alloc[addrOf(*k)] = types.Account{Balance: funds}
	}
	e.backend = simulated.NewBackend(alloc, simulated.WithBlockGasLimit(60_000_000))
	t.Cleanup(func() { _ = e.backend.Close() })
	e.client = e.backend.Client()

	var err error
	if e.state, err = NewSubtensorState(StateAddress, GasHeadroom(e.client)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{NameState, NameMetagraph, NameSubnet, NameNeuron, NameUidLookup, NameAddressMapping, NameStorageQuery} {
		if e.abis[name], err = ABI(name); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// mirrorOf is the substrate account of an EVM address, computed independently in Go.
func mirrorOf(a common.Address) [32]byte {
	return blake2b.Sum256(append([]byte("evm:"), a.Bytes()...))
}

func (e *env) head(t *testing.T) uint64 {
	t.Helper()
	n, err := e.client.BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pendingBlock is the number of the block the next transaction lands in.
func (e *env) pendingBlock(t *testing.T) uint64 {
	t.Helper()
	return e.head(t) + 1
}

func (e *env) adminOpts(t *testing.T) *bind.TransactOpts {
	t.Helper()
	return e.opts(t, e.admin)
}

func (e *env) opts(t *testing.T, key *ecdsa.PrivateKey) *bind.TransactOpts {
	t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(key, simChainID)
	if err != nil {
		t.Fatal(err)
	}
	o.Context = context.Background()
	return o
}

// mined commits a block and returns the receipt of tx, failing the test unless it succeeded.
func (e *env) mined(t *testing.T, tx *types.Transaction, err error) *types.Receipt {
	t.Helper()
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	r := e.commitUntilMined(t, tx)[0]
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("tx %s reverted (block %d)", tx.Hash(), r.BlockNumber)
	}
	return r
}

// commitUntilMined commits blocks until every tx is mined and returns their receipts. The
// simulated backend occasionally leaves some of several just-sent transactions for the next
// block, so one Commit is not always enough.
func (e *env) commitUntilMined(t *testing.T, txs ...*types.Transaction) []*types.Receipt {
	t.Helper()
	signer := types.LatestSignerForChainID(simChainID)
	for attempt := 0; ; attempt++ {
		e.backend.Commit()
		done := true
		for _, tx := range txs {
			from, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			n, err := e.client.NonceAt(context.Background(), from, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n <= tx.Nonce() {
				done = false
			}
		}
		if done {
			break
		}
		if attempt == 20 {
			t.Fatalf("transactions not mined after %d blocks", attempt+1)
		}
	}
	out := make([]*types.Receipt, len(txs))
	for i, tx := range txs {
		out[i] = e.receipt(t, tx.Hash())
	}
	return out
}

// receipt fetches the receipt of a mined transaction. The transaction index is built in the
// background, so a receipt can be "not found" for a moment after Commit.
func (e *env) receipt(t *testing.T, hash common.Hash) *types.Receipt {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := e.client.TransactionReceipt(context.Background(), hash)
		if err == nil {
			return r
		}
		if !errors.Is(err, ethereum.NotFound) || time.Now().After(deadline) {
			t.Fatalf("receipt %s: %v", hash, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tx returns a function that mines a binding's (tx, err) result, see mined.
func (e *env) tx(t *testing.T) func(*types.Transaction, error) *types.Receipt {
	t.Helper()
	return func(tx *types.Transaction, err error) *types.Receipt {
		t.Helper()
		return e.mined(t, tx, err)
	}
}

func (e *env) pack(t *testing.T, contract, method string, args ...any) []byte {
	t.Helper()
	data, err := e.abis[contract].Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s.%s: %v", contract, method, err)
	}
	return data
}

// sendRaw signs and submits a transaction without committing a block.
func (e *env) sendRaw(t *testing.T, key *ecdsa.PrivateKey, to common.Address, data []byte) *types.Transaction {
	t.Helper()
	nonce, err := e.client.PendingNonceAt(context.Background(), addrOf(key))
	if err != nil {
		t.Fatal(err)
	}
	return e.sendRawNonce(t, key, to, data, nonce)
}

// sendRawNonce is sendRaw with an explicit nonce, for several transactions in one block.
func (e *env) sendRawNonce(t *testing.T, key *ecdsa.PrivateKey, to common.Address, data []byte, nonce uint64) *types.Transaction {
	t.Helper()
	ctx := context.Background()
	tip, err := e.client.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	header, err := e.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(header.BaseFee, big.NewInt(2)))
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID: simChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: txGas, To: &to, Data: data,
	})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(simChainID), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.client.SendTransaction(ctx, signed); err != nil {
		t.Fatalf("send: %v", err)
	}
	return signed
}

// facadeTx sends a facade call as key, commits it and requires success.
func (e *env) facadeTx(t *testing.T, key *ecdsa.PrivateKey, contract, method string, args ...any) *types.Receipt {
	t.Helper()
	to := map[string]common.Address{
		NameState: StateAddress, NameMetagraph: MetagraphAddress, NameSubnet: SubnetAddress,
		NameNeuron: NeuronAddress, NameUidLookup: UidLookupAddress, NameAddressMapping: AddressMappingAddress,
	}[contract]
	data := e.pack(t, contract, method, args...)
	if err := e.facadeCall(t, key, contract, method, args...); err != nil {
		t.Fatalf("%s.%s would fail: %v", contract, method, err)
	}
	return e.mined(t, e.sendRaw(t, key, to, data), nil)
}

// facadeCall executes the call against the pending block (the block the next transaction
// lands in) and returns the error, which carries the revert reason.
func (e *env) facadeCall(t *testing.T, key *ecdsa.PrivateKey, contract, method string, args ...any) error {
	t.Helper()
	_, err := e.facadeView(t, addrOf(key), contract, method, args...)
	return err
}

func (e *env) facadeView(t *testing.T, from common.Address, contract, method string, args ...any) ([]any, error) {
	t.Helper()
	to := map[string]common.Address{
		NameState: StateAddress, NameMetagraph: MetagraphAddress, NameSubnet: SubnetAddress,
		NameNeuron: NeuronAddress, NameUidLookup: UidLookupAddress, NameAddressMapping: AddressMappingAddress,
	}[contract]
	data := e.pack(t, contract, method, args...)
	out, err := e.client.PendingCallContract(context.Background(), ethereum.CallMsg{From: from, To: &to, Data: data, Gas: txGas})
	if err != nil {
		return nil, err
	}
	vals, err := e.abis[contract].Unpack(method, out)
	if err != nil {
		t.Fatalf("unpack %s.%s: %v", contract, method, err)
	}
	return vals, nil
}

// view calls a view of a facade and returns its first result.
func (e *env) view(t *testing.T, contract, method string, args ...any) any {
	t.Helper()
	vals, err := e.facadeView(t, common.Address{}, contract, method, args...)
	if err != nil {
		t.Fatalf("%s.%s: %v", contract, method, err)
	}
	if len(vals) == 0 {
		return nil
	}
	return vals[0]
}

// wantRevert requires err to be a revert with exactly the given reason.
func wantRevert(t *testing.T, err error, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want revert %q, got success", reason)
	}
	m := revertRe.FindStringSubmatch(err.Error())
	if m == nil || m[1] != reason {
		t.Fatalf("want revert %q, got %v", reason, err)
	}
}

var revertRe = regexp.MustCompile(`execution reverted: (\w+)`)

// createSubnet creates netuid (owner e.owner) and registers validator (permit) and miner
// (no permit) as mirrors of their addresses, then `extra` more random hotkeys.
func (e *env) createSubnet(t *testing.T, netuid uint16, tempo uint64, extra int) {
	t.Helper()
	e.tx(t)(e.state.CreateSubnet(e.adminOpts(t), netuid, addrOf(e.owner), tempo))
	e.register(t, netuid, mirrorOf(addrOf(e.validator)), 1_000_000, true)
	e.register(t, netuid, mirrorOf(addrOf(e.miner)), 0, false)
	for i := range extra {
		var hk [32]byte
		binary.BigEndian.PutUint16(hk[:], uint16(1000+i))
		hk[31] = byte(netuid)
		e.register(t, netuid, hk, 0, false)
	}
}

func (e *env) register(t *testing.T, netuid uint16, hotkey [32]byte, stake uint64, permit bool) uint16 {
	t.Helper()
	var coldkey [32]byte
	copy(coldkey[:], hotkey[:])
	coldkey[0] ^= 0xff
	e.tx(t)(e.state.RegisterNeuron(e.adminOpts(t), netuid, hotkey, coldkey, stake, permit))
	res, err := e.state.UidOfHotkey(nil, netuid, hotkey)
	if err != nil || !res.Found {
		t.Fatalf("registered hotkey not found: %v", err)
	}
	return res.Uid
}

// setHyper sets a hyperparameter through the Subnet facade as the admin.
func (e *env) setHyper(t *testing.T, method string, args ...any) {
	t.Helper()
	e.facadeTx(t, e.admin, NameSubnet, method, args...)
}

// epoch is subtensor's epoch index, computed independently.
func epoch(netuid uint16, tempo, block uint64) uint64 {
	return (block + uint64(netuid) + 1) / (tempo + 1)
}

// scaleCompact is SCALE's compact encoding (modes 0-2), written independently of the contract.
func scaleCompact(n int) []byte {
	switch {
	case n < 1<<6:
		return []byte{byte(n << 2)}
	case n < 1<<14:
		v := uint16(n<<2 | 1)
		return binary.LittleEndian.AppendUint16(nil, v)
	default:
		v := uint32(n<<2 | 2)
		return binary.LittleEndian.AppendUint32(nil, v)
	}
}

func scaleVecU16(v []uint16) []byte {
	out := scaleCompact(len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint16(out, x)
	}
	return out
}

// goCommitHash is blake2b_256(SCALE(account, netuid, uids, values, salt, versionKey)).
func goCommitHash(account [32]byte, netuid uint16, uids, values, salt []uint16, versionKey uint64) [32]byte {
	buf := append([]byte{}, account[:]...)
	buf = binary.LittleEndian.AppendUint16(buf, netuid)
	buf = append(buf, scaleVecU16(uids)...)
	buf = append(buf, scaleVecU16(values)...)
	buf = append(buf, scaleVecU16(salt)...)
	buf = binary.LittleEndian.AppendUint64(buf, versionKey)
	return blake2b.Sum256(buf)
}
