package devnet

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/chain/devnet/contracts"
)

// ChainID is the simulated backend's fixed chain id.
const ChainID = 1337

// TAO is 1e9 rao.
const TAO = 1_000_000_000

// Options configures a Devnet.
type Options struct {
	// Listen is the public ws/http address; port 0 picks a free one.
	Listen string
	// BlockTime between blocks; 0 means blocks are made only by Commit
	// (tests that need exact block control).
	BlockTime time.Duration
	Netuid    uint16
	// Tempo is the subnet's epoch length in blocks; subtensor's Tempo is a u16, so at most
	// 65535.
	Tempo uint64
	// Validators and Miners are registered at start with deterministic dev
	// keys derived from Seed. Validators get ValidatorStake and a permit.
	Validators, Miners int
	ValidatorStake     uint64 // rao; default 1000 TAO
	Seed               uint64
	// Hyper, when set, replaces the subnet's default hyperparameters.
	Hyper *Hyper
	// LegacyCommitRevealEpochs makes commit-reveal count epochs the way subtensor did
	// before dynamic tempo, (block + netuid + 1) / (tempo + 1) (chain.EpochIndex), as a
	// runtime without the StorageQuery precompile does; WithoutStorageQuery implies it.
	// Unset, commit-reveal counts with SubnetEpochIndex as subtensor does now. Epochs
	// themselves (Yuma, LastEpochBlock, SubnetEpochIndex) follow the dynamic-tempo
	// schedule either way.
	LegacyCommitRevealEpochs bool
	// WithoutStorageQuery leaves 0x807 empty, like a subtensor runtime that predates the
	// StorageQuery precompile: chain.Storage reads then fail with chain.ErrNoStorageQuery.
	WithoutStorageQuery bool
}

// Hyper is the devnet's initial hyperparameter set; the zero value of a
// field keeps subtensor's default.
type Hyper struct {
	WeightsVersionKey    uint64
	WeightsSetRateLimit  uint64
	MinAllowedWeights    uint16
	MaxWeightLimit       uint16
	CommitRevealEnabled  bool
	CommitRevealInterval uint64
	ImmunityPeriod       uint16
	ActivityCutoff       uint16
}

// Account is a funded dev key and the neuron registered for it.
type Account struct {
	Role    string // "admin", "validator" or "miner"
	Index   int
	Key     *ecdsa.PrivateKey
	Address common.Address
	Hotkey  chain.AccountID
	UID     uint16
}

// Signer returns a chain signer for the account.
func (a Account) Signer() *chain.Signer { return chain.NewSigner(a.Key) }

// Devnet is an in-process go-ethereum chain whose genesis holds contracts
// emulating subtensor's precompiles, served over real JSON-RPC (ws + http).
type Devnet struct {
	opts    Options
	log     zerolog.Logger
	backend *simulated.Backend
	client  simulated.Client
	relay   *relay
	state   *contracts.SubtensorState
	subnet  abi.ABI
	storage abi.ABI // StorageQuery's admin setters
	admin   Account
	tempo   atomic.Uint64 // the subnet's tempo as last set through the devnet

	mu         sync.Mutex // guards mining and serialises Commit
	mining     bool       // the block loop of Run is producing blocks
	adminMu    sync.Mutex // one admin transaction signed and sent at a time
	adminNonce uint64     // next admin nonce as far as the devnet knows
	accounts   []Account
	epochMu    sync.Mutex // guards seenEpoch and serialises the epoch check of Commit
	seenEpoch  uint64     // SubnetEpochIndex the last Yuma pass ran for
	epochs     prometheus.Counter
	blocks     prometheus.Counter
}

// DevKey derives the i-th deterministic dev key for seed. The same seed
// always yields the same addresses, so a devnet restarted with the same
// options is recognisable.
func DevKey(seed uint64, i int) *ecdsa.PrivateKey {
	var buf [24]byte
	copy(buf[:8], "arenadev")
	binary.BigEndian.PutUint64(buf[8:16], seed)
	binary.BigEndian.PutUint64(buf[16:], uint64(i))
	for {
		key, err := crypto.ToECDSA(crypto.Keccak256(buf[:]))
		if err == nil {
			return key
		}
		buf[0]++ // astronomically unlikely: hash outside the curve order
	}
}

