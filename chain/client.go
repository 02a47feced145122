package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Known subtensor EVM chain ids.
const (
	ChainIDFinney  = 964
	ChainIDTestnet = 945
)

// Options configures a Client. Zero durations take the defaults below.
type Options struct {
	URL string
	// ExpectedChainID is compared with eth_chainId; 0 accepts any chain
	// (the devnet).
	ExpectedChainID uint64
	DialTimeout     time.Duration // default 10s
	CallTimeout     time.Duration // per JSON-RPC call or batch; default 30s
	ReceiptTimeout  time.Duration // how long to wait for a tx to be mined; default 2m
	ReceiptPoll     time.Duration // receipt polling interval; default 1s
	// BatchSize caps the calls in one JSON-RPC batch (go-ethereum nodes
	// refuse more than 1000 by default); default 500.
	BatchSize int
	// BatchParallelism is how many batches are in flight at once; default 4.
	BatchParallelism int
	Registerer       prometheus.Registerer
}

func (o *Options) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.DialTimeout, 10*time.Second)
	def(&o.CallTimeout, 30*time.Second)
	def(&o.ReceiptTimeout, 2*time.Minute)
	def(&o.ReceiptPoll, time.Second)
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	if o.BatchParallelism <= 0 {
		o.BatchParallelism = 4
	}
}

// Client talks to subtensor's Ethereum JSON-RPC (Frontier) and its
// precompiles. It is safe for concurrent use. Over websocket the underlying
// go-ethereum rpc.Client redials by itself on the next call after a drop;
// subscriptions are re-established by HeadFollower.
type Client struct {
	opts    Options
	log     zerolog.Logger
	rpc     *rpc.Client
	eth     *ethclient.Client
	chainID *big.Int
	abis    *precompileABIs
	metrics *clientMetrics

	nonceMu sync.Mutex
	nonces  map[common.Address]uint64

	// storageQuery is set once the node has shown a StorageQuery precompile (storage.go).
	storageQuery atomic.Bool
}

// Dial connects to url (ws, wss, http or https), reads eth_chainId and
// checks it against opts.ExpectedChainID.
func Dial(ctx context.Context, opts Options, log zerolog.Logger) (*Client, error) {
	opts.setDefaults()
	u, err := url.Parse(opts.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("chain url %q: not a valid URL", opts.URL)
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return nil, fmt.Errorf("chain url %q: scheme must be ws, wss, http or https", opts.URL)
	}
	redacted := u.Redacted()
	abis, err := loadABIs()
	if err != nil {
		return nil, err
	}
	dialCtx, cancel := context.WithTimeout(ctx, opts.DialTimeout)
	defer cancel()
	rc, err := rpc.DialOptions(dialCtx, opts.URL)
	if err != nil {
		return nil, fmt.Errorf("chain %s: cannot connect: %w", redacted, unwrapDialError(err))
	}
	var id hexutil.Big
	if err := rc.CallContext(dialCtx, &id, "eth_chainId"); err != nil {
		rc.Close()
		return nil, fmt.Errorf("chain %s: eth_chainId: %w", redacted, unwrapDialError(err))
	}
	chainID := (*big.Int)(&id)
	if opts.ExpectedChainID != 0 && chainID.Uint64() != opts.ExpectedChainID {
		rc.Close()
		return nil, fmt.Errorf("chain %s: %w: node reports %d, config expects %d (%s)",
			redacted, ErrWrongChain, chainID, opts.ExpectedChainID, chainName(opts.ExpectedChainID))
	}
	c := &Client{
		opts:    opts,
		log:     log.With().Str("component", "chain").Logger(),
		rpc:     rc,
		eth:     ethclient.NewClient(rc),
		chainID: chainID,
		abis:    abis,
		metrics: newClientMetrics(opts.Registerer),
		nonces:  map[common.Address]uint64{},
	}
	c.log.Debug().Str("url", redacted).Uint64("chain_id", chainID.Uint64()).Msg("connected to chain")
	return c, nil
}

func chainName(id uint64) string {
	switch id {
	case ChainIDFinney:
		return "finney mainnet"
	case ChainIDTestnet:
		return "testnet"
	default:
		return "custom"
	}
}

// unwrapDialError strips go-ethereum's nested dial errors down to the cause
// an operator can act on (connection refused, no such host, timeout).
func unwrapDialError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.New("timed out")
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// Close releases the connection.
func (c *Client) Close() { c.rpc.Close() }

// ChainID is what the node reported at dial time.
func (c *Client) ChainID() *big.Int { return new(big.Int).Set(c.chainID) }

// Eth exposes the plain go-ethereum client for callers that need standard
// eth_* methods (balances, headers).
func (c *Client) Eth() *ethclient.Client { return c.eth }

// HeadNumber returns the latest block number.
func (c *Client) HeadNumber(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	var n uint64
	err := c.withRedial(ctx, func() (err error) {
		n, err = c.eth.BlockNumber(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("eth_blockNumber: %w", err)
	}
	return n, nil
}