// New builds the chain, creates the subnet and registers the neurons. The
// chain produces blocks and serves RPC only once Run is called; setup
// blocks are committed directly.
func New(opts Options, log zerolog.Logger, reg prometheus.Registerer) (*Devnet, error) {
	if opts.Tempo == 0 || opts.Tempo > math.MaxUint16 {
		return nil, fmt.Errorf("devnet: tempo %d: must be 1 to %d (subtensor's Tempo is a u16)", opts.Tempo, math.MaxUint16)
	}
	if opts.Validators < 0 || opts.Miners < 0 || opts.Validators+opts.Miners > 256 {
		return nil, fmt.Errorf("devnet: %d validators + %d miners: a subnet holds at most 256 uids", opts.Validators, opts.Miners)
	}
	if opts.ValidatorStake == 0 {
		opts.ValidatorStake = 1000 * TAO
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	d := &Devnet{opts: opts, log: log.With().Str("component", "devnet").Logger()}
	d.tempo.Store(opts.Tempo)
	d.admin = newAccount("admin", 0, DevKey(opts.Seed, 0))
	for i := range opts.Validators {
		d.accounts = append(d.accounts, newAccount("validator", i, DevKey(opts.Seed, 1+i)))
	}
	for i := range opts.Miners {
		d.accounts = append(d.accounts, newAccount("miner", i, DevKey(opts.Seed, 1+opts.Validators+i)))
	}

	internal, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	alloc := contracts.Genesis(d.admin.Address)
	if opts.WithoutStorageQuery {
		delete(alloc, contracts.StorageQueryAddress)
	}
	rich := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	for _, a := range append([]Account{d.admin}, d.accounts...) {
		alloc[a.Address] = types.Account{Balance: rich}
	}
	d.backend = simulated.NewBackend(alloc, func(nc *node.Config, ec *ethconfig.Config) {
		nc.HTTPHost, nc.HTTPPort = "127.0.0.1", internal
		nc.WSHost, nc.WSPort = "127.0.0.1", internal
		nc.HTTPModules = []string{"eth", "net", "web3"}
		nc.WSModules = []string{"eth", "net", "web3"}
		nc.WSOrigins = []string{"*"}
		nc.HTTPVirtualHosts = []string{"*"}
		ec.Miner.GasCeil = 100_000_000
	})
	d.client = d.backend.Client()
	d.relay = newRelay(opts.Listen, net.JoinHostPort("127.0.0.1", strconv.Itoa(internal)))
	if d.state, err = contracts.NewSubtensorState(contracts.StateAddress, contracts.GasHeadroom(d.client)); err != nil {
		d.backend.Close()
		return nil, fmt.Errorf("devnet: bind state contract: %w", err)
	}
	if d.subnet, err = chain.ParseABI("subnet"); err != nil {
		d.backend.Close()
		return nil, err
	}
	if d.storage, err = contracts.ABI(contracts.NameStorageQuery); err != nil {
		d.backend.Close()
		return nil, err
	}
	d.epochs = prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_devnet_epochs_total", Help: "Yuma epochs the devnet has run."})
	d.blocks = prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_devnet_blocks_total", Help: "Blocks the devnet has produced."})
	if reg != nil {
		reg.MustRegister(d.epochs, d.blocks)
	}
	if err := d.setup(); err != nil {
		d.backend.Close()
		return nil, err
	}
	return d, nil
}

func newAccount(role string, index int, key *ecdsa.PrivateKey) Account {
	addr := crypto.PubkeyToAddress(key.PublicKey)
	return Account{Role: role, Index: index, Key: key, Address: addr, Hotkey: chain.Mirror(addr)}
}

func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("devnet: no free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// setup creates the subnet, its hyperparameters and the neurons. The
// registrations go out together and share a block or two, so even 256 uids
// set up quickly.
func (d *Devnet) setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n := d.opts.Netuid
	if _, err := d.adminTx(ctx, "createSubnet", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.CreateSubnet(o, n, d.admin.Address, d.opts.Tempo)
	}); err != nil {
		return err
	}
	if d.opts.Hyper != nil {
		if err := d.SetHyper(ctx, *d.opts.Hyper); err != nil {
			return err
		}
	}
	if !d.opts.LegacyCommitRevealEpochs && !d.opts.WithoutStorageQuery {
		if _, err := d.adminTx(ctx, "setHyperparameter", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return d.state.SetHyperparameter(o, n, contracts.HyperCommitRevealByEpochIndex, big.NewInt(1))
		}); err != nil {
			return err
		}
	}
	addrs := make([]common.Address, len(d.accounts))
	stakes := make([]uint64, len(d.accounts))
	permits := make([]bool, len(d.accounts))
	for i, a := range d.accounts {
		addrs[i] = a.Address
		if a.Role == "validator" {
			stakes[i], permits[i] = d.opts.ValidatorStake, true
		}
	}
	uids, err := d.RegisterNeurons(ctx, addrs, stakes, permits)
	if err != nil {
		return err
	}
	for i := range d.accounts {
		d.accounts[i].UID = uids[i]
	}
	return nil
}

// RegisterNeuron registers addr's mirror account as a hotkey (coldkey: the
// same mirror), associates addr for uidLookup and returns the uid.
func (d *Devnet) RegisterNeuron(ctx context.Context, addr common.Address, stake uint64, permit bool) (uint16, error) {
	uids, err := d.RegisterNeurons(ctx, []common.Address{addr}, []uint64{stake}, []bool{permit})
	if err != nil {
		return 0, err
	}
	return uids[0], nil
}

// RegisterNeurons is RegisterNeuron for many addresses at once.
func (d *Devnet) RegisterNeurons(ctx context.Context, addrs []common.Address, stakes []uint64, permits []bool) ([]uint16, error) {
	n := d.opts.Netuid
	var txs []*types.Transaction
	for i, addr := range addrs {
		hotkey := chain.Mirror(addr)
		tx, err := d.sendAdmin(ctx, "registerNeuron", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return d.state.RegisterNeuron(o, n, hotkey, hotkey, stakes[i], permits[i])
		})
		if err != nil {
			return nil, err
		}
		txs = append(txs, tx)
	}
	if err := d.awaitAdmin(ctx, "registerNeuron", txs...); err != nil {
		return nil, err
	}
	uids := make([]uint16, len(addrs))
	txs = txs[:0]
	for i, addr := range addrs {
		res, err := d.state.UidOfHotkey(&bind.CallOpts{Context: ctx}, n, chain.Mirror(addr))
		if err != nil || !res.Found {
			return nil, fmt.Errorf("devnet: registered %s but cannot find its uid: %v", addr, err)
		}
		uids[i] = res.Uid
		tx, err := d.sendAdmin(ctx, "associateEvmKey", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return d.state.AssociateEvmKey(o, n, res.Uid, addr)
		})
		if err != nil {
			return nil, err
		}
		txs = append(txs, tx)
	}
	return uids, d.awaitAdmin(ctx, "associateEvmKey", txs...)
}

// ReplaceNeuron gives uid to addr's mirror account (hotkey and coldkey, as RegisterNeuron),
// as subtensor's replace_neuron does when a registration on a full subnet prunes uid: the uid's
// BlockAtRegistration becomes the block this lands in, which it returns; the old hotkey leaves
// the subnet with its EVM association, axon, weights and commits, and other neurons' weights
// on uid drop to 0. addr is associated with uid for uidLookup. Accounts and ByRole keep listing
// the account uid belonged to at setup.
func (d *Devnet) ReplaceNeuron(ctx context.Context, uid uint16, addr common.Address, stake uint64, permit bool) (uint64, error) {
	n := d.opts.Netuid
	hotkey := chain.Mirror(addr)
	block, err := d.adminTxBlock(ctx, "replaceNeuron", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.ReplaceNeuron(o, n, uid, hotkey, hotkey, stake, permit)
	})
	if err != nil {
		return 0, err
	}
	if _, err := d.adminTx(ctx, "associateEvmKey", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.AssociateEvmKey(o, n, uid, addr)
	}); err != nil {
		return 0, err
	}
	return block, nil
}

// RegisteredAt is uid's BlockAtRegistration at the latest block, read in-process (what
// StorageQuery answers): the block its current hotkey registered at. Successive RegisterNeuron
// calls register at increasing blocks; neurons of one RegisterNeurons call, and those of
// setup, share a block or two.
func (d *Devnet) RegisteredAt(ctx context.Context, uid uint16) (uint64, error) {
	info, err := d.state.NeuronInfo(&bind.CallOpts{Context: ctx}, d.opts.Netuid, uid)
	if err != nil {
		return 0, fmt.Errorf("devnet: registration block of uid %d: %w", uid, err)
	}
	return info.RegistrationBlock, nil
}

// SetStake changes a neuron's stake.
func (d *Devnet) SetStake(ctx context.Context, uid uint16, stake uint64) error {
	_, err := d.adminTx(ctx, "setStake", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.SetStake(o, d.opts.Netuid, uid, stake)
	})
	return err
}

// SetValidatorPermit grants or removes a permit.
func (d *Devnet) SetValidatorPermit(ctx context.Context, uid uint16, permit bool) error {
	_, err := d.adminTx(ctx, "setValidatorPermit", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.SetValidatorPermit(o, d.opts.Netuid, uid, permit)
	})
	return err
}

// SetAxon records where uid serves, without the serveAxon checks, so a dev
// setup can point the validator at miners it started itself.
func (d *Devnet) SetAxon(ctx context.Context, uid uint16, axon chain.Axon) error {
	ip, ipType := chain.EncodeAxonIP(axon.IP)
	_, err := d.adminTx(ctx, "setAxon", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.SetAxon(o, d.opts.Netuid, uid, axon.Version, ip, axon.Port, ipType, axon.Protocol)
	})
	return err
}

// SetHyper applies h through the Subnet precompile's owner setters (the
// admin owns the devnet subnet), exactly as a subnet owner would on chain.
func (d *Devnet) SetHyper(ctx context.Context, h Hyper) error {
	n := d.opts.Netuid
	calls := []struct {
		method string
		set    bool
		args   []any
	}{
		{"setWeightsVersionKey", h.WeightsVersionKey != 0, []any{n, h.WeightsVersionKey}},
		{"setWeightsSetRateLimit", h.WeightsSetRateLimit != 0, []any{n, h.WeightsSetRateLimit}},
		{"setMinAllowedWeights", h.MinAllowedWeights != 0, []any{n, h.MinAllowedWeights}},
		{"setCommitRevealWeightsEnabled", true, []any{n, h.CommitRevealEnabled}},
		{"setCommitRevealWeightsInterval", h.CommitRevealInterval != 0, []any{n, h.CommitRevealInterval}},
		{"setImmunityPeriod", h.ImmunityPeriod != 0, []any{n, h.ImmunityPeriod}},
		{"setActivityCutoff", h.ActivityCutoff != 0, []any{n, h.ActivityCutoff}},
	}
	backend := contracts.GasHeadroom(d.client)
	subnet := bind.NewBoundContract(chain.SubnetAddress, d.subnet, backend, backend, backend)
	for _, c := range calls {
		if !c.set {
			continue
		}
		if _, err := d.adminTx(ctx, c.method, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return subnet.Transact(o, c.method, c.args...)
		}); err != nil {
			return err
		}
	}
	if h.MaxWeightLimit != 0 {
		if _, err := d.adminTx(ctx, "setMaxWeightLimit", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return d.state.SetMaxWeightLimit(o, n, h.MaxWeightLimit)
		}); err != nil {
			return err
		}
	}
	return nil
}

// adminTx sends one admin transaction and waits until it is mined.
func (d *Devnet) adminTx(ctx context.Context, what string, send func(*bind.TransactOpts) (*types.Transaction, error)) (*types.Transaction, error) {
	tx, err := d.sendAdmin(ctx, what, send)
	if err != nil {
		return nil, err
	}
	return tx, d.awaitAdmin(ctx, what, tx)
}

// sendAdmin signs and sends an admin transaction without waiting. Sends are
// serialised so each gets the next nonce.
func (d *Devnet) sendAdmin(ctx context.Context, what string, send func(*bind.TransactOpts) (*types.Transaction, error)) (*types.Transaction, error) {
	opts, err := bind.NewKeyedTransactorWithChainID(d.admin.Key, bigChainID)
	if err != nil {
		return nil, err
	}
	opts.Context = ctx
	d.adminMu.Lock()
	defer d.adminMu.Unlock()
	// The admin's nonce is also counted here: the pool's pending nonce lags
	// a fresh block while the pool resets, which would reuse a nonce. The
	// pool wins when it is ahead (someone else used the admin key).
	pending, err := d.client.PendingNonceAt(ctx, d.admin.Address)
	if err != nil {
		return nil, fmt.Errorf("devnet %s: nonce: %w", what, err)
	}
	d.adminNonce = max(d.adminNonce, pending)
	opts.Nonce = new(big.Int).SetUint64(d.adminNonce)
	tx, err := send(opts)
	if err != nil {
		return nil, fmt.Errorf("devnet %s: %w", what, err)
	}
	d.adminNonce++
	return tx, nil
}

// awaitAdmin waits for txs to be mined and succeed. Without a running block
// loop (setup, or BlockTime 0) it commits blocks itself until they are in.
func (d *Devnet) awaitAdmin(ctx context.Context, what string, txs ...*types.Transaction) error {
	poll := d.opts.BlockTime / 2
	for _, tx := range txs {
		for attempt := 0; ; attempt++ {
			receipt, err := d.client.TransactionReceipt(ctx, tx.Hash())
			if err == nil {
				if receipt.Status != types.ReceiptStatusSuccessful {
					return fmt.Errorf("devnet %s: transaction %s reverted", what, tx.Hash())
				}
				break
			}
			// go-ethereum answers "indexing is in progress" for a transaction
			// it has not indexed yet: as good as not found.
			if !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress") {
				return fmt.Errorf("devnet %s: receipt: %w", what, err)
			}
			if !d.autoMining() {
				if attempt > 64 {
					return fmt.Errorf("devnet %s: transaction %s not mined after %d blocks", what, tx.Hash(), attempt)
				}
				d.Commit()
				continue
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("devnet %s: waiting for receipt: %w", what, ctx.Err())
			case <-time.After(poll):
			}
		}
	}
	return nil
}

func (d *Devnet) autoMining() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mining
}

var bigChainID = big.NewInt(ChainID)

func bigUint(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
